//! `POST /v1/claims`: a channel claims one coupon for a user (signed request).
//!
//! On an active template the claim passes the flash-sale gate (rate limits,
//! stock, the user's limit in Redis; docs/design.md §12) and is written with the
//! claims that arrive with it (group commit). A request with an
//! `Idempotency-Key`, or on a template the gate does not serve, is written
//! alone, as before the gate.

use std::time::{Duration, Instant};

use axum::Json;
use axum::extract::State;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};

use crate::api::AppState;
use crate::api::auth::nonce;
use crate::api::auth::signed_channel::SignedChannel;
use crate::api::http::context::Ctx;
use crate::api::http::error::{ApiError, ErrorBody, too_many};
use crate::api::http::extract::parse_json;
use crate::api::routes::user_facts_body::user_facts_body;
use crate::commands::claim::{self, ClaimRequest};
use crate::commands::claim_batch::BatchClaim;
use crate::domain::eligibility::UserFacts;
use crate::domain::ids::{TemplateSn, UserId};
use crate::flash::batcher::ClaimRefused;
use crate::flash::gate::Claimant;
use crate::flash::{Decision, GateInfo, Refused};
use crate::queries::coupons::CouponView;

user_facts_body! {
    pub struct Claim {
        pub template_sn: String,
    }
}

/// Claim one coupon. Signed by the channel: `X-Channel-Id`, `X-Timestamp`,
/// `X-Nonce`, `X-Signature` (docs/design.md §6). Claims on an active template pass
/// the flash-sale gate and are group-committed (docs/design.md §12).
#[utoipa::path(post, path = "/v1/claims", operation_id = "claim",
    tag = "claims", request_body = Claim,
    params(("X-Channel-Id" = Uuid, Header), ("X-Timestamp" = i64, Header),
           ("X-Nonce" = String, Header), ("X-Signature" = String, Header)),
    responses((status = 201, body = CouponView), (status = 401, body = ErrorBody),
        (status = 403, body = ErrorBody, description = "the template does not list this channel \
            (`forbidden`), the channel is disabled (`channel_disabled`), or the template's \
            eligibility refuses the user (`not_eligible`, the message names the rule)"),
        (status = 404, body = ErrorBody),
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
    signed: SignedChannel<false>,
) -> Result<Response, ApiError> {
    let input: Claim = parse_json(&signed.body)?;
    let facts = input.facts()?;
    let template_sn = TemplateSn::parse(&input.template_sn)
        .ok_or_else(|| ApiError::not_found("template", &input.template_sn))?;
    let claim = Verified {
        template_sn,
        user_id: input.user_id,
        facts,
        hash: signed.request_hash(),
        signed,
    };
    let sn = &claim.template_sn;
    let channel = claim.signed.channel_id;
    match state.flash.info(sn).await?.filter(|i| i.active) {
        // A channel the template does not list never holds stock in the
        // gate: Postgres refuses it (docs/design.md §15).
        Some(info) if state.flash.has_room(sn) && info.lists(channel) => {
            // An ineligible user never reaches the gate: no unit of stock
            // is held for a claim Postgres would refuse.
            if let Err(rule) = info.admits(&claim.facts) {
                return Err(ClaimRefused::NotEligible(rule).into());
            }
            let (channel, peer) = (Some(claim.signed.channel_id.0), claim.signed.peer);
            let answer = through_gate(&state, &ctx, claim, info).await;
            if matches!(&answer, Err(e) if e.status() == StatusCode::UNAUTHORIZED) {
                state.auth_limit.failed(channel, peer, Instant::now());
            }
            answer
        }
        // Not active, unknown, or not the channel's: Postgres gives the
        // precise refusal.
        _ => alone(&state, &ctx, claim).await,
    }
}

/// A claim request whose signature holds (its nonce not yet spent).
struct Verified {
    template_sn: TemplateSn,
    user_id: UserId,
    facts: UserFacts,
    signed: SignedChannel<false>,
    hash: [u8; 32],
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
        sn: &claim.template_sn,
        user: claim.user_id.as_str(),
        channel: Some(channel_id),
        per_user_limit: info.per_user_limit,
        rate_limit: info.rate_limit,
        rates_only: ctx.idempotency_key.is_some(),
        nonce: &claim.signed.nonce,
    };
    let reserved = match state.flash.admit(&claimant).await {
        Decision::Refuse(Refused::Replay) => return Err(nonce::replay()),
        Decision::Refuse(refused) => return Ok(refusal(refused)),
        Decision::Write { reserved } => reserved,
    };
    if ctx.idempotency_key.is_some() {
        return written_alone(state, ctx, claim).await;
    }
    let mut metadata = ctx.metadata(format!("channel:{channel_id}"));
    metadata.channel_id = Some(channel_id);
    let batch_claim = BatchClaim {
        user_id: claim.user_id.clone(),
        facts: claim.facts.clone(),
        channel_id: Some(channel_id),
        nonce: Some(claim.signed.nonce),
        metadata,
        appended: crate::store::appended::current(),
    };
    let sn = &claim.template_sn;
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
    if nonce::seen_in_redis(state, claim.signed.channel_id, &claim.signed.nonce).await {
        return Err(nonce::replay());
    }
    written_alone(state, ctx, claim).await
}

/// [`alone`] once Redis has seen the nonce (the gate spent it there).
async fn written_alone(state: &AppState, ctx: &Ctx, claim: Verified) -> Result<Response, ApiError> {
    let channel_id = claim.signed.channel_id;
    nonce::spend_in_postgres(state, channel_id, &claim.signed.nonce).await?;
    let scope = format!("channel:{channel_id}");
    let mut metadata = ctx.metadata(scope.clone());
    metadata.channel_id = Some(channel_id);
    let (tz, now) = (state.tz, claim.signed.now);
    let (template_sn, user_id, facts) = (claim.template_sn, claim.user_id, claim.facts);
    ctx.write(state, &scope, &claim.hash, StatusCode::CREATED, |tx| {
        Box::pin(async move {
            let req = ClaimRequest {
                template_sn: &template_sn,
                user_id: &user_id,
                facts: &facts,
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
        Refused::Replay => nonce::replay().into_response(),
        Refused::SoldOut => ApiError::from(ClaimRefused::SoldOut).into_response(),
        Refused::AtLimit(limit) => ApiError::from(ClaimRefused::AtLimit(limit)).into_response(),
        Refused::RateLimited(wait) => too_many(wait, "over the template's claim rate limit"),
    }
}
