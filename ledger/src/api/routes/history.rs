//! `GET /v1/templates/{sn}/history`: a template's coupons over time, from
//! the ledger's own records, so that the console's chart shows what
//! happened before the page was opened (a bulk issuance that has finished).
//! `GET /v1/templates/{sn}/events`: the template's own changes, each with
//! the operator who made it (docs/design.md §7 "Operators").

use axum::Json;
use axum::extract::State;
use chrono::{DateTime, Utc};
use serde::Deserialize;
use utoipa::IntoParams;

use crate::api::AppState;
use crate::api::auth::principal::Principal;
use crate::api::http::error::{ApiError, ErrorBody};
use crate::api::http::extract::ApiQuery;
use crate::api::http::path_param::ApiPath;
use crate::api::routes::templates::{SN, not_found};
use crate::domain::history::{Bucket, buckets};
use crate::domain::ids::TemplateSn;
use crate::domain::stream::StreamKind;
use crate::domain::validity::storable_instant;
use crate::queries::coupons::{HistoryEvent, stream_history};
use crate::queries::history::{TemplateHistory, history};
use crate::queries::templates::created_at;

#[derive(Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(deny_unknown_fields)]
pub struct HistoryQuery {
    /// `minute`, `hour` (default) or `day`, cut in the business time zone.
    #[param(value_type = Option<crate::api::http::schemas::BucketName>, inline)]
    pub bucket: Option<String>,
    /// RFC 3339, rounded down to the start of its bucket. Default: the
    /// template's creation, or the newest 1,500 buckets when that is longer ago.
    #[param(value_type = Option<crate::api::http::schemas::Instant>, inline)]
    pub from: Option<String>,
    /// RFC 3339, exclusive. Default: now.
    #[param(value_type = Option<crate::api::http::schemas::Instant>, inline)]
    pub to: Option<String>,
}

/// A template's coupons over time: per bucket, how many were issued and
/// what has become of those (unused, locked, used, refunded, expired,
/// void, as they stand now). At most 1,500 buckets an answer: a chart is
/// no wider than that, and the bound keeps the answer and its query small.
#[utoipa::path(get, path = "/v1/templates/{sn}/history", operation_id = "template_history",
    tag = "templates",
    params(SN, HistoryQuery), security(("admin" = [])),
    responses(
        (status = 200, body = TemplateHistory, description = "Every bucket of the range, oldest first, zeros included"),
        (status = 400, body = ErrorBody, description = "`bucket`, `from` or `to` is not one, `from` is not before `to`, or the range holds more than 1,500 buckets"),
        (status = 401, body = ErrorBody, description = "No bearer token, or not a known one"),
        (status = 403, body = ErrorBody, description = "A token that is not the admin's"),
        (status = 404, body = ErrorBody, description = "`template <sn> not found`")))]
pub async fn template_history(
    State(state): State<AppState>,
    _: Principal,
    ApiPath(sn): ApiPath<TemplateSn>,
    ApiQuery(q): ApiQuery<HistoryQuery>,
) -> Result<Json<TemplateHistory>, ApiError> {
    let bucket = q.bucket.as_deref().map_or(Ok(Bucket::Hour), Bucket::parse);
    let bucket = bucket.map_err(|e| ApiError::invalid_field(format!("bucket: {e}")))?;
    let from = q.from.as_deref().map(|s| instant("from", s)).transpose()?;
    let to = q.to.as_deref().map(|s| instant("to", s)).transpose()?;
    let client = state.pool.get().await?;
    let created = created_at(&**client, &sn)
        .await?
        .ok_or_else(|| not_found(sn.as_str()))?;
    let to = to.unwrap_or_else(|| state.now());
    let range = buckets(bucket, state.tz, from, created, to);
    let range = range.map_err(|e| ApiError::invalid_field(e.to_string()))?;
    Ok(Json(history(&**client, &sn, &range, state.tz).await?))
}

/// A template's changes, oldest first (at most 1,000): created, activated,
/// stopped, updated, its quota raised, a channel allowed; each event's
/// metadata names the operator who made it.
#[utoipa::path(get, path = "/v1/templates/{sn}/events", operation_id = "template_events",
    tag = "templates",
    params(SN), security(("admin" = [])),
    responses(
        (status = 200, body = Vec<HistoryEvent>, description = "The template's events, oldest first"),
        (status = 401, body = ErrorBody, description = "No bearer token, or not a known one"),
        (status = 403, body = ErrorBody, description = "A token that is not the admin's"),
        (status = 404, body = ErrorBody, description = "`template <sn> not found`")))]
pub async fn template_events(
    State(state): State<AppState>,
    _: Principal,
    ApiPath(sn): ApiPath<TemplateSn>,
) -> Result<Json<Vec<HistoryEvent>>, ApiError> {
    let client = state.pool.get().await?;
    created_at(&**client, &sn)
        .await?
        .ok_or_else(|| not_found(sn.as_str()))?;
    let stream = StreamKind::Template.id(sn.as_str());
    Ok(Json(stream_history(&**client, &stream).await?))
}

/// An RFC 3339 instant as stored (to the microsecond, no leap second).
fn instant(field: &str, s: &str) -> Result<DateTime<Utc>, ApiError> {
    DateTime::parse_from_rfc3339(s.trim())
        .ok()
        .and_then(|t| storable_instant(t.to_utc()))
        .ok_or_else(|| {
            ApiError::invalid_field(format!(
                "{field}: {:?} is not an RFC 3339 instant (2026-11-11T16:00:00Z) \
                 without a leap second",
                shown(s)
            ))
        })
}

/// What the caller sent, cut short: an error names it without echoing 10 KB.
fn shown(s: &str) -> &str {
    let end = s.char_indices().nth(64).map_or(s.len(), |(i, _)| i);
    &s[..end]
}
