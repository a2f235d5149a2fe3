//! `POST /v1/claims`: a channel claims one coupon for a user (signed request).

use axum::extract::{Request, State};
use axum::http::StatusCode;
use axum::response::Response;
use serde::Deserialize;
use utoipa::ToSchema;

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
        (status = 422, body = ErrorBody), (status = 429, body = ErrorBody)))]
pub async fn claim(
    State(state): State<AppState>,
    ctx: Ctx,
    request: Request,
) -> Result<Response, ApiError> {
    let (parts, body) = request.into_parts();
    let signed = SignedHeaders::parse(&parts.headers)?;
    let now = state.now();
    signed.check_fresh(now)?;
    require_json(&parts.headers)?;
    let body = read_body(Request::from_parts(parts.clone(), body), &state).await?;
    authenticate(
        &state,
        &signed,
        parts.method.as_str(),
        parts.uri.path(),
        &body,
    )
    .await?;
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

/// Checks the channel's signature, then spends the nonce: Redis refuses most
/// replays cheaply; Postgres is the guard that holds when Redis is down or flushed.
async fn authenticate(
    state: &AppState,
    signed: &SignedHeaders,
    method: &str,
    path: &str,
    body: &[u8],
) -> Result<(), ApiError> {
    let secret = {
        let client = state.pool.get().await?;
        channels::secret(&**client, signed.channel_id).await?
    };
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
