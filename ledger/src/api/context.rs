//! Per-request context: correlation id, Idempotency-Key, and the command
//! transaction that honours it.

use axum::Json;
use axum::extract::FromRequestParts;
use axum::http::StatusCode;
use axum::http::request::Parts;
use axum::response::{IntoResponse, Response};
use deadpool_postgres::Transaction;
use serde_json::Value;

use super::error::ApiError;
use crate::domain::events::Metadata;
use crate::idempotency::{self, Claim, StoredResponse};

const MAX_REQUEST_ID_LEN: usize = 128;

/// The correlation id (from `X-Request-Id`, else fresh) and the Idempotency-Key.
pub struct Ctx {
    pub correlation_id: String,
    pub idempotency_key: Option<String>,
}

impl<S: Send + Sync> FromRequestParts<S> for Ctx {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, _: &S) -> Result<Self, ApiError> {
        let header = |name: &str| parts.headers.get(name).and_then(|v| v.to_str().ok());
        let correlation_id = header("X-Request-Id")
            .filter(|v| !v.is_empty() && v.len() <= MAX_REQUEST_ID_LEN)
            .map_or_else(|| uuid::Uuid::now_v7().to_string(), str::to_owned);
        let idempotency_key = match parts.headers.get("Idempotency-Key") {
            None => None,
            Some(v) => {
                let key = v
                    .to_str()
                    .map_err(|_| idempotency::IdempotencyError::InvalidKey)?;
                idempotency::validate_key(key)?;
                Some(key.to_owned())
            }
        };
        Ok(Self {
            correlation_id,
            idempotency_key,
        })
    }
}

impl Ctx {
    pub fn metadata(&self, actor: impl Into<String>) -> Metadata {
        Metadata {
            actor: actor.into(),
            channel_id: None,
            correlation_id: self.correlation_id.clone(),
            causation_id: None,
            idempotency_key: self.idempotency_key.clone(),
        }
    }

    /// With an Idempotency-Key: the stored response of an earlier identical
    /// request, or None after claiming the key for this one.
    pub async fn replay(
        &self,
        tx: &Transaction<'_>,
        scope: &str,
        hash: &[u8; 32],
    ) -> Result<Option<Response>, ApiError> {
        let Some(key) = &self.idempotency_key else {
            return Ok(None);
        };
        match idempotency::claim(tx, scope, key, hash).await? {
            Claim::Fresh => Ok(None),
            Claim::Replay(stored) => Ok(Some(respond(stored.status, stored.body))),
        }
    }

    /// Records the response under the Idempotency-Key (if any), then commits.
    pub async fn commit(
        &self,
        tx: Transaction<'_>,
        scope: &str,
        status: StatusCode,
        body: Value,
    ) -> Result<Response, ApiError> {
        if let Some(key) = &self.idempotency_key {
            let stored = StoredResponse {
                status: status.as_u16(),
                body,
            };
            idempotency::record_response(&tx, scope, key, &stored).await?;
            tx.commit().await?;
            return Ok(respond(stored.status, stored.body));
        }
        tx.commit().await?;
        Ok(respond(status.as_u16(), body))
    }
}

fn respond(status: u16, body: Value) -> Response {
    let status = StatusCode::from_u16(status).unwrap_or(StatusCode::OK);
    (status, Json(body)).into_response()
}
