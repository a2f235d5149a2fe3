//! `/v1/orders`: quote, lock (Try), confirm, cancel, refunds (docs/design.md
//! §6–§7), and an order's record (§20).

use axum::Json;
use axum::extract::State;
use axum::http::StatusCode;
use axum::response::Response;
use chrono::Duration;
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};
use uuid::Uuid;

use crate::api::AppState;
use crate::api::auth::principal::Principal;
use crate::api::http::context::Ctx;
use crate::api::http::error::{ApiError, ErrorBody};
use crate::api::http::extract::ApiJson;
use crate::api::http::path_param::ApiPath;
use crate::commands::coupons::MAX_COUPONS_PER_ORDER;
use crate::commands::orders::{self, DEFAULT_LOCK_TTL, LockAnswer, LockRequest, OrderAnswer};
use crate::commands::refunds::{self, MAX_REFUND_LINES, RefundAnswer, RefundRequest};
use crate::domain::ids::{OrderId, UserId};
use crate::domain::money::Money;
use crate::domain::order::{Order, RawOrder};
use crate::domain::quote::{Quote, quote as quote_order};
use crate::domain::refund::RefundLine;
use crate::exactly_once::idempotency::request_hash;
use crate::queries::coupons as queries;
use crate::queries::order_record::{self, OrderRecord};
use crate::queries::template_budget;

/// An order's id, and a refund's, in a body: as long as an order's id in
/// the path.
const MAX_LOCK_TTL_SECS: i64 = 24 * 3600;

fn parse_order(raw: &RawOrder) -> Result<Order, ApiError> {
    if OrderId::parse(&raw.order_id).is_none() {
        return Err(ApiError::bad_request(
            "order.order_id: must be 1 to 128 visible ASCII characters",
        ));
    }
    Order::parse(raw).map_err(|e| e.within("order").into())
}

fn bad(message: &str) -> ApiError {
    ApiError::BadRequest {
        code: "invalid_field",
        message: message.to_owned(),
    }
}

#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct QuoteRequest {
    /// 1 to 64 visible ASCII characters, or an integer 0 to 2^63−1 (the
    /// same user as its decimal text).
    pub user_id: UserId,
    pub order: RawOrder,
}

/// A quote: each of the user's unused coupons alone, and the best combination.
#[derive(Serialize, ToSchema)]
pub struct QuoteAnswer {
    /// The coupons that could apply, one per template (the one the search
    /// uses: of a template's copies, the one expiring first), each alone;
    /// when truncated, the highest single discounts searched.
    pub coupons: Vec<CouponQuoteView>,
    pub best: BestView,
    /// More of the user's templates could apply than one quote searches
    /// (200): the highest single discounts were searched.
    pub truncated: bool,
}

/// One coupon alone: its discount, or why it does not apply.
#[derive(Serialize, ToSchema)]
pub struct CouponQuoteView {
    pub coupon_id: Uuid,
    pub usable: bool,
    /// `0.00` when not usable.
    pub discount: Money,
    /// Set when not usable: `currency_mismatch`, `not_yet_effective`,
    /// `expired`, `out_of_scope`, `no_line_in_scope`, `below_threshold`,
    /// `nothing_to_discount`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason_message: Option<String>,
}

/// The combination that leaves the least to pay.
#[derive(Serialize, ToSchema)]
pub struct BestView {
    pub coupon_ids: Vec<Uuid>,
    pub discount: Money,
    pub payable: Money,
}

impl From<Quote<Uuid>> for QuoteAnswer {
    fn from(q: Quote<Uuid>) -> Self {
        let coupons = q
            .coupons
            .into_iter()
            .map(|c| CouponQuoteView {
                coupon_id: c.coupon_id,
                usable: c.usable,
                discount: c.discount,
                reason: c.reason.as_ref().map(|r| r.code().to_owned()),
                reason_message: c.reason.as_ref().map(ToString::to_string),
            })
            .collect();
        let best = BestView {
            coupon_ids: q.best.coupon_ids,
            discount: q.best.discount,
            payable: q.best.payable,
        };
        Self {
            coupons,
            best,
            truncated: q.truncated,
        }
    }
}

/// The user's usable coupons for the order, each discount, and the best combination.
#[utoipa::path(post, path = "/v1/orders/quote", operation_id = "quote_order",
    tag = "orders", request_body = QuoteRequest,
    security(("service" = [])), responses((status = 200, body = QuoteAnswer)))]
pub async fn quote(
    State(state): State<AppState>,
    _: Principal,
    body: ApiJson<QuoteRequest>,
) -> Result<axum::Json<QuoteAnswer>, ApiError> {
    let QuoteRequest { user_id, order } = body.value;
    let order = parse_order(&order)?;
    if order.user_id() != user_id.as_str() {
        return Err(bad("user_id: must be the order's user_id"));
    }
    let client = state.pool.get().await?;
    let now = state.now();
    let (candidates, more) = queries::candidates_for(&**client, &user_id, &order, now).await?;
    let mut sns: Vec<&str> = candidates.iter().map(|c| c.template_sn.as_str()).collect();
    sns.sort_unstable();
    sns.dedup();
    let budgets = template_budget::left_of(&**client, &sns, state.today()).await?;
    let q = quote_order(&order, &candidates, now, more, &budgets);
    Ok(axum::Json(q.into()))
}

#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct LockBody {
    pub order: RawOrder,
    #[schema(schema_with = crate::api::http::schemas::coupon_ids)]
    pub coupon_ids: Vec<Uuid>,
    /// What the client computed; the lock is refused (422) when it differs.
    #[schema(value_type = Money)]
    pub expected_payable: String,
    /// Lock timeout in seconds, 1 to 86,400; default 1800.
    #[schema(schema_with = crate::api::http::schemas::range_or_null::<1, MAX_LOCK_TTL_SECS>)]
    pub lock_ttl_seconds: Option<i64>,
}

/// Try: lock every listed coupon for the order, or none. The lock reserves
/// each coupon's discount against its template's budget, if it has one: a
/// budget with less left (in all, or on the business day) refuses the lock,
/// 409 `budget_exhausted`; a cancel or the lock's timeout gives it back.
#[utoipa::path(post, path = "/v1/orders/lock", operation_id = "lock_order",
    tag = "orders", request_body = LockBody,
    security(("service" = [])),
    responses((status = 200, body = LockAnswer), (status = 404, body = ErrorBody),
        (status = 409, body = ErrorBody), (status = 422, body = ErrorBody)))]
pub async fn lock(
    State(state): State<AppState>,
    _: Principal,
    ctx: Ctx,
    body: ApiJson<LockBody>,
) -> Result<Response, ApiError> {
    let input = body.value;
    let order = parse_order(&input.order)?;
    validate_coupon_ids(&input.coupon_ids)?;
    let expected_payable = Money::parse(&input.expected_payable)
        .map_err(|e| bad(&format!("expected_payable: {e}")))?;
    let ttl = input.lock_ttl_seconds.map_or(Ok(DEFAULT_LOCK_TTL), |s| {
        (1..=MAX_LOCK_TTL_SECS)
            .contains(&s)
            .then(|| Duration::seconds(s))
            .ok_or_else(|| bad("lock_ttl_seconds: must be 1 to 86400"))
    })?;
    let (metadata, now, tz) = (ctx.principal_metadata(), state.now(), state.tz);
    ctx.write(&state, "service", &body.hash, StatusCode::OK, |tx| {
        Box::pin(async move {
            let req = LockRequest {
                order: &order,
                coupon_ids: &input.coupon_ids,
                expected_payable,
                request_hash: body.hash,
                lock_ttl: ttl,
                now,
                tz,
            };
            Ok(orders::lock(tx, &req, &metadata).await?)
        })
    })
    .await
}

fn validate_coupon_ids(ids: &[Uuid]) -> Result<(), ApiError> {
    if ids.is_empty() || ids.len() > MAX_COUPONS_PER_ORDER {
        return Err(bad("coupon_ids: must list 1 to 20 coupons"));
    }
    let mut sorted = ids.to_vec();
    sorted.sort();
    sorted.dedup();
    if sorted.len() != ids.len() {
        return Err(bad("coupon_ids: a coupon is listed twice"));
    }
    Ok(())
}

async fn settle(
    state: AppState,
    ctx: Ctx,
    order_id: OrderId,
    confirm: bool,
) -> Result<Response, ApiError> {
    let what: &[u8] = if confirm { b"confirm" } else { b"cancel" };
    let hash = request_hash(&[order_id.as_str().as_bytes(), what]);
    let (metadata, now) = (ctx.principal_metadata(), state.now());
    ctx.write(&state, "service", &hash, StatusCode::OK, |tx| {
        Box::pin(async move {
            let answer = if confirm {
                orders::confirm(tx, order_id.as_str(), &metadata, now).await?
            } else {
                orders::cancel(tx, order_id.as_str(), &metadata, now).await?
            };
            Ok(answer)
        })
    })
    .await
}

/// The order's id, in the path: how the OpenAPI document names what
/// `ApiPath<OrderId>` parses.
#[derive(IntoParams)]
#[into_params(parameter_in = Path)]
pub struct OrderIdPath {
    #[param(value_type = OrderId)]
    /// The caller's order id (1 to 128 visible ASCII characters).
    pub order_id: String,
}

/// An order's record: status, when it was locked and settled, the order as
/// locked, each coupon with its share of each line, the payable, and every
/// refund as answered; coupons archived since are found too.
#[utoipa::path(get, path = "/v1/orders/{order_id}", operation_id = "read_order",
    tag = "orders", params(OrderIdPath),
    security(("service" = []), ("admin" = [])),
    responses((status = 200, body = OrderRecord), (status = 404, body = ErrorBody)))]
pub async fn read(
    State(state): State<AppState>,
    _: Principal,
    ApiPath(order_id): ApiPath<OrderId>,
) -> Result<Json<OrderRecord>, ApiError> {
    // The primary: the order system reads right after it writes.
    let client = state.pool.get().await?;
    let record = order_record::read(&**client, order_id.as_str()).await?;
    Ok(Json(
        record.ok_or_else(|| ApiError::not_found("order", order_id))?,
    ))
}

/// Confirm: the locked coupons are used. Idempotent.
#[utoipa::path(post, path = "/v1/orders/{order_id}/confirm", operation_id = "confirm_order",
    tag = "orders", params(OrderIdPath),
    security(("service" = [])),
    responses((status = 200, body = OrderAnswer), (status = 404, body = ErrorBody),
        (status = 409, body = ErrorBody)))]
pub async fn confirm(
    State(s): State<AppState>,
    _: Principal,
    ctx: Ctx,
    ApiPath(order_id): ApiPath<OrderId>,
) -> Result<Response, ApiError> {
    settle(s, ctx, order_id, true).await
}

/// Cancel: the locked coupons are released. Idempotent; a cancel before the
/// lock is recorded and the late lock refused.
#[utoipa::path(post, path = "/v1/orders/{order_id}/cancel", operation_id = "cancel_order",
    tag = "orders", params(OrderIdPath),
    security(("service" = [])),
    responses((status = 200, body = OrderAnswer), (status = 404, body = ErrorBody),
        (status = 409, body = ErrorBody)))]
pub async fn cancel(
    State(s): State<AppState>,
    _: Principal,
    ctx: Ctx,
    ApiPath(order_id): ApiPath<OrderId>,
) -> Result<Response, ApiError> {
    settle(s, ctx, order_id, false).await
}

#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct RefundBody {
    #[schema(value_type = OrderId)]
    pub refund_id: String,
    pub lines: Vec<RefundLine>,
}

/// Refund units of a confirmed order's lines, partly or fully.
#[utoipa::path(post, path = "/v1/orders/{order_id}/refunds", operation_id = "refund_order",
    tag = "orders", request_body = RefundBody,
    params(OrderIdPath), security(("service" = [])),
    responses((status = 200, body = RefundAnswer), (status = 404, body = ErrorBody),
        (status = 409, body = ErrorBody), (status = 422, body = ErrorBody)))]
pub async fn refunds(
    State(state): State<AppState>,
    _: Principal,
    ctx: Ctx,
    ApiPath(order_id): ApiPath<OrderId>,
    body: ApiJson<RefundBody>,
) -> Result<Response, ApiError> {
    let input = body.value;
    if OrderId::parse(&input.refund_id).is_none() {
        return Err(bad("refund_id: must be 1 to 128 visible ASCII characters"));
    }
    if input.lines.len() > MAX_REFUND_LINES {
        return Err(bad("lines: at most 500"));
    }
    let (metadata, now, tz) = (ctx.principal_metadata(), state.now(), state.tz);
    ctx.write(&state, "service", &body.hash, StatusCode::OK, |tx| {
        Box::pin(async move {
            let req = RefundRequest {
                order_id: order_id.as_str(),
                refund_id: &input.refund_id,
                lines: &input.lines,
                request_hash: body.hash,
                now,
                tz,
            };
            Ok(refunds::refund(tx, &req, &metadata).await?)
        })
    })
    .await
}
