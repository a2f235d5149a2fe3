//! Bearer-token auth for the admin and service roles (DESIGN §7).

use axum::extract::FromRequestParts;
use axum::http::header::AUTHORIZATION;
use axum::http::request::Parts;
use subtle::ConstantTimeEq;

use super::AppState;
use super::error::ApiError;

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
        check(parts, &state.tokens.admin).map(|()| Admin)
    }
}

impl FromRequestParts<AppState> for Service {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> Result<Self, ApiError> {
        check(parts, &state.tokens.service).map(|()| Service)
    }
}

impl FromRequestParts<AppState> for Reader {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> Result<Self, ApiError> {
        check(parts, &state.tokens.service)
            .or_else(|_| check(parts, &state.tokens.admin))
            .map(|()| Reader)
    }
}

/// The service token's check, for a route that takes it or another
/// credential (a channel's signature).
pub(crate) fn service(parts: &Parts, state: &AppState) -> Result<(), ApiError> {
    check(parts, &state.tokens.service)
}

#[derive(Clone)]
pub struct Tokens {
    pub admin: String,
    pub service: String,
}

fn check(parts: &Parts, expected: &str) -> Result<(), ApiError> {
    let given = parts
        .headers
        .get(AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("Bearer "))
        .ok_or_else(|| ApiError::Unauthorized("missing bearer token".into()))?;
    // Constant time, so response timing does not reveal a token's prefix.
    if bool::from(given.as_bytes().ct_eq(expected.as_bytes())) {
        Ok(())
    } else {
        Err(ApiError::Forbidden("this token may not do that".into()))
    }
}
