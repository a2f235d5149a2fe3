//! `/v1/issuance-jobs` (docs/design.md §9): upload a file of user ids for a
//! template, follow the job, read its report, cancel it, list jobs.

use axum::Json;
use axum::body::Body;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Response};
use futures_util::{StreamExt, TryStreamExt};
use serde::Deserialize;
use utoipa::{IntoParams, ToSchema};
use uuid::Uuid;

use crate::api::AppState;
use crate::api::auth::principal::Principal;
use crate::api::auth::shop_scope;
use crate::api::http::error::{ApiError, ErrorBody};
use crate::api::http::extract::{self, ApiQuery};
use crate::api::http::path_param::ApiPath;
use crate::commands::body_stream;
use crate::commands::issuance_job::{self, JobOpening, Opened};
use crate::commands::upload::{self, Sinks, Target};
use crate::commands::upload_error::UploadError;
use crate::domain::ids::TemplateSn;
use crate::domain::issuance::{DEFAULT_CHUNK_LINES, IssuanceJobStatus};
use crate::domain::template_status::{self, NotIssuing};
use crate::domain::user_file::{FileError, FileFormat};
use crate::queries;
use crate::queries::issuance_jobs::{self as jobs, JobView, ReportLine};

/// A job's key is an Idempotency-Key (the header names the job first).
const MAX_KEY_LEN: usize = crate::exactly_once::idempotency::MAX_KEY_LEN;

#[derive(Deserialize, IntoParams)]
#[serde(deny_unknown_fields)]
#[into_params(parameter_in = Query)]
pub struct UploadQuery {
    /// The template's sn.
    #[param(value_type = crate::domain::ids::TemplateSn)]
    pub template: String,
    /// Names the job (like `Idempotency-Key`, which wins when both are given).
    #[param(value_type = Option<crate::api::http::schemas::JobKey>, inline)]
    pub key: Option<String>,
    /// `true`: once the job has ended, each user it gave coupons gets one
    /// `CouponsGranted` message on `coupon.notifications` listing them
    /// (docs/reference/reminders.md). Default `false`. Part of what the key
    /// names: the same key with another `notify` is 422
    /// `idempotency_key_reused`; a value other than `true` or `false` is 400.
    pub notify: Option<bool>,
}

/// Upload a file of user ids (`text/plain`, one per line, or `text/csv` with a
/// `user_id` column; `Content-Encoding: gzip` accepted), streamed. Answers
/// once every chunk is on the queue. The same key and file answer the same
/// job; `notify=true` sends each user one `CouponsGranted` message once the
/// job has ended. A declared length over the limit is 413 before any byte is read; a
/// file without a line of data 422 `empty_file` (no job is kept); a body
/// that stops coming 408, the job left `incomplete` to resume.
#[utoipa::path(post, path = "/v1/issuance-jobs", operation_id = "upload_issuance_job",
    tag = "issuance", params(UploadQuery),
    request_body(content = String, content_type = "text/plain"),
    security(("admin" = [])),
    responses((status = 202, body = JobView), (status = 400, body = ErrorBody),
        (status = 401, body = ErrorBody), (status = 403, body = ErrorBody),
        (status = 404, body = ErrorBody), (status = 408, body = ErrorBody),
        (status = 409, body = ErrorBody), (status = 413, body = ErrorBody),
        (status = 422, body = ErrorBody)))]
pub async fn upload(
    State(state): State<AppState>,
    admin: Principal,
    ApiQuery(q): ApiQuery<UploadQuery>,
    headers: HeaderMap,
    body: Body,
) -> Result<Response, ApiError> {
    // Certainly over the limit: without gzip the length is the file's; with
    // it, a file inflates, so its compressed length is below the file's.
    // Answered at once, the body unread: draining a body of that size could
    // not reach its end, and a client that waits (`Expect: 100-continue`,
    // or one that sent less than it declared) gets its answer now.
    if extract::declared_length(&headers).is_some_and(|n| n > state.upload_max_bytes) {
        return Err(ApiError::PayloadTooLarge {
            limit: usize::try_from(state.upload_max_bytes).unwrap_or(usize::MAX),
        });
    }
    let opening = match open_job(&state, &q, &headers, &admin).await {
        Ok(opening) => opening,
        Err(refused) => {
            // Let a client that streams its file first see the refusal.
            extract::drain(body).await;
            return Err(refused);
        }
    };
    let target = Target {
        job_id: opening.opened.id(),
        template_sn: opening.sn.clone(),
        format: opening.format,
        chunk_lines: DEFAULT_CHUNK_LINES,
        max_bytes: state.upload_max_bytes,
        idle: state.upload_idle,
    };
    if let Opened::Complete { file_sha256, .. } = &opening.opened {
        let limits = (target.max_bytes, target.idle);
        let sha = body_stream::hash_body(body.into_data_stream(), opening.gzip, limits).await;
        if sha.map_err(|e| upload_error(e, &target, &opening.key))? != *file_sha256 {
            return Err(ApiError::Unprocessable {
                code: "different_file",
                message: "this key names a job uploaded with another file".into(),
            });
        }
    } else {
        read(&state, &target, &opening, body).await?;
    }
    let view = job_view(&state, target.job_id).await?;
    Ok((StatusCode::ACCEPTED, Json(view)).into_response())
}

/// An upload's file form and the job its key names.
struct Opening {
    format: FileFormat,
    gzip: bool,
    sn: TemplateSn,
    key: String,
    opened: Opened,
}

/// The file's form and the job its key names, once the template issues.
async fn open_job(
    state: &AppState,
    q: &UploadQuery,
    headers: &HeaderMap,
    admin: &Principal,
) -> Result<Opening, ApiError> {
    let format = file_format(headers)?;
    let gzip = gzipped(headers)?;
    let key = job_key(headers, q.key.as_deref())?;
    let sn = TemplateSn::parse(&q.template).ok_or_else(|| template_not_found(&q.template))?;
    check_template(state, &sn).await?;
    let client = state.pool.get().await?;
    shop_scope::check_templates(&**client, admin, &[sn.as_str()]).await?;
    let job = JobOpening {
        key: &key,
        sn: sn.as_str(),
        format,
        operator: admin.name(),
        notify: q.notify.unwrap_or(false),
    };
    let opened = issuance_job::open(&**client, &job, state.now()).await?;
    Ok(Opening {
        format,
        gzip,
        sn,
        key,
        opened,
    })
}

/// Reads the file into the job (`commands/upload.rs`); a refusal or a
/// failure is answered with how to resume.
async fn read(
    state: &AppState,
    target: &Target,
    opening: &Opening,
    body: Body,
) -> Result<(), ApiError> {
    let sinks = Sinks {
        pool: &state.pool,
        chunks: &state.chunks,
        lines_read: &state.metrics.issuance.lines_read,
        chunks_published: &state.metrics.issuance.chunks_published,
    };
    let frames = body.into_data_stream();
    match upload::ingest(&sinks, target, frames, opening.gzip).await {
        Ok(_) => Ok(()),
        Err(e) => Err(upload_error(e, target, &opening.key)),
    }
}

fn upload_error(e: UploadError, target: &Target, key: &str) -> ApiError {
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
            "{e}: the upload of issuance job {} stopped there; send the same file again \
             with Idempotency-Key {key} to resume it",
            target.job_id
        )),
        UploadError::Command(e) => e.into(),
        UploadError::Publish(e) => ApiError::Unavailable(format!("RabbitMQ ({e})")),
        UploadError::Pool(e) => e.into(),
    }
}

pub(super) fn file_format(headers: &HeaderMap) -> Result<FileFormat, ApiError> {
    let media = headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .map(|v| {
            v.split(';')
                .next()
                .unwrap_or("")
                .trim()
                .to_ascii_lowercase()
        });
    match media.as_deref() {
        None | Some("text/plain") => Ok(FileFormat::Plain),
        Some("text/csv") => Ok(FileFormat::Csv),
        Some(other) => Err(ApiError::BadRequest {
            code: "unsupported_media_type",
            message: format!("the file must be text/plain or text/csv, not {other}"),
        }),
    }
}

pub(super) fn gzipped(headers: &HeaderMap) -> Result<bool, ApiError> {
    match headers.get(header::CONTENT_ENCODING).map(|v| v.to_str()) {
        None => Ok(false),
        Some(Ok(e)) if e.eq_ignore_ascii_case("gzip") => Ok(true),
        Some(Ok(e)) if e.eq_ignore_ascii_case("identity") => Ok(false),
        Some(_) => Err(ApiError::BadRequest {
            code: "unsupported_encoding",
            message: "Content-Encoding must be gzip or identity".into(),
        }),
    }
}

/// The job's key: `Idempotency-Key`, else `?key=`, else a fresh one.
pub(super) fn job_key(headers: &HeaderMap, query: Option<&str>) -> Result<String, ApiError> {
    let header = headers.get("Idempotency-Key").map(|v| v.to_str());
    let key = match header {
        Some(Ok(k)) => Some(k.to_owned()),
        Some(Err(_)) => return Err(ApiError::bad_request("Idempotency-Key: visible ASCII only")),
        None => query.map(str::to_owned),
    };
    let key = key.unwrap_or_else(|| Uuid::now_v7().to_string());
    let ok =
        !key.is_empty() && key.len() <= MAX_KEY_LEN && key.bytes().all(|b| b.is_ascii_graphic());
    ok.then_some(key).ok_or_else(|| {
        ApiError::bad_request(format!("key: 1 to {MAX_KEY_LEN} visible ASCII characters"))
    })
}

/// The template exists (404) and issues now (422).
async fn check_template(state: &AppState, sn: &TemplateSn) -> Result<(), ApiError> {
    let client = state.pool.get().await?;
    let (status, window) = queries::templates::issue_state(&**client, sn)
        .await?
        .ok_or_else(|| template_not_found(sn.as_str()))?;
    template_status::issuing(status, window, state.now()).map_err(|why| {
        let code = match why {
            NotIssuing::NotActive(_) => "template_not_active",
            NotIssuing::OutsideWindow { .. } => "outside_issue_window",
        };
        ApiError::Unprocessable {
            code,
            message: why.to_string(),
        }
    })
}

async fn job_view(state: &AppState, id: Uuid) -> Result<JobView, ApiError> {
    let client = state.pool.get().await?;
    jobs::job(&**client, id, state.now())
        .await?
        .ok_or_else(|| ApiError::not_found("issuance job", id))
}

fn template_not_found(sn: &str) -> ApiError {
    ApiError::not_found("template", sn)
}

/// The job's id, in the path: how the OpenAPI document names what
/// `ApiPath<Uuid>` parses.
#[derive(IntoParams)]
pub struct JobId {
    /// The job's id.
    pub id: Uuid,
}

/// A job: its status, counts of every outcome, chunks, rate.
#[utoipa::path(get, path = "/v1/issuance-jobs/{id}", operation_id = "read_issuance_job",
    tag = "issuance", params(JobId),
    security(("admin" = [])),
    responses((status = 200, body = JobView), (status = 400, body = ErrorBody),
        (status = 401, body = ErrorBody), (status = 403, body = ErrorBody),
        (status = 404, body = ErrorBody)))]
pub async fn read_job(
    State(state): State<AppState>,
    _: Principal,
    ApiPath(id): ApiPath<Uuid>,
) -> Result<Json<JobView>, ApiError> {
    Ok(Json(job_view(&state, id).await?))
}

/// Cancels a job: lines of chunks not yet issued end `cancelled`.
#[utoipa::path(post, path = "/v1/issuance-jobs/{id}/cancel", operation_id = "cancel_issuance_job",
    tag = "issuance", params(JobId),
    security(("admin" = [])),
    responses((status = 200, body = JobView), (status = 401, body = ErrorBody),
        (status = 403, body = ErrorBody), (status = 404, body = ErrorBody),
        (status = 409, body = ErrorBody)))]
pub async fn cancel(
    State(state): State<AppState>,
    _: Principal,
    ApiPath(id): ApiPath<Uuid>,
) -> Result<Json<JobView>, ApiError> {
    let client = state.pool.get().await?;
    issuance_job::cancel(&**client, id).await?;
    drop(client);
    Ok(Json(job_view(&state, id).await?))
}

#[derive(Deserialize, IntoParams)]
#[serde(deny_unknown_fields)]
#[into_params(parameter_in = Query)]
pub struct ListQuery {
    /// Only the jobs of this template (its sn).
    pub template: Option<String>,
    /// One of the job statuses.
    #[param(value_type = Option<IssuanceJobStatus>)]
    pub status: Option<String>,
    /// Jobs to skip (default 0; below 0 reads as 0).
    pub offset: Option<i64>,
    /// Jobs to answer, default 50; read as 1 to 200.
    pub limit: Option<i64>,
}

#[derive(serde::Serialize, ToSchema)]
pub struct JobList {
    pub jobs: Vec<JobView>,
}

/// Jobs, newest first, by template and status.
#[utoipa::path(get, path = "/v1/issuance-jobs", operation_id = "list_issuance_jobs",
    tag = "issuance", params(ListQuery),
    security(("admin" = [])),
    responses((status = 200, body = JobList), (status = 400, body = ErrorBody),
        (status = 401, body = ErrorBody), (status = 403, body = ErrorBody)))]
pub async fn list(
    State(state): State<AppState>,
    principal: Principal,
    ApiQuery(q): ApiQuery<ListQuery>,
) -> Result<Json<JobList>, ApiError> {
    let status = q
        .status
        .as_deref()
        .map(|s| {
            IssuanceJobStatus::parse(s).ok_or_else(|| ApiError::bad_request("status: unknown"))
        })
        .transpose()?;
    let offset = q.offset.unwrap_or(0).max(0);
    let limit = q.limit.unwrap_or(50).clamp(1, jobs::MAX_PAGE);
    let client = state.pool.get().await?;
    let page = (offset, limit);
    let (template, shops) = (q.template.as_deref(), principal.shop_filter());
    let found = jobs::list(&**client, template, status, shops, page, state.now()).await?;
    Ok(Json(JobList { jobs: found }))
}

#[derive(Deserialize, IntoParams)]
#[serde(deny_unknown_fields)]
#[into_params(parameter_in = Query)]
pub struct ReportQuery {
    /// Every line, with the coupon of those that got one.
    pub all: Option<bool>,
}

/// The job's lines as CSV `line,user_id,outcome,reason[,coupon_id]`, streamed.
#[utoipa::path(get, path = "/v1/issuance-jobs/{id}/report", operation_id = "issuance_job_report",
    tag = "issuance",
    params(JobId, ReportQuery), security(("admin" = [])),
    responses((status = 200, content_type = "text/csv", body = String),
        (status = 401, body = ErrorBody), (status = 403, body = ErrorBody),
        (status = 404, body = ErrorBody)))]
pub async fn report(
    State(state): State<AppState>,
    _: Principal,
    ApiPath(id): ApiPath<Uuid>,
    ApiQuery(q): ApiQuery<ReportQuery>,
) -> Result<Response, ApiError> {
    job_view(&state, id).await?;
    let all = q.all.unwrap_or(false);
    let rows = jobs::report(state.pool.get().await?, id, all).await?;
    let header = if all {
        "line,user_id,outcome,reason,coupon_id\n"
    } else {
        "line,user_id,outcome,reason\n"
    };
    let lines = rows.map_ok(move |r: ReportLine| r.csv(all));
    let head = futures_util::stream::once(async move { Ok(header.to_owned()) });
    let body = Body::from_stream(head.chain(lines).map_err(std::io::Error::other));
    Ok(([(header::CONTENT_TYPE, "text/csv; charset=utf-8")], body).into_response())
}
