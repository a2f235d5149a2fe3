//! Bearer-token auth for the admin and service roles (docs/design.md §7). A wrong
//! token is counted against the client's address (`token_limit`); the
//! right one is compared first and passes without waiting on anything.

use std::net::{IpAddr, SocketAddr};
use std::time::Instant;

use axum::extract::{ConnectInfo, FromRequestParts};
use axum::http::header::AUTHORIZATION;
use axum::http::request::Parts;
use subtle::ConstantTimeEq;

use crate::api::AppState;
use crate::api::auth::token_limit::WrongToken;
use crate::api::http::error::ApiError;

/// The caller is an operator (templates, channels, issuance jobs).
pub struct Admin;

/// The caller is a trusted internal service (orders, user queries).
pub struct Service;

/// The caller reads what a service may read, as a service or as an operator
/// (the console's coupon lookup).
pub struct Reader;

impl FromRequestParts<AppState> for Admin {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> Result<Self, ApiError> {
        check(parts, state, &[&state.tokens.admin])
            .await
            .map(|()| Admin)
    }
}

impl FromRequestParts<AppState> for Service {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> Result<Self, ApiError> {
        service(parts, state).await.map(|()| Service)
    }
}

impl FromRequestParts<AppState> for Reader {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> Result<Self, ApiError> {
        let tokens = &state.tokens;
        check(parts, state, &[&tokens.service, &tokens.admin])
            .await
            .map(|()| Reader)
    }
}

/// The service token's check, for a route that takes it or another
/// credential (a channel's signature).
pub(crate) async fn service(parts: &Parts, state: &AppState) -> Result<(), ApiError> {
    check(parts, state, &[&state.tokens.service]).await
}

#[derive(Clone)]
pub struct Tokens {
    pub admin: String,
    pub service: String,
}

/// Ok when the request's bearer token is one of `accepted`. A missing one
/// is 401 (not counted: nothing was tried); a wrong one 403, or 429 once
/// its address sent too many.
async fn check(parts: &Parts, state: &AppState, accepted: &[&str]) -> Result<(), ApiError> {
    let given = parts
        .headers
        .get(AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("Bearer "))
        .ok_or_else(|| ApiError::Unauthorized("missing bearer token".into()))?;
    // Constant time, so response timing does not reveal a token's prefix;
    // every accepted token is compared, so neither does which one matched.
    let right = accepted.iter().fold(false, |found, t| {
        found | bool::from(given.as_bytes().ct_eq(t.as_bytes()))
    });
    if right {
        return Ok(());
    }
    let metrics = &state.metrics.tokens;
    match state
        .token_limit
        .wrong_token(peer(parts), Instant::now())
        .await
    {
        WrongToken::Counted => {
            metrics.forbidden();
            Err(ApiError::Forbidden("this token may not do that".into()))
        }
        WrongToken::Limited(limited) => {
            metrics.limited();
            Err(limited.into())
        }
    }
}

/// The connection's peer address (set by `server::serve`).
fn peer(parts: &Parts) -> Option<IpAddr> {
    let peer = parts.extensions.get::<ConnectInfo<SocketAddr>>();
    peer.map(|p| p.0.ip())
}
