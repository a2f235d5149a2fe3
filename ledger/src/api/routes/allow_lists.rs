//! `/v1/templates/{sn}/allow-list` (docs/design.md §15): upload a file of user
//! ids that join (or leave) a template's allow-list, read the list's size
//! and files (or whether one user is on it), read one file's report.

use axum::Json;
use axum::body::Body;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use serde::Deserialize;
use utoipa::IntoParams;
use uuid::Uuid;

use super::issuance_jobs::{file_format, gzipped, job_key};
use crate::api::AppState;
use crate::api::auth::principal::Principal;
use crate::api::http::context::Ctx;
use crate::api::http::error::{ApiError, ErrorBody};
use crate::api::http::extract::{self, ApiQuery};
use crate::api::http::path_param::ApiPath;
use crate::commands::allow_list::{self, Opened, Opening, Target};
use crate::commands::body_stream;
use crate::commands::upload_error::UploadError;
use crate::domain::eligibility::AllowListMode;
use crate::domain::ids::{TemplateSn, UserId};
use crate::domain::names;
use crate::domain::user_file::FileError;
use crate::queries::allow_lists::{self as queries, AllowListFileView, AllowListView};

#[derive(Deserialize, IntoParams)]
#[serde(deny_unknown_fields)]
#[into_params(parameter_in = Query)]
pub struct UploadQuery {
    /// `add` (default): the file's users join the list; `remove`: they leave it.
    #[param(value_type = Option<AllowListMode>)]
    pub mode: Option<String>,
    /// Names the upload (like `Idempotency-Key`, which wins when both are given).
    #[param(value_type = Option<crate::api::http::schemas::JobKey>, inline)]
    pub key: Option<String>,
}

/// The template's serial number, in the path: how the OpenAPI document
/// names what `ApiPath<TemplateSn>` parses.
#[derive(IntoParams)]
#[into_params(parameter_in = Path)]
pub struct SnPath {
    /// The template's serial number.
    pub sn: String,
}

/// Add users to (or remove them from) the template's allow-list: a file of
/// user ids like a bulk-issuance upload (`text/plain`, one per line, or
/// `text/csv` with a `user_id` column; `Content-Encoding: gzip` accepted),
/// streamed and applied part by part; answered once it is all applied,
/// with the counts and the first invalid lines (by 1-based number). The
/// same key and file answer the same file; a broken-off upload sent again
/// under its key is finished (adding or removing an id twice changes
/// nothing). At most 10,000,000 users a list. The list applies when the
/// template's `eligibility.allow_list` is true.
#[utoipa::path(post, path = "/v1/templates/{sn}/allow-list", operation_id = "upload_allow_list",
    tag = "templates",
    params(SnPath, UploadQuery), request_body(content = String, content_type = "text/plain"),
    security(("admin" = [])),
    responses((status = 201, body = AllowListFileView), (status = 400, body = ErrorBody),
        (status = 401, body = ErrorBody), (status = 403, body = ErrorBody),
        (status = 404, body = ErrorBody), (status = 408, body = ErrorBody),
        (status = 409, body = ErrorBody, description = "the template is void"),
        (status = 413, body = ErrorBody),
        (status = 422, body = ErrorBody, description = "a file without a line of data \
            (`empty_file`), another file or mode under the same key (`different_file`), or a \
            list that would pass 10,000,000 users (`allow_list_full`)")))]
pub async fn upload(
    State(state): State<AppState>,
    (admin, ctx): (Principal, Ctx),
    // Refused in `open`, as the upload's other refusals are: after a
    // declared length over the limit, and with the body drained.
    sn: Result<ApiPath<TemplateSn>, ApiError>,
    ApiQuery(q): ApiQuery<UploadQuery>,
    headers: HeaderMap,
    body: Body,
) -> Result<Response, ApiError> {
    if extract::declared_length(&headers).is_some_and(|n| n > state.upload_max_bytes) {
        return Err(ApiError::PayloadTooLarge {
            limit: usize::try_from(state.upload_max_bytes).unwrap_or(usize::MAX),
        });
    }
    let (target, opened) = match open(&state, &admin, (sn, &q), &headers).await {
        Ok(opened) => opened,
        Err(refused) => {
            // Let a client that streams its file first see the refusal.
            extract::drain(body).await;
            return Err(refused);
        }
    };
    let gzip = gzipped(&headers)?;
    let frames = body.into_data_stream();
    if let Opened::Complete { sha256, .. } = &opened {
        let limits = (target.max_bytes, target.idle);
        let sha = body_stream::hash_body(frames, gzip, limits).await;
        if sha.map_err(|e| upload_error(e, &target))? != *sha256 {
            return Err(different_file());
        }
    } else {
        let metadata = ctx.principal_metadata();
        allow_list::ingest(&state.pool, &target, frames, gzip, &metadata)
            .await
            .map_err(|e| upload_error(e, &target))?;
    }
    let view = file_view(&state, &target.template_sn, target.file_id).await?;
    Ok((StatusCode::CREATED, Json(view)).into_response())
}

/// The upload's target and the file its key names.
async fn open(
    state: &AppState,
    admin: &Principal,
    (sn, q): (Result<ApiPath<TemplateSn>, ApiError>, &UploadQuery),
    headers: &HeaderMap,
) -> Result<(Target, Opened), ApiError> {
    let ApiPath(sn) = sn?;
    let mode = match q.mode.as_deref() {
        Some(m) => names::parse_field::<AllowListMode>("mode", m).map_err(ApiError::bad_request)?,
        None => AllowListMode::Add,
    };
    let format = file_format(headers)?;
    gzipped(headers)?;
    let key = job_key(headers, q.key.as_deref())?;
    let opening = Opening {
        sn: &sn,
        mode,
        key: Some(&key),
        operator: admin.name(),
    };
    let client = state.pool.get().await?;
    let opened = allow_list::open(&**client, &opening, state.now()).await?;
    let file_id = match &opened {
        Opened::Apply(id) | Opened::Complete { id, .. } => *id,
    };
    let target = Target {
        file_id,
        template_sn: sn,
        mode,
        format,
        max_bytes: state.upload_max_bytes,
        idle: state.upload_idle,
    };
    Ok((target, opened))
}

fn different_file() -> ApiError {
    ApiError::Unprocessable {
        code: "different_file",
        message: "this key names an allow-list upload of another file".into(),
    }
}

fn upload_error(e: UploadError, target: &Target) -> ApiError {
    match e {
        UploadError::TooLarge(limit) => ApiError::PayloadTooLarge {
            limit: usize::try_from(limit).unwrap_or(usize::MAX),
        },
        UploadError::File(FileError::Empty) => {
            ApiError::unprocessable("empty_file", FileError::Empty.to_string())
        }
        UploadError::File(e) => ApiError::bad_request(e.to_string()),
        UploadError::Gzip(m) => {
            ApiError::bad_request(format!("the gzip body does not inflate: {m}"))
        }
        UploadError::BrokeOff(m) => ApiError::bad_request(format!("the upload broke off: {m}")),
        UploadError::Stalled(_) => ApiError::Timeout(format!(
            "{e}: allow-list file {} stopped there (what it applied stays); send the same \
             file again with the same Idempotency-Key to finish it",
            target.file_id
        )),
        UploadError::Command(e) => e.into(),
        UploadError::Publish(e) => ApiError::Unavailable(format!("RabbitMQ ({e})")),
        UploadError::Pool(e) => e.into(),
    }
}

async fn file_view(
    state: &AppState,
    sn: &TemplateSn,
    id: Uuid,
) -> Result<AllowListFileView, ApiError> {
    let client = state.pool.get().await?;
    queries::file_of(&**client, sn, id)
        .await?
        .ok_or_else(|| ApiError::not_found("allow-list file", id))
}

#[derive(Deserialize, IntoParams)]
#[serde(deny_unknown_fields)]
#[into_params(parameter_in = Query)]
pub struct ListQuery {
    /// Answer whether this user is on the list (`contains`).
    #[param(value_type = Option<String>)]
    pub user_id: Option<UserId>,
}

/// The template's allow-list: whether it applies, how many users it holds,
/// the files that changed it (newest first, at most 20) and, with
/// `?user_id=`, whether that user is on it. Never the list itself.
#[utoipa::path(get, path = "/v1/templates/{sn}/allow-list", operation_id = "read_allow_list",
    tag = "templates",
    params(SnPath, ListQuery), security(("admin" = [])),
    responses((status = 200, body = AllowListView), (status = 400, body = ErrorBody),
        (status = 404, body = ErrorBody)))]
pub async fn read(
    State(state): State<AppState>,
    _: Principal,
    ApiPath(sn): ApiPath<TemplateSn>,
    ApiQuery(q): ApiQuery<ListQuery>,
) -> Result<Json<AllowListView>, ApiError> {
    let client = state.pool.get().await?;
    let view = queries::list(&**client, &sn, q.user_id.as_ref()).await?;
    Ok(Json(
        view.ok_or_else(|| ApiError::not_found("template", sn))?,
    ))
}

/// A template's sn and one of its allow-list files, in the path: how the
/// OpenAPI document names what `ApiPath<TemplateSn>` and `ApiPath<Uuid>`
/// parse.
#[derive(IntoParams)]
#[into_params(parameter_in = Path)]
pub struct FilePath {
    /// The template's serial number.
    pub sn: String,
    /// The file's id.
    pub id: Uuid,
}

/// One allow-list file: what it did, and its first invalid lines (at most
/// 1,000) with their 1-based number and reason.
#[utoipa::path(get, path = "/v1/templates/{sn}/allow-list/files/{id}", operation_id = "read_allow_list_file",
    tag = "templates",
    params(FilePath), security(("admin" = [])),
    responses((status = 200, body = AllowListFileView), (status = 404, body = ErrorBody)))]
pub async fn read_file(
    State(state): State<AppState>,
    _: Principal,
    // The file's id first: a malformed one is refused (400) before an sn
    // that names nothing (404), as when both were parsed together.
    ApiPath(id): ApiPath<Uuid>,
    ApiPath(sn): ApiPath<TemplateSn>,
) -> Result<Json<AllowListFileView>, ApiError> {
    Ok(Json(file_view(&state, &sn, id).await?))
}
