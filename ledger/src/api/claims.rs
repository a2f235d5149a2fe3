//! `POST /v1/claims`: a channel claims one coupon for a user (signed request).

use std::net::{IpAddr, SocketAddr};
use std::time::Instant;

use axum::extract::{ConnectInfo, Request, State};
use axum::http::StatusCode;
use axum::http::request::Parts;
use axum::response::{IntoResponse, Response};
use serde::Deserialize;
use utoipa::ToSchema;
use uuid::Uuid;

use super::AppState;
use super::context::Ctx;
use super::error::{ApiError, ErrorBody};
use super::extract::{parse_json, read_body, require_json};
use super::signature::SignedHeaders;
use crate::commands::channels;
use crate::commands::claim::{self, ClaimRequest};
use crate::domain::ids::{TemplateSn, UserId};
use crate::idempotency::request_hash;
use crate::queries::coupons::CouponView;

#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct Claim {
    pub template_sn: String,
    /// 1 to 64 visible ASCII characters, or an integer 0 to 2^63−1 (the
    /// same user as its decimal text).
    #[schema(value_type = String)]
    pub user_id: UserId,
}

/// Claim one coupon. Signed by the channel: `X-Channel-Id`, `X-Timestamp`,
/// `X-Nonce`, `X-Signature` (DESIGN §6).
#[utoipa::path(post, path = "/v1/claims", tag = "claims", request_body = Claim,
    params(("X-Channel-Id" = Uuid, Header), ("X-Timestamp" = i64, Header),
           ("X-Nonce" = String, Header), ("X-Signature" = String, Header)),
    responses((status = 201, body = CouponView), (status = 401, body = ErrorBody),
        (status = 403, body = ErrorBody), (status = 404, body = ErrorBody),
        (status = 409, body = ErrorBody), (status = 410, body = ErrorBody),
        (status = 422, body = ErrorBody), (status = 429, body = ErrorBody,
            description = "too many bad signatures; see Retry-After")))]
pub async fn claim(
    State(state): State<AppState>,
    ctx: Ctx,
    request: Request,
) -> Result<Response, ApiError> {
    let (parts, body) = request.into_parts();
    let (claimed_channel, peer) = limit_keys(&parts);
    if let Err(limited) = state
        .auth_limit
        .check(claimed_channel, peer, Instant::now())
    {
        return Ok(limited.into_response());
    }
    let now = state.now();
    require_json(&parts.headers)?;
    let body = read_body(Request::from_parts(parts.clone(), body), &state).await?;
    let signed = match verify(&state, &parts, &body, now).await {
        Err(e @ ApiError::Unauthorized(_)) => {
            state
                .auth_limit
                .failed(claimed_channel, peer, Instant::now());
            return Err(e);
        }
        other => other?,
    };
    let input: Claim = parse_json(&body)?;
    let template_sn = TemplateSn::parse(&input.template_sn)
        .ok_or_else(|| ApiError::NotFound("template not found".into()))?;
    let user_id = input.user_id;
    let scope = format!("channel:{}", signed.channel_id);
    let hash = request_hash(&[parts.uri.path().as_bytes(), &body]);
    let mut metadata = ctx.metadata(scope.clone());
    metadata.channel_id = Some(signed.channel_id);
    let (channel_id, tz) = (signed.channel_id, state.tz);
    ctx.write(&state, &scope, &hash, StatusCode::CREATED, |tx| {
        Box::pin(async move {
            let req = ClaimRequest {
                template_sn: &template_sn,
                user_id: &user_id,
                channel_id: Some(channel_id),
                now,
                tz,
            };
            let issued = claim::claim(tx, &req, &metadata).await?;
            Ok(CouponView::issued(&issued))
        })
    })
    .await
}

/// What failed signatures are counted by: the channel id the request claims
/// (verified or not) and the peer's address (not X-Forwarded-For, which a
/// client could vary at will).
fn limit_keys(parts: &Parts) -> (Option<Uuid>, Option<IpAddr>) {
    let channel = parts
        .headers
        .get("X-Channel-Id")
        .and_then(|v| v.to_str().ok()?.parse().ok());
    let peer = parts
        .extensions
        .get::<ConnectInfo<SocketAddr>>()
        .map(|c| c.0.ip());
    (channel, peer)
}

/// The request's signature headers, once they are fresh and verified.
async fn verify(
    state: &AppState,
    parts: &Parts,
    body: &[u8],
    now: chrono::DateTime<chrono::Utc>,
) -> Result<SignedHeaders, ApiError> {
    let signed = SignedHeaders::parse(&parts.headers)?;
    signed.check_fresh(now)?;
    authenticate(
        state,
        &signed,
        parts.method.as_str(),
        parts.uri.path(),
        body,
    )
    .await?;
    Ok(signed)
}

/// Checks the channel's signature, then spends the nonce: Redis refuses most
/// replays cheaply; Postgres is the guard that holds when Redis is down or flushed.
async fn authenticate(
    state: &AppState,
    signed: &SignedHeaders,
    method: &str,
    path: &str,
    body: &[u8],
) -> Result<(), ApiError> {
    let secret = state.secrets.secret(&state.pool, signed.channel_id).await?;
    let secret = secret.ok_or_else(|| ApiError::Unauthorized("unknown channel".into()))?;
    signed.verify(&secret, method, path, body)?;
    let replay = || ApiError::Unauthorized("nonce already used".into());
    if state.nonce_seen_in_redis(signed).await {
        return Err(replay());
    }
    let client = state.pool.get().await?;
    if !channels::record_nonce(&**client, signed.channel_id, &signed.nonce).await? {
        return Err(replay());
    }
    Ok(())
}
