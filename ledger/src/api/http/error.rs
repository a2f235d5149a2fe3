//! The API's one error type: each variant is one HTTP status, rendered as
//! `{"error": {"code": "...", "message": "..."}}` (docs/design.md §7).

use axum::Json;
use std::time::Duration;

use axum::http::header::RETRY_AFTER;
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde::Serialize;
use utoipa::ToSchema;

use crate::commands::CommandError;
use crate::commands::refusal::{Answer, ClaimRefused};
use crate::domain::rate_limit::retry_after_secs;

#[derive(Debug, thiserror::Error)]
pub enum ApiError {
    #[error("{message}")]
    BadRequest { code: &'static str, message: String },
    #[error("{0}")]
    Unauthorized(String),
    #[error("{0}")]
    Forbidden(String),
    /// The caller is known but its role or key lacks the route's
    /// permission (docs/design.md §19).
    #[error("this needs the permission {0}, which the caller's role or key does not grant")]
    NotPermitted(crate::domain::permission::Permission),
    /// A merchant's request for something outside its shops.
    #[error("{0}")]
    ShopScope(String),
    /// A revoked app key, or a rotated-out one past its overlap.
    #[error("this key was revoked or has expired")]
    KeyRevoked,
    /// A disabled channel's signed request (docs/design.md §15).
    #[error("channel {0} is disabled")]
    ChannelDisabled(crate::domain::ids::ChannelId),
    #[error("{0}")]
    NotFound(String),
    #[error("this route does not take the method {0}")]
    MethodNotAllowed(String),
    #[error("{message}")]
    Conflict { code: &'static str, message: String },
    #[error("{0}")]
    SoldOut(String),
    #[error("request body is larger than {limit} bytes")]
    PayloadTooLarge { limit: usize },
    #[error("{0}")]
    UnsupportedMediaType(String),
    #[error("{message}")]
    Unprocessable { code: &'static str, message: String },
    #[error("{0}")]
    TooManyRequests(String),
    /// Too many failures from one caller: 429 with `Retry-After`.
    #[error("{message}")]
    Limited {
        message: String,
        /// Whole seconds, at least 1.
        retry_after: u64,
    },
    /// A request body stopped coming (an upload's idle bound).
    #[error("{0}")]
    Timeout(String),
    #[error("{0} is unavailable")]
    Unavailable(String),
    /// A claim's group-committed batch failed: nothing of it was written.
    #[error("{0}")]
    BatchFailed(String),
    /// A command's refusal, answered as `commands/refusal.rs` decides.
    #[error("{}", .0.message)]
    Refused(Answer),
    #[error("internal error")]
    Internal(#[source] anyhow::Error),
}

/// `Retry-After` of a 503: a Postgres failover (Patroni's TTL and loop)
/// or a broker's restart is over within seconds.
pub const UNAVAILABLE_RETRY_SECS: u64 = 2;

/// The error body of every failed request.
#[derive(Serialize, ToSchema)]
pub struct ErrorBody {
    pub error: ErrorDetail,
}

#[derive(Serialize, ToSchema)]
pub struct ErrorDetail {
    /// Stable, machine-readable: `bad_request`, `sold_out`, `per_user_limit`, …
    pub code: String,
    pub message: String,
}

impl ApiError {
    pub fn bad_request(message: impl Into<String>) -> Self {
        Self::BadRequest {
            code: "bad_request",
            message: message.into(),
        }
    }

    /// 400 `invalid_field`: a field of the request, named in `message`,
    /// is out of its range or form.
    pub fn invalid_field(message: impl Into<String>) -> Self {
        Self::BadRequest {
            code: "invalid_field",
            message: message.into(),
        }
    }

    pub fn conflict(code: &'static str, message: impl Into<String>) -> Self {
        Self::Conflict {
            code,
            message: message.into(),
        }
    }

    /// 404 naming what was not found and the id asked for (bounded and
    /// escaped: it may be what the client sent).
    pub fn not_found(what: &str, id: impl std::fmt::Display) -> Self {
        let id = crate::commands::shown_id(&id.to_string());
        Self::NotFound(format!("{what} {id} not found"))
    }

    pub fn unprocessable(code: &'static str, message: impl Into<String>) -> Self {
        Self::Unprocessable {
            code,
            message: message.into(),
        }
    }

    pub fn status(&self) -> StatusCode {
        match self {
            Self::BadRequest { .. } => StatusCode::BAD_REQUEST,
            Self::Unauthorized(_) | Self::KeyRevoked => StatusCode::UNAUTHORIZED,
            Self::Forbidden(_)
            | Self::NotPermitted(_)
            | Self::ShopScope(_)
            | Self::ChannelDisabled(_) => StatusCode::FORBIDDEN,
            Self::NotFound(_) => StatusCode::NOT_FOUND,
            Self::MethodNotAllowed(_) => StatusCode::METHOD_NOT_ALLOWED,
            Self::UnsupportedMediaType(_) => StatusCode::UNSUPPORTED_MEDIA_TYPE,
            Self::Conflict { .. } => StatusCode::CONFLICT,
            Self::SoldOut(_) => StatusCode::GONE,
            Self::PayloadTooLarge { .. } => StatusCode::PAYLOAD_TOO_LARGE,
            Self::Unprocessable { .. } => StatusCode::UNPROCESSABLE_ENTITY,
            Self::TooManyRequests(_) | Self::Limited { .. } => StatusCode::TOO_MANY_REQUESTS,
            Self::Timeout(_) => StatusCode::REQUEST_TIMEOUT,
            Self::Unavailable(_) | Self::BatchFailed(_) => StatusCode::SERVICE_UNAVAILABLE,
            Self::Internal(_) => StatusCode::INTERNAL_SERVER_ERROR,
            Self::Refused(answer) => {
                StatusCode::from_u16(answer.status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR)
            }
        }
    }

    fn code(&self) -> &'static str {
        match self {
            Self::BadRequest { code, .. }
            | Self::Conflict { code, .. }
            | Self::Unprocessable { code, .. } => code,
            Self::Unauthorized(_) => "unauthorized",
            Self::Forbidden(_) | Self::NotPermitted(_) => "forbidden",
            Self::ShopScope(_) => "shop_scope",
            Self::KeyRevoked => "key_revoked",
            Self::ChannelDisabled(_) => "channel_disabled",
            Self::NotFound(_) => "not_found",
            Self::MethodNotAllowed(_) => "method_not_allowed",
            Self::UnsupportedMediaType(_) => "unsupported_media_type",
            Self::SoldOut(_) => "sold_out",
            Self::PayloadTooLarge { .. } => "payload_too_large",
            Self::TooManyRequests(_) | Self::Limited { .. } => "rate_limited",
            Self::Timeout(_) => "timeout",
            Self::Unavailable(_) => "unavailable",
            Self::BatchFailed(_) => "batch_failed",
            Self::Internal(_) => "internal",
            Self::Refused(answer) => answer.code,
        }
    }

    pub fn body(&self) -> ErrorBody {
        ErrorBody {
            error: ErrorDetail {
                code: self.code().to_owned(),
                message: self.to_string(),
            },
        }
    }
}

impl IntoResponse for ApiError {
    /// A server error (5xx) also goes to the request's log line
    /// ([`crate::api::http::request_log`]): an internal one with its source chain.
    fn into_response(self) -> Response {
        let server_error = match &self {
            Self::Internal(e) => {
                let chain = crate::logging::chain(e.as_ref());
                tracing::error!(error = %chain, "request failed");
                Some(chain)
            }
            other if other.status().is_server_error() => Some(other.to_string()),
            _ => None,
        };
        let mut response = (self.status(), Json(self.body())).into_response();
        let retry_after = match &self {
            Self::Limited { retry_after, .. } => Some(*retry_after),
            // A service down or failing over (docs/design.md §17): the
            // client retries with its Idempotency-Key once it is back.
            Self::Unavailable(_) | Self::BatchFailed(_) => Some(UNAVAILABLE_RETRY_SECS),
            _ => None,
        };
        if let Some(secs) = retry_after {
            let value = axum::http::HeaderValue::from(secs.max(1));
            response.headers_mut().insert(header::RETRY_AFTER, value);
        }
        if let Some(error) = server_error {
            response
                .extensions_mut()
                .insert(crate::api::http::request_log::ServerError(error.into()));
        }
        response
    }
}

impl From<tokio_postgres::Error> for ApiError {
    fn from(e: tokio_postgres::Error) -> Self {
        let chain = crate::logging::chain(&e);
        if crate::db::connection_lost(&e) {
            tracing::warn!(error = %chain, "postgres unreachable");
            return Self::Unavailable("postgres".into());
        }
        if let Some(db) = e.as_db_error()
            && crate::db::is_failover(db.code())
        {
            tracing::warn!(error = %chain, code = ?db.code(), "postgres is failing over");
            return Self::Unavailable("postgres".into());
        }
        match e.as_db_error() {
            Some(db) => tracing::error!(error = %chain, code = ?db.code(),
                detail = ?db.detail(), constraint = ?db.constraint(), "database error"),
            None => tracing::error!(error = %chain, "postgres client error"),
        }
        Self::Internal(e.into())
    }
}

impl From<deadpool_postgres::PoolError> for ApiError {
    fn from(e: deadpool_postgres::PoolError) -> Self {
        tracing::warn!(error = %crate::logging::chain(&e), "no postgres connection");
        Self::Unavailable("postgres".into())
    }
}

impl From<crate::store::StoreError> for ApiError {
    fn from(e: crate::store::StoreError) -> Self {
        use crate::store::StoreError;
        match e {
            StoreError::VersionConflict { .. } => {
                Self::conflict("concurrent_update", "changed concurrently; retry")
            }
            StoreError::EventIdReused { .. } | StoreError::Encode(_) | StoreError::TooMany(_) => {
                Self::Internal(e.into())
            }
            StoreError::Db(e) => e.into(),
        }
    }
}

impl From<crate::exactly_once::idempotency::IdempotencyError> for ApiError {
    fn from(e: crate::exactly_once::idempotency::IdempotencyError) -> Self {
        use crate::exactly_once::idempotency::IdempotencyError;
        match e {
            IdempotencyError::InvalidKey => Self::BadRequest {
                code: "bad_idempotency_key",
                message: e.to_string(),
            },
            IdempotencyError::KeyReused => {
                Self::unprocessable("idempotency_key_reused", e.to_string())
            }
            IdempotencyError::Db(e) => e.into(),
        }
    }
}

impl From<CommandError> for ApiError {
    fn from(e: CommandError) -> Self {
        match e.answer() {
            Some(answer) => Self::Refused(answer),
            None => match e {
                CommandError::Store(e) => e.into(),
                CommandError::Db(e) => e.into(),
                CommandError::Internal(e) => Self::Internal(e),
                // Only the three failures above have no answer.
                other => Self::Internal(anyhow::Error::new(other)),
            },
        }
    }
}

impl From<crate::write_model::RowError> for ApiError {
    fn from(e: crate::write_model::RowError) -> Self {
        match e {
            crate::write_model::RowError::Db(e) => e.into(),
            unreadable => Self::Internal(unreadable.into()),
        }
    }
}

impl From<ClaimRefused> for ApiError {
    fn from(r: ClaimRefused) -> Self {
        Self::Refused(r.answer())
    }
}

impl From<crate::domain::parse_error::ParseError> for ApiError {
    fn from(e: crate::domain::parse_error::ParseError) -> Self {
        Self::BadRequest {
            code: "invalid_field",
            message: format!("{}: {}", e.field(), e.message()),
        }
    }
}

impl From<crate::flash::FlashError> for ApiError {
    fn from(e: crate::flash::FlashError) -> Self {
        match e {
            crate::flash::FlashError::Pool(e) => e.into(),
            crate::flash::FlashError::Db(e) => e.into(),
        }
    }
}

/// 429 with `Retry-After` in whole seconds.
pub fn too_many(wait: Duration, why: &str) -> Response {
    let secs = retry_after_secs(wait);
    let mut response =
        ApiError::TooManyRequests(format!("{why}; retry after {secs} s")).into_response();
    response
        .headers_mut()
        .insert(RETRY_AFTER, HeaderValue::from(secs));
    response
}
