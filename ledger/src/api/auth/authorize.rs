//! The middleware that enforces `route_rules` on every route: it
//! authenticates the bearer token (`tokens::authenticate`), refuses a
//! caller whose role or key lacks the route's permission (403 `forbidden`
//! naming it), refuses a merchant a resource of another shop (403
//! `shop_scope`, `shop_scope.rs`), and hands the [`Principal`] to the
//! handler. Channel-signed routes are checked by their extractor.

use axum::extract::{FromRequestParts, MatchedPath, RawPathParams, Request, State};
use axum::http::header::AUTHORIZATION;
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use subtle::ConstantTimeEq;

use super::principal::Principal;
use super::route_rules::{self, Access, ShopOf};
use super::{shop_scope, tokens};
use crate::api::AppState;
use crate::api::http::error::ApiError;

pub async fn authorize(State(state): State<AppState>, request: Request, next: Next) -> Response {
    match check(&state, request).await {
        Ok(request) => next.run(request).await,
        Err(refused) => refused.into_response(),
    }
}

async fn check(state: &AppState, request: Request) -> Result<Request, ApiError> {
    let (mut parts, body) = request.into_parts();
    let matched = parts.extensions.get::<MatchedPath>();
    let rule = matched
        .and_then(|p| route_rules::find(&parts.method, p.as_str()))
        .ok_or_else(|| ApiError::Internal(anyhow::anyhow!("route has no access rule")))?;
    let permission = match rule.access {
        Access::Open | Access::Signed => None,
        Access::Metrics => {
            metrics_token(state, &parts)?;
            None
        }
        Access::SignedOr(_) if !parts.headers.contains_key(AUTHORIZATION) => None,
        Access::Bearer(p) | Access::SignedOr(p) => Some(Some(p)),
        Access::AnyBearer => Some(None),
    };
    if let Some(permission) = permission {
        let principal = tokens::authenticate(&parts, state).await?;
        if let Some(p) = permission.filter(|&p| !principal.may(p)) {
            return Err(ApiError::NotPermitted(p));
        }
        key_rate(state, &principal)?;
        if principal.merchant_shops().is_some() && rule.shop != ShopOf::Nothing {
            let params = RawPathParams::from_request_parts(&mut parts, state).await;
            let params = params.map_err(|e| ApiError::bad_request(e.body_text()))?;
            shop_scope::check(state, &principal, rule.shop, &params).await?;
        }
        parts.extensions.insert(principal);
    }
    Ok(Request::from_parts(parts, body))
}

/// An app key past its own request rate: 429 with the wait.
fn key_rate(state: &AppState, principal: &Principal) -> Result<(), ApiError> {
    let Principal::App {
        key,
        rate_limit: Some(bucket),
        ..
    } = principal
    else {
        return Ok(());
    };
    match state.key_limit.take(&key.id, *bucket) {
        None => Ok(()),
        Some(wait) => Err(ApiError::Limited {
            message: format!(
                "key {} is over its rate of {} a second",
                key.name, bucket.per_second
            ),
            retry_after: crate::domain::rate_limit::retry_after_secs(wait),
        }),
    }
}

/// `/metrics` with `LEDGER_METRICS_TOKEN` set: its bearer, compared in
/// constant time (Prometheus sends it as `authorization: credentials`).
fn metrics_token(state: &AppState, parts: &axum::http::request::Parts) -> Result<(), ApiError> {
    let Some(expected) = &state.metrics_token else {
        return Ok(());
    };
    let given = parts
        .headers
        .get(AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(tokens::bearer)
        .ok_or_else(|| ApiError::Unauthorized("/metrics needs its bearer token".into()))?;
    let given = crate::commands::api_keys::digest(given);
    match bool::from(given.ct_eq(expected)) {
        true => Ok(()),
        false => Err(ApiError::Forbidden(
            "this token may not read /metrics".into(),
        )),
    }
}
