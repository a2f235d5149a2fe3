//! Batches of redemption codes (docs/design.md §13): `POST /v1/code-batches`,
//! `GET /v1/code-batches` (a page of them), `GET /v1/code-batches/{id}`, its codes streamed as text or CSV
//! (`GET /v1/code-batches/{id}/codes`, recomputed from the serials: nothing
//! is stored per code), and `POST /v1/code-batches/{id}/stop`. Admin only.

use axum::Json;
use axum::body::Body;
use axum::extract::State;
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};
use uuid::Uuid;

use crate::api::AppState;
use crate::api::auth::principal::Principal;
use crate::api::auth::shop_scope;
use crate::api::http::context::Ctx;
use crate::api::http::error::{ApiError, ErrorBody};
use crate::api::http::extract::{ApiJson, ApiQuery, page_bounds};
use crate::api::http::path_param::ApiPath;
use crate::codes::CodeKey;
use crate::codes::passphrase::Passphrase;
use crate::commands::code_batches::{self, NewBatch, Target};
use crate::domain::code_batch::CodeBatchStatus;
use crate::domain::csv_line;
use crate::domain::ids::{PackageSn, TemplateSn};
use crate::domain::names;
use crate::domain::validity::{INSTANT_RULE, storable_instant};
use crate::queries::code_batches::{self as batches, ListFilter};
use crate::queries::page::page_of;
use crate::queries::templates::MAX_PAGE;
use crate::write_model::code_batch_row::{self, Batch};

/// The most codes one batch holds.
pub const MAX_COUNT: i64 = 100_000_000;
/// The most uses one code may have.
pub const MAX_USES: i32 = 1_000_000;
/// Codes written per chunk of the streamed answer.
const CODES_PER_CHUNK: i64 = 8_192;

crate::domain::names::name_list! {
    /// A batch's codes: generated (printed, each proving itself) or one
    /// passphrase chosen by hand (口令).
    #[derive(Serialize, Deserialize, ToSchema)]
    #[serde(rename_all = "snake_case")]
    pub enum BatchKind {
        Generated,
        Passphrase,
    }
}

#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct CreateBatch {
    /// `generated` (default) or `passphrase`.
    #[schema(value_type = Option<BatchKind>)]
    pub kind: Option<String>,
    /// The template whose coupon each code gives; or `package_sn`.
    #[schema(value_type = Option<crate::domain::ids::TemplateSn>)]
    pub template_sn: Option<String>,
    /// The package whose coupons each code gives; or `template_sn`.
    #[schema(value_type = Option<crate::domain::ids::PackageSn>)]
    pub package_sn: Option<String>,
    /// Generated codes in the batch, 1 to 100,000,000 (generated only).
    #[schema(schema_with = crate::api::http::schemas::range_or_null::<1, MAX_COUNT>)]
    pub count: Option<i64>,
    /// 1: one-use codes; N: shared codes, N uses, once per user. Default 1
    /// (generated only).
    #[schema(schema_with = crate::api::http::schemas::range_or_null::<1, { MAX_USES as i64 }>)]
    pub uses_per_code: Option<i32>,
    /// The passphrase (passphrase only): 2 to 32 letters (any script) or
    /// digits; users' input matches it after NFKC and case folding.
    #[schema(schema_with = crate::api::http::schemas::passphrase_or_null)]
    pub code: Option<String>,
    /// How many users may redeem the passphrase, 1 to 1,000,000 (passphrase only).
    #[schema(schema_with = crate::api::http::schemas::range_or_null::<1, { MAX_USES as i64 }>)]
    pub uses: Option<i32>,
    /// Codes of this batch one user may redeem (generated); times one user
    /// may redeem the passphrase (passphrase: 1). Default 1.
    #[schema(schema_with = crate::api::http::schemas::range_or_null::<1, { MAX_USES as i64 }>)]
    pub per_user: Option<i32>,
    /// After it the batch's codes are refused (422); none: no end.
    pub expires_at: Option<DateTime<Utc>>,
}

/// What a creation asks for, by kind: (count, uses per code, passphrase).
type Shape = (i64, i32, Option<Passphrase>);

impl CreateBatch {
    /// The batch's shape; each field that does not belong to the kind, or
    /// is out of range, is a 400 naming it.
    fn shape(&self) -> Result<Shape, ApiError> {
        let kind = match self.kind.as_deref() {
            None => BatchKind::Generated,
            Some(k) => {
                names::parse_field::<BatchKind>("kind", k).map_err(ApiError::invalid_field)?
            }
        };
        let stray = |field: &str, kind: BatchKind| {
            ApiError::invalid_field(format!("{field}: not a field of a {kind} batch"))
        };
        match kind {
            BatchKind::Generated => {
                if self.code.is_some() {
                    return Err(stray("code", kind));
                }
                if self.uses.is_some() {
                    return Err(stray("uses", kind));
                }
                let count = self
                    .count
                    .ok_or_else(|| ApiError::invalid_field("count: required"))?;
                if !(1..=MAX_COUNT).contains(&count) {
                    return Err(ApiError::invalid_field(format!(
                        "count: must be 1 to {MAX_COUNT}"
                    )));
                }
                let uses = in_range("uses_per_code", self.uses_per_code.unwrap_or(1))?;
                Ok((count, uses, None))
            }
            BatchKind::Passphrase => self.passphrase_shape(),
        }
    }

    fn passphrase_shape(&self) -> Result<Shape, ApiError> {
        let stray = |field: &str| {
            ApiError::invalid_field(format!("{field}: not a field of a passphrase batch"))
        };
        if self.count.is_some() {
            return Err(stray("count"));
        }
        if self.uses_per_code.is_some() {
            return Err(stray("uses_per_code"));
        }
        let code = self
            .code
            .as_deref()
            .ok_or_else(|| ApiError::invalid_field("code: required"))?;
        let passphrase =
            Passphrase::parse(code).map_err(|e| ApiError::invalid_field(e.to_string()))?;
        let uses = self
            .uses
            .ok_or_else(|| ApiError::invalid_field("uses: required"))?;
        // One code, shared: each user redeems it once (its redemptions are
        // kept once per user and code, as a shared generated code's are).
        if self.per_user.is_some_and(|n| n != 1) {
            return Err(ApiError::invalid_field(
                "per_user: a passphrase is redeemed once per user (1)",
            ));
        }
        Ok((1, in_range("uses", uses)?, Some(passphrase)))
    }
}

fn in_range(field: &str, n: i32) -> Result<i32, ApiError> {
    if (1..=MAX_USES).contains(&n) {
        Ok(n)
    } else {
        Err(ApiError::invalid_field(format!(
            "{field}: must be 1 to {MAX_USES}"
        )))
    }
}

#[derive(Serialize, Deserialize, ToSchema)]
pub struct BatchView {
    pub id: Uuid,
    pub kind: BatchKind,
    /// A passphrase batch's code, as it was chosen.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub code: Option<String>,
    #[schema(value_type = Option<String>)]
    pub template_sn: Option<TemplateSn>,
    #[schema(value_type = Option<String>)]
    pub package_sn: Option<PackageSn>,
    pub key_id: String,
    pub first_serial: i64,
    pub count: i64,
    pub uses_per_code: i32,
    pub per_user: i32,
    pub status: CodeBatchStatus,
    pub expires_at: Option<DateTime<Utc>>,
    /// Redemptions so far.
    pub redeemed: i64,
    pub created_at: DateTime<Utc>,
}

impl BatchView {
    fn of(b: &Batch) -> Self {
        BatchView {
            id: b.id,
            kind: match b.passphrase {
                Some(_) => BatchKind::Passphrase,
                None => BatchKind::Generated,
            },
            code: b.passphrase.clone(),
            template_sn: b.template_sn.clone(),
            package_sn: b.package_sn.clone(),
            key_id: b.key_id.clone(),
            first_serial: b.first_serial,
            count: b.count,
            uses_per_code: b.uses_per_code,
            per_user: b.per_user,
            status: b.status,
            expires_at: b.expires_at,
            redeemed: b.redeemed.unwrap_or_default(),
            created_at: b.created_at,
        }
    }
}

/// What the batch's codes give: exactly one of the two; text that cannot be
/// an sn names nothing (404, as an unknown one).
fn target(b: &CreateBatch) -> Result<Target, ApiError> {
    match (&b.template_sn, &b.package_sn) {
        (Some(sn), None) => TemplateSn::parse(sn)
            .map(Target::Template)
            .ok_or_else(|| ApiError::not_found("template", sn)),
        (None, Some(sn)) => PackageSn::parse(sn)
            .map(Target::Package)
            .ok_or_else(|| ApiError::not_found("package", sn)),
        _ => Err(ApiError::invalid_field(
            "template_sn or package_sn: give exactly one",
        )),
    }
}

/// Create a batch of codes for a template or a package.
#[utoipa::path(post, path = "/v1/code-batches", operation_id = "create_code_batch",
    tag = "codes", request_body = CreateBatch,
    security(("admin" = [])),
    responses((status = 201, body = BatchView), (status = 400, body = ErrorBody),
        (status = 404, body = ErrorBody),
        (status = 409, body = ErrorBody, description = "`code_taken`: an active batch holds the passphrase"),
        (status = 422, body = ErrorBody, description = "the template is void, or the key has no serials left")))]
pub async fn create(
    State(state): State<AppState>,
    principal: Principal,
    ctx: Ctx,
    body: ApiJson<CreateBatch>,
) -> Result<Response, ApiError> {
    let b = &body.value;
    let client = state.pool.get().await?;
    if let Some(sn) = &b.template_sn {
        shop_scope::check_templates(&**client, &principal, &[sn.as_str()]).await?;
    }
    if let Some(sn) = &b.package_sn {
        shop_scope::check_package(&**client, &principal, sn).await?;
    }
    drop(client);
    let (count, uses_per_code, passphrase) = b.shape()?;
    let per_user = in_range("per_user", b.per_user.unwrap_or(1))?;
    let (metadata, now) = (ctx.principal_metadata(), state.now());
    // As stored (to the microsecond, as the event's copy must be).
    let expires_at = b
        .expires_at
        .map(|t| {
            storable_instant(t)
                .ok_or_else(|| ApiError::invalid_field(format!("expires_at: {INSTANT_RULE}")))
        })
        .transpose()?;
    if expires_at.is_some_and(|end| end <= now) {
        return Err(ApiError::invalid_field("expires_at: must be in the future"));
    }
    let key_id = state.secrets.keys().code_key().id().to_owned();
    let target = target(b)?;
    ctx.write(&state, "admin", &body.hash, StatusCode::CREATED, |tx| {
        Box::pin(async move {
            let new = NewBatch {
                target,
                count,
                uses_per_code,
                per_user,
                expires_at,
                passphrase,
            };
            let batch = code_batches::create(tx, &key_id, &new, &metadata, now).await?;
            Ok(BatchView::of(&batch))
        })
    })
    .await
}

/// `GET /v1/code-batches` query: a page, optionally of one status or target.
#[derive(Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(deny_unknown_fields)]
pub struct ListQuery {
    /// `active` or `stopped`.
    #[param(value_type = Option<CodeBatchStatus>)]
    pub status: Option<String>,
    /// Only the batches giving this template's coupon.
    #[param(value_type = Option<TemplateSn>)]
    pub template_sn: Option<String>,
    /// Only the batches giving this package.
    #[param(value_type = Option<PackageSn>)]
    pub package_sn: Option<String>,
    /// Default 0.
    #[param(value_type = Option<crate::api::http::schemas::Offset>, inline)]
    pub offset: Option<i64>,
    /// 1 to 200, default 50.
    #[param(value_type = Option<crate::api::http::schemas::TemplatePageLimit>, inline)]
    pub limit: Option<i64>,
}

page_of!(BatchPage {
    batches: BatchView,
    total: "Batches matching the query in all."
});

/// List batches, newest first, with the total count.
#[utoipa::path(get, path = "/v1/code-batches", operation_id = "list_code_batches",
    tag = "codes", params(ListQuery),
    security(("admin" = [])),
    responses((status = 200, body = BatchPage), (status = 400, body = ErrorBody)))]
pub async fn list(
    State(state): State<AppState>,
    principal: Principal,
    ApiQuery(q): ApiQuery<ListQuery>,
) -> Result<Json<BatchPage>, ApiError> {
    let status = q
        .status
        .as_deref()
        .map(|s| {
            names::parse_field::<CodeBatchStatus>("status", s).map_err(ApiError::invalid_field)
        })
        .transpose()?;
    let not_an_sn = |sn: &Option<String>| {
        sn.as_deref()
            .is_some_and(|s| TemplateSn::parse(s).is_none())
    };
    if not_an_sn(&q.template_sn) {
        return Err(ApiError::invalid_field("template_sn: not a template sn"));
    }
    if not_an_sn(&q.package_sn) {
        return Err(ApiError::invalid_field("package_sn: not a package sn"));
    }
    let bounds = page_bounds(q.offset, q.limit, MAX_PAGE)?;
    let filter = ListFilter {
        status,
        template_sn: q.template_sn.as_deref(),
        package_sn: q.package_sn.as_deref(),
        shops: principal.shop_filter(),
    };
    let client = state.pool.get().await?;
    let page = batches::list(&**client, &filter, bounds).await?;
    Ok(Json(page.map(|b| BatchView::of(&b)).into()))
}

/// The batch's id, in the path: how the OpenAPI document names what
/// `ApiPath<Uuid>` parses.
#[derive(IntoParams)]
#[into_params(parameter_in = Path)]
pub struct BatchId {
    pub id: Uuid,
}

async fn batch(state: &AppState, id: Uuid) -> Result<Batch, ApiError> {
    let client = state.pool.get().await?;
    code_batch_row::read(&**client, id)
        .await?
        .ok_or_else(|| ApiError::not_found("code batch", id))
}

/// Read a batch.
#[utoipa::path(get, path = "/v1/code-batches/{id}", operation_id = "read_code_batch",
    tag = "codes", params(BatchId),
    security(("admin" = [])),
    responses((status = 200, body = BatchView), (status = 404, body = ErrorBody)))]
pub async fn read(
    State(state): State<AppState>,
    _: Principal,
    ApiPath(id): ApiPath<Uuid>,
) -> Result<Json<BatchView>, ApiError> {
    Ok(Json(BatchView::of(&batch(&state, id).await?)))
}

/// Stop a batch: its codes are refused from now on (422).
#[utoipa::path(post, path = "/v1/code-batches/{id}/stop", operation_id = "stop_code_batch",
    tag = "codes", params(BatchId),
    security(("admin" = [])),
    responses((status = 200, body = BatchView), (status = 404, body = ErrorBody)))]
pub async fn stop(
    State(state): State<AppState>,
    _: Principal,
    ctx: Ctx,
    ApiPath(id): ApiPath<Uuid>,
) -> Result<Response, ApiError> {
    let hash = crate::exactly_once::idempotency::request_hash(&[id.as_bytes(), b"stop"]);
    let (metadata, now) = (ctx.principal_metadata(), state.now());
    let stopped = ctx.write(&state, "admin", &hash, StatusCode::OK, |tx| {
        Box::pin(async move {
            let batch = code_batches::stop(tx, id, &metadata, now).await?;
            Ok(BatchView::of(&batch))
        })
    });
    let answer = stopped.await;
    state.code_batches.forget(id);
    answer
}

#[derive(Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(deny_unknown_fields)]
pub struct CodesQuery {
    /// `text` (one code a line, default) or `csv` (`serial,code`).
    #[param(value_type = Option<crate::api::http::schemas::TextOrCsv>, inline)]
    pub format: Option<String>,
}

/// The batch's codes, streamed in serial order (recomputed from the
/// serials; memory stays flat for any count).
#[utoipa::path(get, path = "/v1/code-batches/{id}/codes", operation_id = "code_batch_codes",
    tag = "codes", params(BatchId, CodesQuery),
    security(("admin" = [])),
    responses((status = 200, content((String = "text/plain"), (String = "text/csv")),
            description = "one code a line; with format=csv, `serial,code`"),
        (status = 400, body = ErrorBody), (status = 404, body = ErrorBody),
        (status = 422, body = ErrorBody, description = "the batch's key is not configured")))]
pub async fn codes(
    State(state): State<AppState>,
    _: Principal,
    ApiPath(id): ApiPath<Uuid>,
    ApiQuery(q): ApiQuery<CodesQuery>,
) -> Result<Response, ApiError> {
    let csv = match q.format.as_deref() {
        None | Some("text") => false,
        Some("csv") => true,
        Some(other) => {
            return Err(ApiError::invalid_field(format!(
                "format: {other:?}: expected text or csv"
            )));
        }
    };
    let batch = batch(&state, id).await?;
    if let Some(passphrase) = &batch.passphrase {
        // One code, chosen by hand: nothing to compute.
        let line = if csv {
            format!(
                "serial,code\n{},{}\n",
                batch.first_serial,
                csv_line::cell(passphrase)
            )
        } else {
            format!("{passphrase}\n")
        };
        return Ok(([(header::CONTENT_TYPE, "text/plain; charset=utf-8")], line).into_response());
    }
    let Some(key) = state.secrets.keys().code_key_by_id(&batch.key_id) else {
        return Err(ApiError::Unprocessable {
            code: "key_not_configured",
            message: format!("the batch's key {} is not configured", batch.key_id),
        });
    };
    let (kind, ext) = if csv {
        ("text/csv", "csv")
    } else {
        ("text/plain", "txt")
    };
    let disposition = format!("attachment; filename=\"codes-{id}.{ext}\"");
    let headers = [
        (header::CONTENT_TYPE, format!("{kind}; charset=utf-8")),
        (header::CONTENT_DISPOSITION, disposition),
    ];
    let body = Body::from_stream(lines(key, batch.first_serial, batch.count, csv));
    Ok((headers, body).into_response())
}

/// The codes of serials `[first, first + count)`, a chunk at a time, each
/// computed on the blocking pool (a chunk is milliseconds of cipher work,
/// which must not hold up the server's other requests).
fn lines(
    key: std::sync::Arc<CodeKey>,
    first: i64,
    count: i64,
    csv: bool,
) -> impl futures_util::Stream<Item = Result<String, std::io::Error>> {
    use futures_util::StreamExt;
    let header = csv.then(|| Ok("serial,code\n".to_owned()));
    let chunks = (0..(count + CODES_PER_CHUNK - 1) / CODES_PER_CHUNK).map(move |c| {
        let start = first + c * CODES_PER_CHUNK;
        (start, (start + CODES_PER_CHUNK).min(first + count))
    });
    let codes = futures_util::stream::iter(chunks).then(move |(start, end)| {
        let key = key.clone();
        async move {
            let chunk = move || crate::codes::lines(&key, start..end, csv);
            tokio::task::spawn_blocking(chunk)
                .await
                .map_err(std::io::Error::other)
        }
    });
    futures_util::stream::iter(header).chain(codes)
}
