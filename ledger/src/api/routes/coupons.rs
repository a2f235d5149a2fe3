//! `/v1/coupons/{id}` and its history, `/v1/users/{uid}/coupons` (the
//! wallet, each coupon with its terms), and the
//! admin void of an unused coupon.

use axum::Json;
use axum::extract::State;
use axum::http::StatusCode;
use axum::response::Response;
use serde::Deserialize;
use utoipa::IntoParams;
use uuid::Uuid;

use crate::api::AppState;
use crate::api::auth::principal::Principal;
use crate::api::http::context::Ctx;
use crate::api::http::error::{ApiError, ErrorBody};
use crate::api::http::extract::ApiQuery;
use crate::api::http::path_param::ApiPath;
use crate::commands::coupons as commands;
use crate::domain::coupon_state::CouponStatus;
use crate::domain::ids::{CouponId, UserId};
use crate::domain::names;
use crate::exactly_once::idempotency::request_hash;
use crate::queries::coupons::{self, CouponView, HistoryEvent, MAX_PAGE, Shelves};
use crate::queries::page::Bounds;
use crate::queries::wallet::{self, WalletPage};

/// Whose coupon is asked for: another user's coupon answers 404, the same as
/// a missing one, so ids cannot be probed.
#[derive(Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(deny_unknown_fields)]
pub struct Owner {
    pub user_id: Option<String>,
}

/// The coupon's id, in the path: how the OpenAPI document names what
/// `ApiPath<CouponId>` parses.
#[derive(IntoParams)]
#[into_params(parameter_in = Path)]
pub struct CouponIdPath {
    pub id: Uuid,
}

/// The user's id, in the path: how the OpenAPI document names what
/// `ApiPath<UserId>` parses.
#[derive(IntoParams)]
#[into_params(parameter_in = Path)]
pub struct UserPath {
    pub uid: String,
}

fn not_found(id: impl std::fmt::Display) -> ApiError {
    ApiError::not_found("coupon", id)
}

async fn visible(state: &AppState, id: Uuid, owner: &Owner) -> Result<CouponView, ApiError> {
    let client = state.pool.get().await?;
    let coupon = coupons::coupon(&**client, id)
        .await?
        .ok_or_else(|| not_found(id))?;
    match &owner.user_id {
        Some(user) if user != coupon.user_id.as_str() => Err(not_found(id)),
        _ => Ok(coupon),
    }
}

/// A coupon.
#[utoipa::path(get, path = "/v1/coupons/{id}", operation_id = "read_coupon",
    tag = "coupons", params(CouponIdPath, Owner),
    security(("service" = []), ("admin" = [])),
    responses((status = 200, body = CouponView), (status = 404, body = ErrorBody)))]
pub async fn read(
    State(state): State<AppState>,
    _: Principal,
    ApiPath(CouponId(id)): ApiPath<CouponId>,
    ApiQuery(owner): ApiQuery<Owner>,
) -> Result<Json<CouponView>, ApiError> {
    Ok(Json(visible(&state, id, &owner).await?))
}

/// A coupon's full history, in order.
#[utoipa::path(get, path = "/v1/coupons/{id}/events", operation_id = "coupon_events",
    tag = "coupons", params(CouponIdPath, Owner),
    security(("service" = []), ("admin" = [])),
    responses((status = 200, body = Vec<HistoryEvent>), (status = 404, body = ErrorBody)))]
pub async fn events(
    State(state): State<AppState>,
    _: Principal,
    ApiPath(CouponId(id)): ApiPath<CouponId>,
    ApiQuery(owner): ApiQuery<Owner>,
) -> Result<Json<Vec<HistoryEvent>>, ApiError> {
    let client = state.pool.get().await?;
    let history = coupons::history(&**client, id).await?;
    // The events outlive a purged row (docs/design.md §16): the owner is
    // the one its first event (the issue) names.
    let owner_of = |e: &HistoryEvent| e.payload["user_id"].as_str().map(str::to_owned);
    match (history.first().and_then(owner_of), &owner.user_id) {
        (None, _) => Err(not_found(id)),
        (Some(holder), Some(user)) if holder != *user => Err(not_found(id)),
        _ => Ok(Json(history)),
    }
}

/// Void an unused coupon (admin).
#[utoipa::path(post, path = "/v1/coupons/{id}/void", operation_id = "void_coupon",
    tag = "coupons", params(CouponIdPath),
    security(("admin" = [])),
    responses((status = 200, body = CouponView), (status = 404, body = ErrorBody), (status = 409, body = ErrorBody)))]
pub async fn void(
    State(state): State<AppState>,
    _: Principal,
    ctx: Ctx,
    ApiPath(CouponId(id)): ApiPath<CouponId>,
) -> Result<Response, ApiError> {
    let hash = request_hash(&[id.as_bytes(), b"void"]);
    let (metadata, now) = (ctx.principal_metadata(), state.now());
    ctx.write(&state, "admin", &hash, StatusCode::OK, |tx| {
        Box::pin(async move {
            commands::void(tx, id, &metadata, now).await?;
            coupons::coupon(&**tx, id)
                .await?
                .ok_or_else(|| not_found(id))
        })
    })
    .await
}

#[derive(Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(deny_unknown_fields)]
pub struct PageQuery {
    /// `unused`, `locked`, `used`, `refunded`, `expired`, `void`
    pub status: Option<String>,
    pub offset: Option<i64>,
    /// 1 to 200, default 50.
    pub limit: Option<i64>,
    /// Also the coupons that ended long ago and were archived
    /// (`LEDGER_ARCHIVE_AFTER_DAYS`); default false.
    pub include_archived: Option<bool>,
}

/// A user's wallet: their coupons, paged, oldest first, with the total
/// count; each coupon embeds its template's public `terms`.
#[utoipa::path(get, path = "/v1/users/{uid}/coupons", operation_id = "user_coupons",
    tag = "coupons", params(UserPath, PageQuery),
    security(("service" = []), ("admin" = [])),
    responses((status = 200, body = WalletPage), (status = 400, body = ErrorBody)))]
pub async fn of_user(
    State(state): State<AppState>,
    _: Principal,
    ApiPath(user): ApiPath<UserId>,
    ApiQuery(q): ApiQuery<PageQuery>,
) -> Result<Json<WalletPage>, ApiError> {
    let bad = |m: &str| ApiError::BadRequest {
        code: "invalid_field",
        message: m.to_owned(),
    };
    let status = q
        .status
        .as_deref()
        .map(|s| names::parse_field::<CouponStatus>("status", s).map_err(|m| bad(&m)))
        .transpose()?;
    let bounds = Bounds {
        offset: q.offset.unwrap_or(0),
        limit: q.limit.unwrap_or(50),
    };
    if bounds.offset < 0 || !(1..=MAX_PAGE).contains(&bounds.limit) {
        return Err(bad("offset must be >= 0 and limit 1 to 200"));
    }
    // Lag-tolerant: a replica that keeps up (docs/design.md §17).
    let client = state.reads.pick().get().await?;
    let shelves = match q.include_archived {
        Some(true) => Shelves::HotAndCold,
        _ => Shelves::Hot,
    };
    let page = wallet::of_user(&**client, user.as_str(), status, shelves, bounds).await?;
    Ok(Json(page.into()))
}
