//! Per-request context: correlation id, Idempotency-Key, and the command
//! transaction that honours it.

use axum::Json;
use axum::extract::FromRequestParts;
use axum::http::StatusCode;
use axum::http::request::Parts;
use axum::response::{IntoResponse, Response};
use deadpool_postgres::Transaction;
use futures_util::future::BoxFuture;
use serde::Serialize;
use serde_json::Value;

use crate::api::AppState;
use crate::api::auth::principal::Principal;
use crate::api::http::error::ApiError;
use crate::api::http::request_log::RequestId;
use crate::domain::events::Metadata;
use crate::exactly_once::idempotency::{self, Claim, StoredResponse};

/// What a write's command returns: its typed answer, borrowing the transaction.
pub type TxFuture<'a, T> = BoxFuture<'a, Result<T, ApiError>>;

/// The correlation id (the request's id: `X-Request-Id`, else fresh; see
/// [`crate::api::http::request_log`]) and the Idempotency-Key.
pub struct Ctx {
    pub correlation_id: String,
    pub idempotency_key: Option<String>,
    /// Who asked, when a bearer token named them (`authorize`).
    principal: Option<Principal>,
}

impl<S: Send + Sync> FromRequestParts<S> for Ctx {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, _: &S) -> Result<Self, ApiError> {
        // The request log gave the request its id; outside it (a router
        // built without the layer) the same rule gives one here.
        let correlation_id = parts
            .extensions
            .get::<RequestId>()
            .cloned()
            .unwrap_or_else(|| RequestId::of(&parts.headers))
            .0
            .to_string();
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
            principal: parts.extensions.get::<Principal>().cloned(),
        })
    }
}

impl Ctx {
    /// The events' metadata, naming the principal that asked when a
    /// bearer token did (docs/design.md §19): `operator` and `role`, or
    /// `api_key`.
    pub fn metadata(&self, actor: impl Into<String>) -> Metadata {
        let (operator, role, api_key) = match &self.principal {
            Some(Principal::Operator { name, role, .. }) => (Some(name.clone()), Some(*role), None),
            Some(Principal::App { key, .. }) => (None, None, Some(key.clone())),
            None => (None, None, None),
        };
        Metadata {
            actor: actor.into(),
            operator,
            role,
            api_key,
            channel_id: None,
            correlation_id: self.correlation_id.clone(),
            causation_id: None,
            idempotency_key: self.idempotency_key.clone(),
            code: None,
        }
    }

    /// Metadata of a bearer route's events: the actor is the kind of
    /// caller (`admin` for an operator, `service` for an app key).
    pub fn principal_metadata(&self) -> Metadata {
        let actor = self.principal.as_ref().map_or("service", Principal::actor);
        self.metadata(actor)
    }

    /// The one path of every write: a transaction; with an Idempotency-Key,
    /// the stored answer of an earlier identical request, else the key
    /// claimed; then `command`, its answer recorded under the key, and the
    /// commit. `command` gets the transaction and returns the typed answer,
    /// sent with `status`.
    pub async fn write<T, F>(
        &self,
        state: &AppState,
        scope: &str,
        hash: &[u8; 32],
        status: StatusCode,
        command: F,
    ) -> Result<Response, ApiError>
    where
        T: Serialize,
        F: for<'a> FnOnce(&'a Transaction<'a>) -> TxFuture<'a, T>,
    {
        let same = |_: &T| None::<T>;
        self.write_stored_as(state, scope, hash, status, command, same)
            .await
    }

    /// [`Ctx::write`], where a replay answers `replayable(&answer)` instead
    /// of the answer itself: for an answer that shows something only once
    /// (a channel's secret), which then is never stored.
    pub async fn write_stored_as<T, F, R>(
        &self,
        state: &AppState,
        scope: &str,
        hash: &[u8; 32],
        status: StatusCode,
        command: F,
        replayable: impl FnOnce(&T) -> R,
    ) -> Result<Response, ApiError>
    where
        T: Serialize,
        R: Into<Option<T>>,
        F: for<'a> FnOnce(&'a Transaction<'a>) -> TxFuture<'a, T>,
    {
        let mut client = state.pool.get().await?;
        let tx = client.transaction().await?;
        if let Some(stored) = self.replay(&tx, scope, hash).await? {
            rollback(tx).await;
            return Ok(respond(stored.status, stored.body));
        }
        let answer = match command(&tx).await {
            Ok(answer) => answer,
            Err(refused) => {
                rollback(tx).await;
                return Err(refused);
            }
        };
        let json = |a: &T| serde_json::to_value(a).map_err(|e| ApiError::Internal(e.into()));
        let body = json(&answer)?;
        if let Some(key) = &self.idempotency_key {
            let stored_answer: Option<T> = replayable(&answer).into();
            let stored = StoredResponse {
                status: status.as_u16(),
                body: stored_answer.as_ref().map_or(Ok(body.clone()), json)?,
            };
            idempotency::record_response(&tx, scope, key, &stored).await?;
        }
        if crate::planted::loses_this_write() {
            rollback(tx).await;
            return Ok(respond(status.as_u16(), body));
        }
        tx.commit().await?;
        Ok(respond(status.as_u16(), body))
    }

    /// With an Idempotency-Key: the stored response of an earlier identical
    /// request, or None after claiming the key for this one.
    async fn replay(
        &self,
        tx: &Transaction<'_>,
        scope: &str,
        hash: &[u8; 32],
    ) -> Result<Option<StoredResponse>, ApiError> {
        let Some(key) = &self.idempotency_key else {
            return Ok(None);
        };
        match idempotency::claim(tx, scope, key, hash).await? {
            Claim::Fresh => Ok(None),
            Claim::Replay(stored) => Ok(Some(stored)),
        }
    }
}

/// Rolls back before the answer goes out: a dropped transaction's rollback
/// is only queued, and its row locks would outlive the answer (a caller
/// acting on the answer could still meet them). A failure leaves the
/// answer as it is: the connection is gone, and its locks with it.
async fn rollback(tx: Transaction<'_>) {
    if let Err(e) = tx.rollback().await {
        tracing::warn!(error = %e, "rollback failed");
    }
}

fn respond(status: u16, body: Value) -> Response {
    let status = StatusCode::from_u16(status).unwrap_or(StatusCode::OK);
    (status, Json(body)).into_response()
}
