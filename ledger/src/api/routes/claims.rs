//! `POST /v1/claims`: a channel claims one coupon for a user (signed request).
//!
//! On an active template the claim passes the flash-sale gate (rate limits,
//! stock, the user's limit in Redis; DESIGN §12) and is written with the
//! claims that arrive with it (group commit). A request with an
//! `Idempotency-Key`, or on a template the gate does not serve, is written
//! alone, as before the gate.

use std::net::{IpAddr, SocketAddr};
use std::time::{Duration, Instant};

use axum::Json;
use axum::extract::{ConnectInfo, Request, State};
use axum::http::header::RETRY_AFTER;
use axum::http::request::Parts;
use axum::http::{HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use serde::Deserialize;
use utoipa::ToSchema;
use uuid::Uuid;

use crate::api::AppState;
use crate::api::auth::signature::SignedHeaders;
use crate::api::http::context::Ctx;
use crate::api::http::error::{ApiError, ErrorBody};
use crate::api::http::extract::{parse_json, read_body, require_json};
use crate::commands::channels;
use crate::commands::claim::{self, ClaimRequest};
use crate::commands::claim_batch::BatchClaim;
use crate::domain::ids::{TemplateSn, UserId};
use crate::domain::rate_limit::retry_after_secs;
use crate::flash::batcher::ClaimRefused;
use crate::flash::gate::Claimant;
use crate::flash::{Decision, GateInfo, Refused};
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
/// `X-Nonce`, `X-Signature` (DESIGN §6). Claims on an active template pass
/// the flash-sale gate and are group-committed (DESIGN §12).
#[utoipa::path(post, path = "/v1/claims", tag = "claims", request_body = Claim,
    params(("X-Channel-Id" = Uuid, Header), ("X-Timestamp" = i64, Header),
           ("X-Nonce" = String, Header), ("X-Signature" = String, Header)),
    responses((status = 201, body = CouponView), (status = 401, body = ErrorBody),
        (status = 403, body = ErrorBody), (status = 404, body = ErrorBody),
        (status = 409, body = ErrorBody, description = "the user holds the template's per-user limit"),
        (status = 410, body = ErrorBody, description = "sold out"),
        (status = 422, body = ErrorBody), (status = 429, body = ErrorBody,
            description = "over the template's rate limit, too many claims waiting, \
                or too many bad signatures; see Retry-After"),
        (status = 503, body = ErrorBody,
            description = "the claim's batch failed (no coupon was issued), or a store is down")))]
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
        .ok_or_else(|| ApiError::not_found("template", &input.template_sn))?;
    let claim = Verified {
        template_sn,
        user_id: input.user_id,
        signed,
        hash: request_hash(&[parts.uri.path().as_bytes(), &body]),
        now,
    };
    let sn = claim.template_sn.as_str();
    match state.flash.info(sn).await?.filter(|i| i.active) {
        Some(info) if state.flash.has_room(sn) => {
            let answer = through_gate(&state, &ctx, claim, info).await;
            if matches!(answer, Err(ApiError::Unauthorized(_))) {
                state
                    .auth_limit
                    .failed(claimed_channel, peer, Instant::now());
            }
            answer
        }
        // Not active, or unknown: Postgres gives the precise refusal.
        _ => alone(&state, &ctx, claim).await,
    }
}

/// A claim request whose signature holds.
struct Verified {
    template_sn: TemplateSn,
    user_id: UserId,
    signed: SignedHeaders,
    hash: [u8; 32],
    now: chrono::DateTime<chrono::Utc>,
}

/// The gate, then the batch (or alone, with an Idempotency-Key).
async fn through_gate(
    state: &AppState,
    ctx: &Ctx,
    claim: Verified,
    info: GateInfo,
) -> Result<Response, ApiError> {
    let channel_id = claim.signed.channel_id;
    let claimant = Claimant {
        sn: claim.template_sn.as_str(),
        user: claim.user_id.as_str(),
        channel: Some(channel_id),
        per_user_limit: info.per_user_limit,
        rate_limit: info.rate_limit,
        rates_only: ctx.idempotency_key.is_some(),
        nonce: &claim.signed.nonce,
    };
    let reserved = match state.flash.admit(&claimant).await {
        Decision::Refuse(Refused::Replay) => return Err(replay()),
        Decision::Refuse(refused) => return Ok(refusal(refused)),
        Decision::Write { reserved } => reserved,
    };
    if ctx.idempotency_key.is_some() {
        return written_alone(state, ctx, claim).await;
    }
    let mut metadata = ctx.metadata(format!("channel:{channel_id}"));
    metadata.channel_id = Some(channel_id);
    let batch_claim = BatchClaim {
        user_id: claim.user_id.as_str().to_owned(),
        channel_id: Some(channel_id),
        nonce: Some(claim.signed.nonce),
        metadata,
        appended: crate::store::appended::current(),
    };
    let sn = claim.template_sn.as_str();
    match state.flash.submit(sn, batch_claim, reserved).await {
        None => Ok(too_many(
            Duration::from_secs(1),
            "too many claims are waiting for this template",
        )),
        Some(Ok(coupon)) => {
            Ok((StatusCode::CREATED, Json(CouponView::issued(&coupon))).into_response())
        }
        Some(Err(refused)) => Err(refused.into()),
    }
}

/// One claim in its own transaction, as before the gate: the nonce is
/// spent in Redis (a replay it remembers is refused cheaply) and Postgres.
async fn alone(state: &AppState, ctx: &Ctx, claim: Verified) -> Result<Response, ApiError> {
    if state.nonce_seen_in_redis(&claim.signed).await {
        return Err(replay());
    }
    written_alone(state, ctx, claim).await
}

/// [`alone`] once Redis has seen the nonce (the gate spent it there).
async fn written_alone(state: &AppState, ctx: &Ctx, claim: Verified) -> Result<Response, ApiError> {
    spend_nonce(state, &claim.signed).await?;
    let channel_id = claim.signed.channel_id;
    let scope = format!("channel:{channel_id}");
    let mut metadata = ctx.metadata(scope.clone());
    metadata.channel_id = Some(channel_id);
    let (tz, now) = (state.tz, claim.now);
    let (template_sn, user_id) = (claim.template_sn, claim.user_id);
    ctx.write(state, &scope, &claim.hash, StatusCode::CREATED, |tx| {
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

fn refusal(refused: Refused) -> Response {
    match refused {
        Refused::Replay => replay().into_response(),
        Refused::SoldOut => ApiError::from(ClaimRefused::SoldOut).into_response(),
        Refused::AtLimit(limit) => ApiError::from(ClaimRefused::AtLimit(limit)).into_response(),
        Refused::RateLimited(wait) => too_many(wait, "over the template's claim rate limit"),
    }
}

/// 429 with `Retry-After` in whole seconds.
pub(crate) fn too_many(wait: Duration, why: &str) -> Response {
    let secs = retry_after_secs(wait);
    let mut response =
        ApiError::TooManyRequests(format!("{why}; retry after {secs} s")).into_response();
    response
        .headers_mut()
        .insert(RETRY_AFTER, HeaderValue::from(secs));
    response
}

impl From<ClaimRefused> for ApiError {
    fn from(r: ClaimRefused) -> Self {
        let message = r.to_string();
        match r {
            ClaimRefused::Replay => Self::Unauthorized(message),
            ClaimRefused::Channel => Self::Forbidden(message),
            ClaimRefused::AtLimit(_) => Self::conflict("per_user_limit", message),
            ClaimRefused::SoldOut | ClaimRefused::UsedUp => Self::SoldOut(message),
            ClaimRefused::AlreadyRedeemed => Self::conflict("already_redeemed", message),
            ClaimRefused::Template(code, _) => Self::unprocessable(code, message),
            ClaimRefused::NotFound(_) => Self::NotFound(message),
            ClaimRefused::Failed => Self::BatchFailed(message),
        }
    }
}

/// What failed signatures are counted by: the channel id the request claims
/// (verified or not) and the peer's address (not X-Forwarded-For, which a
/// client could vary at will).
pub(crate) fn limit_keys(parts: &Parts) -> (Option<Uuid>, Option<IpAddr>) {
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
pub(crate) async fn verify(
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

/// Checks the channel's signature. The nonce is spent later: in Redis by the
/// gate's script (or by [`alone`]), in Postgres with the claim — in its
/// batch, or by [`spend_nonce`] for a claim alone — the guard that holds
/// when Redis is down or flushed.
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
    Ok(())
}

pub(crate) fn replay() -> ApiError {
    ApiError::Unauthorized("nonce already used".into())
}

pub(crate) async fn spend_nonce(state: &AppState, signed: &SignedHeaders) -> Result<(), ApiError> {
    let client = state.pool.get().await?;
    if !channels::record_nonce(&**client, signed.channel_id, &signed.nonce).await? {
        return Err(replay());
    }
    Ok(())
}
