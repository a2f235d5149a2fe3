//! `/v1/coupons/{id}` and its history, `/v1/users/{uid}/coupons` (the
//! wallet, each coupon with its terms), and the
//! admin void of an unused coupon.

use axum::Json;
use axum::extract::State;
use axum::http::StatusCode;
use axum::response::Response;
use chrono::{DateTime, Utc};
use serde::Deserialize;
use utoipa::IntoParams;
use uuid::Uuid;

use crate::api::AppState;
use crate::api::auth::principal::Principal;
use crate::api::http::context::Ctx;
use crate::api::http::error::{ApiError, ErrorBody};
use crate::api::http::extract::{self, ApiQuery};
use crate::api::http::path_param::ApiPath;
use crate::commands::coupons as commands;
use crate::domain::coupon_state::CouponStatus;
use crate::domain::ids::{CouponId, UserId};
use crate::domain::names;
use crate::domain::wallet_order::{self, SortOrder, WalletCursor, WalletSort};
use crate::exactly_once::idempotency::request_hash;
use crate::queries::coupons::{self, CouponView, HistoryEvent, Shelves};
use crate::queries::page::Bounds;
use crate::queries::wallet::{self, MAX_PAGE, WalletFilter, WalletPage, WalletPaging};

/// Whose coupon is asked for: another user's coupon answers 404, the same as
/// a missing one, so ids cannot be probed.
#[derive(Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(deny_unknown_fields)]
pub struct Owner {
    /// The user the app asks for: another user's coupon answers 404, the
    /// same as a missing one. Absent: any user's.
    #[param(value_type = Option<UserId>)]
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
    #[param(value_type = crate::domain::ids::UserId)]
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
    #[param(value_type = Option<CouponStatus>)]
    pub status: Option<String>,
    /// Only coupons usable at this instant (RFC 3339): unused, effective
    /// and not yet expired.
    #[param(value_type = Option<crate::api::http::schemas::Instant>, inline)]
    pub usable_at: Option<String>,
    /// Only unused coupons expiring from now to this many days ahead (1 to 366).
    #[param(value_type = Option<crate::api::http::schemas::WithinDays>, inline)]
    pub expiring_within_days: Option<i64>,
    /// `issued_at` (default), `expires_at` or `face_value`; ties by coupon id.
    #[param(value_type = Option<crate::api::http::schemas::WalletSortName>, inline)]
    pub sort: Option<String>,
    /// `asc` (default) or `desc`.
    #[param(value_type = Option<crate::api::http::schemas::SortOrderName>, inline)]
    pub order: Option<String>,
    /// The previous page's `next_after`: the page after it, however the
    /// wallet changed meanwhile (keyset paging). Not with `offset`.
    pub after: Option<String>,
    /// Older paging: how many matching coupons to skip. Not with `after`.
    #[param(value_type = Option<crate::api::http::schemas::Offset>, inline)]
    pub offset: Option<i64>,
    /// 1 to 200, default 50.
    #[param(value_type = Option<crate::api::http::schemas::WalletPageLimit>, inline)]
    pub limit: Option<i64>,
    /// Also the coupons that ended long ago and were archived
    /// (`LEDGER_ARCHIVE_AFTER_DAYS`); default false.
    pub include_archived: Option<bool>,
}

impl PageQuery {
    /// The filters and the page, each field checked (a 400 names it).
    fn parse<'a>(
        &self,
        user: &'a UserId,
        now: DateTime<Utc>,
    ) -> Result<(WalletFilter<'a>, WalletPaging), ApiError> {
        let invalid = ApiError::invalid_field;
        let status = self
            .status
            .as_deref()
            .map(|s| names::parse_field::<CouponStatus>("status", s))
            .transpose()
            .map_err(invalid)?;
        let usable_at = self
            .usable_at
            .as_deref()
            .map(|s| {
                DateTime::parse_from_rfc3339(s)
                    .map(|t| t.with_timezone(&Utc))
                    .map_err(|_| {
                        ApiError::invalid_field(
                            "usable_at: an RFC 3339 instant, e.g. 2026-11-11T00:00:00Z",
                        )
                    })
            })
            .transpose()?;
        let expiring_within_days = self
            .expiring_within_days
            .map(wallet_order::within_days)
            .transpose()
            .map_err(invalid)?;
        let filter = WalletFilter {
            user_id: user.as_str(),
            status,
            usable_at,
            expiring_within_days,
            shelves: match self.include_archived {
                Some(true) => Shelves::HotAndCold,
                _ => Shelves::Hot,
            },
            now,
        };
        Ok((filter, self.paging()?))
    }

    fn paging(&self) -> Result<WalletPaging, ApiError> {
        let invalid = ApiError::invalid_field;
        let sort = match self.sort.as_deref() {
            Some(s) => names::parse_field::<WalletSort>("sort", s).map_err(invalid)?,
            None => WalletSort::IssuedAt,
        };
        let order = match self.order.as_deref() {
            Some(s) => names::parse_field::<SortOrder>("order", s).map_err(invalid)?,
            None => SortOrder::Asc,
        };
        let after = self
            .after
            .as_deref()
            .map(|a| WalletCursor::parse(a, sort))
            .transpose()
            .map_err(invalid)?;
        if after.is_some() && self.offset.is_some_and(|o| o != 0) {
            return Err(ApiError::invalid_field(
                "offset: not with after (the cursor says where the page starts)",
            ));
        }
        let Bounds { offset, limit } = extract::page_bounds(self.offset, self.limit, MAX_PAGE)?;
        Ok(WalletPaging {
            sort,
            order,
            after,
            offset,
            limit,
        })
    }
}

/// A user's wallet: their coupons, filtered and sorted as asked (oldest
/// first by default), keyset-paged by `after`/`next_after`, with the
/// count of all that match; each coupon embeds its template's public `terms`.
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
    let (filter, paging) = q.parse(&user, state.now())?;
    // Lag-tolerant: a replica that keeps up (docs/design.md §17).
    let client = state.reads.pick().get().await?;
    Ok(Json(wallet::page(&**client, &filter, &paging).await?))
}
