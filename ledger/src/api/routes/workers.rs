//! `GET /v1/ops/workers`: the event pipeline as an operator checks it, for
//! the console's workers page: how far each relay route and projection is
//! behind the log, the contract queues' depths and the dead letters
//! waiting, with the latest errors. Read fresh on each request (the same
//! sources as `/metrics`); when RabbitMQ's management API cannot be read,
//! the Postgres half still answers and `broker_error` says why.

use axum::Json;
use axum::extract::State;
use serde::Serialize;
use utoipa::ToSchema;

use crate::api::AppState;
use crate::api::auth::principal::Principal;
use crate::api::http::error::{ApiError, ErrorBody};
use crate::observability::cluster_view::{ClusterView, view};
use crate::observability::dead_letters::{self, DeadLetter};
use crate::observability::queue_metrics::{QueueState, queue_states};
use crate::queries::lag::{ConsumerLag, consumer_lags, head_position};

#[derive(Serialize, ToSchema)]
pub struct WorkersStatus {
    /// Position of the last event in the store's read order (0: none).
    pub head_position: i64,
    /// Each relay route (`relay:<route>`) and projection, behind the head.
    pub consumers: Vec<ConsumerLag>,
    /// The contract queues; null when the management API could not be read.
    pub queues: Option<Vec<QueueState>>,
    /// The newest dead letters waiting (at most 10), newest first.
    pub dead_letters: Vec<DeadLetter>,
    /// Why RabbitMQ's management API could not be read, if so.
    pub broker_error: Option<String>,
    /// Which member of each cluster serves the API (docs/design.md §17).
    pub cluster: ClusterView,
}

/// Relay and projection lag, queue depths, dead letters.
#[utoipa::path(get, path = "/v1/ops/workers", operation_id = "workers_status", tag = "operations",
    security(("admin" = [])),
    responses((status = 200, body = WorkersStatus), (status = 401, body = ErrorBody),
        (status = 403, body = ErrorBody)))]
pub async fn status(
    State(state): State<AppState>,
    _: Principal,
) -> Result<Json<WorkersStatus>, ApiError> {
    // The three sources are read at once, each bounded: a slow broker
    // (its management API under load) does not hold up the log's half.
    let broker = async {
        let queues = queue_states(&state.management.http, &state.management.api).await?;
        let dead = dead_letters::latest(&state.management).await?;
        anyhow::Ok((queues, dead))
    };
    let cluster = view(&state.pool, &state.reads, &state.management, &state.redis);
    let (lags, broker, cluster) = tokio::join!(lags(&state), broker, cluster);
    let (head, consumers) = lags?;
    let (queues, dead_letters, broker_error) = match broker {
        Ok((queues, dead)) => (Some(queues), dead, None),
        // The error may quote the URL: its password stays out of the answer.
        Err(e) => {
            let base = [state.management.api.base.as_str()];
            (
                None,
                Vec::new(),
                Some(crate::logging::redact::scrub(&e.to_string(), base)),
            )
        }
    };
    Ok(Json(WorkersStatus {
        cluster,
        head_position: head,
        consumers,
        queues,
        dead_letters,
        broker_error,
    }))
}

/// The log's head and every consumer's lag, in one bounded read-only
/// transaction.
async fn lags(state: &AppState) -> Result<(i64, Vec<ConsumerLag>), ApiError> {
    let mut client = state.pool.get().await?;
    let tx = crate::observability::refresh::bounded(&mut client).await?;
    let head = head_position(&*tx).await?;
    let consumers = consumer_lags(&*tx).await?;
    tx.rollback().await?;
    Ok((head, consumers))
}
