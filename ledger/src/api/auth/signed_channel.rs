//! [`SignedChannel`]: the extractor every channel-signed route takes
//! (claims, redemptions, package claims, package-job reads). It counts
//! failed signatures against the caller (429 past the limit), reads the
//! body, checks the signature with the channel's secret and spends the
//! nonce (`api/auth/nonce.rs`), so a handler starts from a verified
//! channel and its body. Claims take `SignedChannel<false>`: the flash
//! gate spends their nonce in its admission script, with the same
//! lifetime, and Postgres with the claim's batch.

use std::net::{IpAddr, SocketAddr};
use std::time::Instant;

use axum::body::Bytes;
use axum::extract::{ConnectInfo, FromRequest, Request};
use axum::http::Method;
use axum::http::request::Parts;
use axum::response::{IntoResponse, Response};
use chrono::{DateTime, Utc};
use uuid::Uuid;

use super::nonce;
use super::secret_cache::ChannelKeys;
use super::signature::SignedHeaders;
use crate::api::AppState;
use crate::api::http::error::ApiError;
use crate::api::http::extract::{read_body, require_json};
use crate::domain::ids::ChannelId;
use crate::exactly_once::idempotency::request_hash;

/// A request whose channel signature held; its nonce spent unless
/// `SPEND_NONCE` is false (then the caller spends it: see the module doc).
pub struct SignedChannel<const SPEND_NONCE: bool = true> {
    pub channel_id: ChannelId,
    pub nonce: String,
    /// The connection's peer (a channel's own address is its server's).
    pub peer: Option<IpAddr>,
    pub body: Bytes,
    /// The instant the signature's freshness was judged at.
    pub now: DateTime<Utc>,
    path: String,
}

impl<const SPEND_NONCE: bool> SignedChannel<SPEND_NONCE> {
    /// The request's hash for its Idempotency-Key: path and body.
    pub fn request_hash(&self) -> [u8; 32] {
        request_hash(&[self.path.as_bytes(), &self.body])
    }
}

impl<const SPEND_NONCE: bool> FromRequest<AppState> for SignedChannel<SPEND_NONCE> {
    type Rejection = Response;

    async fn from_request(request: Request, state: &AppState) -> Result<Self, Response> {
        let (parts, body) = request.into_parts();
        let (claimed, peer) = limit_keys(&parts);
        let counted = state.auth_limit.check(claimed, peer, Instant::now());
        counted.map_err(IntoResponse::into_response)?;
        let now = state.now();
        if parts.method != Method::GET {
            require_json(&parts.headers).map_err(IntoResponse::into_response)?;
        }
        let body = read_body(Request::from_parts(parts.clone(), body), state).await;
        let body = body.map_err(IntoResponse::into_response)?;
        let signed = match verify(state, &parts, &body, now).await {
            Err(e @ ApiError::Unauthorized(_)) => {
                state.auth_limit.failed(claimed, peer, Instant::now());
                return Err(e.into_response());
            }
            other => other.map_err(IntoResponse::into_response)?,
        };
        if SPEND_NONCE {
            let spent = nonce::spend(state, signed.channel_id, &signed.nonce).await;
            spent.map_err(IntoResponse::into_response)?;
        }
        Ok(Self {
            channel_id: signed.channel_id,
            nonce: signed.nonce,
            peer,
            body,
            now,
            path: parts.uri.path().to_owned(),
        })
    }
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

/// The request's signature headers, once they are fresh and match one of
/// the channel's secrets (the current one, or the one a rotation replaced
/// inside its overlap) and the channel is not disabled (docs/design.md §15).
async fn verify(
    state: &AppState,
    parts: &Parts,
    body: &[u8],
    now: DateTime<Utc>,
) -> Result<SignedHeaders, ApiError> {
    let signed = SignedHeaders::parse(&parts.headers)?;
    signed.check_fresh(now)?;
    let (method, path) = (parts.method.as_str(), parts.uri.path());
    let holds = |keys: &ChannelKeys| {
        keys.verifying_at(now)
            .any(|secret| signed.verify(secret, method, path, body).is_ok())
    };
    let unknown = || ApiError::Unauthorized("unknown channel".into());
    let id = signed.channel_id;
    let found = state
        .secrets
        .find(&state.pool, id)
        .await?
        .ok_or_else(unknown)?;
    let keys = if holds(&found.keys) {
        found.keys
    } else if found.cached {
        // Another process may have rotated the secret since this one read
        // it: a new secret holds at once (failures are limited by the caller).
        let fresh = state.secrets.reload(&state.pool, id).await?;
        fresh.ok_or_else(unknown)?.keys
    } else {
        found.keys
    };
    if !holds(&keys) {
        return Err(ApiError::Unauthorized("signature does not match".into()));
    }
    if keys.disabled {
        return Err(ApiError::ChannelDisabled(id));
    }
    Ok(signed)
}
