//! `POST /v1/redemptions {code, user_id}` (DESIGN §13): a user redeems a
//! code for its template's coupon.
//!
//! The code is checked before any database read: its check character,
//! then its tag under each configured key (a forged or mistyped code is
//! refused there). Its serial then names its batch. Unknown and forged
//! codes get the same 404. Failed attempts are counted per user and per
//! client address (`guess_limit`): past the limit, 429 until the window
//! ends. A Redis bitmap per batch answers repeats of used-up codes (410)
//! without Postgres; Postgres decides everything else, and everything when
//! Redis is down.

use std::net::{IpAddr, SocketAddr};
use std::sync::Arc;
use std::sync::atomic::{AtomicI32, Ordering};
use std::time::Instant;

use axum::extract::{ConnectInfo, State};
use axum::http::{Extensions, HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;
use uuid::Uuid;

use super::AppState;
use super::auth::Service;
use super::context::Ctx;
use super::error::{ApiError, ErrorBody};
use super::extract::ApiJson;
use crate::codes::Code;
use crate::commands::code_batches::{self, Batch};
use crate::commands::redeem::{self, RedeemRequest};
use crate::domain::ids::UserId;
use crate::queries::coupons::CouponView;

#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct Redeem {
    /// The code as the user typed it: case, spaces and dashes do not matter.
    pub code: String,
    #[schema(value_type = String)]
    pub user_id: UserId,
}

#[derive(Serialize, ToSchema)]
pub struct Redemption {
    pub batch_id: Uuid,
    pub serial: i64,
    /// The code's uses after this one.
    pub uses: i32,
    pub uses_left: i32,
    /// The template's coupon, or the package's coupons.
    pub coupons: Vec<CouponView>,
}

/// Redeem a code for its template's coupon or its package's coupons (service token; the caller may
/// pass the end user's address as `X-Forwarded-For`).
#[utoipa::path(post, path = "/v1/redemptions", tag = "codes", request_body = Redeem,
    security(("service" = [])),
    responses((status = 201, body = Redemption), (status = 400, body = ErrorBody),
        (status = 404, body = ErrorBody, description = "unknown or forged code (the same answer)"),
        (status = 409, body = ErrorBody, description = "already redeemed by this user, or the template's per-user limit"),
        (status = 410, body = ErrorBody, description = "the code is used up, or the template sold out"),
        (status = 422, body = ErrorBody, description = "the batch is stopped or expired, or the template does not issue now"),
        (status = 429, body = ErrorBody, description = "too many failed attempts by this user or address; see Retry-After")))]
pub async fn redeem(
    State(state): State<AppState>,
    _: Service,
    ctx: Ctx,
    extensions: Extensions,
    headers: HeaderMap,
    body: ApiJson<Redeem>,
) -> Result<Response, ApiError> {
    let peer = extensions
        .get::<ConnectInfo<SocketAddr>>()
        .map(|p| p.0.ip());
    let address = client_address(&headers, peer);
    let user = body.value.user_id.clone();
    let limit = &state.guess_limit;
    if let Err(limited) = limit.check(user.as_str(), address, Instant::now()) {
        return Ok(limited.into_response());
    }
    let Some((batch, serial)) = find(&state, &body.value.code).await? else {
        limit.failed(user.as_str(), address, Instant::now());
        return Err(unknown());
    };
    if used_up_in_redis(&state, &batch, serial).await {
        return Err(ApiError::SoldOut("the code is used up".into()));
    }
    let uses = Arc::new(AtomicI32::new(0));
    let answer = write(&state, &ctx, &body.hash, &batch, serial, user, uses.clone()).await?;
    if answer.status() == StatusCode::CREATED && uses.load(Ordering::Relaxed) >= batch.uses_per_code
    {
        mark_used_up(&state, &batch, serial).await;
    }
    Ok(answer)
}

fn unknown() -> ApiError {
    ApiError::NotFound("no such code".into())
}

/// The end user's address: the first `X-Forwarded-For` entry the service
/// passed, else the connection's peer.
fn client_address(headers: &HeaderMap, peer: Option<IpAddr>) -> Option<IpAddr> {
    let forwarded = headers
        .get("x-forwarded-for")
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.split(',').next())
        .and_then(|v| v.trim().parse().ok());
    forwarded.or(peer)
}

/// The batch and serial of `text`, if it is a code of a batch: the check
/// character and the tag first (no I/O), then the batch by the serial.
async fn find(state: &AppState, text: &str) -> Result<Option<(Batch, i64)>, ApiError> {
    let Ok(code) = Code::parse(text) else {
        return Ok(None);
    };
    let keys = state.secrets.keys();
    let candidates: Vec<(String, i64)> = keys
        .code_keys()
        .filter_map(|k| Some((k.id().to_owned(), i64::try_from(k.decode(&code)?).ok()?)))
        .collect();
    if candidates.is_empty() {
        return Ok(None);
    }
    let client = state.pool.get().await?;
    for (key_id, serial) in candidates {
        if let Some(batch) = code_batches::holding(&**client, &key_id, serial).await? {
            return Ok(Some((batch, serial)));
        }
    }
    Ok(None)
}

#[allow(clippy::too_many_arguments)]
async fn write(
    state: &AppState,
    ctx: &Ctx,
    hash: &[u8; 32],
    batch: &Batch,
    serial: i64,
    user: UserId,
    uses: Arc<AtomicI32>,
) -> Result<Response, ApiError> {
    let (metadata, now, tz) = (ctx.metadata("service"), state.now(), state.tz);
    let batch = batch.clone();
    ctx.write(state, "service", hash, StatusCode::CREATED, |tx| {
        Box::pin(async move {
            let req = RedeemRequest {
                batch: &batch,
                serial,
                user_id: &user,
                now,
                tz,
            };
            let done = redeem::redeem(tx, &req, &metadata).await?;
            uses.store(done.uses, Ordering::Relaxed);
            Ok(Redemption {
                batch_id: batch.id,
                serial,
                uses: done.uses,
                uses_left: batch.uses_per_code - done.uses,
                coupons: done.coupons.iter().map(CouponView::issued).collect(),
            })
        })
    })
    .await
}

/// The batch's bitmap of used-up codes (bit: serial − first serial).
fn bitmap_key(state: &AppState, batch: &Batch) -> String {
    state
        .redis
        .key(&["codes", &batch.id.to_string(), "used-up"])
}

async fn used_up_in_redis(state: &AppState, batch: &Batch, serial: i64) -> bool {
    let Some(mut conn) = state.redis.connection().await else {
        return false;
    };
    let offset = usize::try_from(serial - batch.first_serial).unwrap_or(0);
    let bit: Result<bool, _> = redis::cmd("GETBIT")
        .arg(bitmap_key(state, batch))
        .arg(offset)
        .query_async(&mut conn)
        .await;
    bit.unwrap_or(false)
}

/// Marks the code used up, once Postgres has committed its last use.
async fn mark_used_up(state: &AppState, batch: &Batch, serial: i64) {
    let Some(mut conn) = state.redis.connection().await else {
        return;
    };
    let offset = usize::try_from(serial - batch.first_serial).unwrap_or(0);
    let set: Result<i64, _> = redis::cmd("SETBIT")
        .arg(bitmap_key(state, batch))
        .arg(offset)
        .arg(1)
        .query_async(&mut conn)
        .await;
    if let Err(e) = set {
        tracing::debug!(error = %e, "used-up bit not set (Postgres still refuses the code)");
    }
}
