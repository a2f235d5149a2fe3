//! Liveness, readiness and Prometheus metrics.

use std::time::Duration;

use axum::Json;
use axum::extract::State;
use axum::http::StatusCode;
use axum::http::header::CONTENT_TYPE;
use axum::response::{IntoResponse, Response};
use serde::Serialize;
use utoipa::ToSchema;

use crate::api::AppState;
use crate::api::auth::tokens::authenticate;
use crate::domain::permission::Permission;
use crate::observability::cluster_view::{ClusterView, view};
use crate::queries::lag::{ConsumerLag, consumer_lags};
use axum::http::header::AUTHORIZATION;
use axum::http::request::Parts;

const CHECK_TIMEOUT: Duration = Duration::from_secs(2);

#[derive(Serialize, ToSchema)]
pub struct Health {
    pub status: &'static str,
}

/// The process is up.
#[utoipa::path(get, path = "/healthz", operation_id = "healthz",
    tag = "ops", responses((status = 200, body = Health)))]
pub async fn healthz() -> Json<Health> {
    Json(Health { status: "ok" })
}

#[derive(Serialize, ToSchema)]
pub struct Readiness {
    pub status: &'static str,
    pub postgres: bool,
    pub rabbitmq: bool,
    pub redis: bool,
    /// The dependencies that are down.
    pub down: Vec<&'static str>,
    /// How far the relay and each projection are behind the log (empty when
    /// Postgres did not answer in time). Lag does not make the API unready:
    /// it answers from the write model; alert on it instead (docs/reference/messaging.md).
    /// Only for a caller whose token grants `workers:read` (the details
    /// name queues and hosts; docs/design.md §19).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub lag: Option<Vec<ConsumerLag>>,
    /// Which member of each cluster serves this process (docs/design.md
    /// §17); only with `workers:read`, as `lag`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cluster: Option<ClusterView>,
}

/// Postgres, RabbitMQ and Redis answer; 503 names what is down. Open; with
/// a bearer token granting `workers:read`, also the lag and the clusters'
/// members.
#[utoipa::path(get, path = "/readyz", operation_id = "readyz", tag = "ops",
    responses((status = 200, body = Readiness), (status = 503, body = Readiness)))]
pub async fn readyz(State(state): State<AppState>, parts: Parts) -> Response {
    let details = parts.headers.contains_key(AUTHORIZATION)
        && authenticate(&parts, &state)
            .await
            .is_ok_and(|p| p.may(Permission::WorkersRead));
    let (postgres, rabbitmq, redis) = tokio::join!(
        check_postgres(&state),
        check_rabbitmq(&state),
        state.redis.ping(),
    );
    let (lag, cluster) = match details {
        true => {
            let cluster = view(&state.pool, &state.reads, &state.management, &state.redis);
            let (lag, cluster) = tokio::join!(read_lag(&state), cluster);
            (Some(lag), Some(cluster))
        }
        false => (None, None),
    };
    let down: Vec<&'static str> = [
        ("postgres", postgres),
        ("rabbitmq", rabbitmq),
        ("redis", redis),
    ]
    .into_iter()
    .filter_map(|(name, up)| (!up).then_some(name))
    .collect();
    let status = if down.is_empty() {
        StatusCode::OK
    } else {
        StatusCode::SERVICE_UNAVAILABLE
    };
    let body = Readiness {
        status: if down.is_empty() {
            "ready"
        } else {
            "unavailable"
        },
        postgres,
        rabbitmq,
        redis,
        down,
        lag,
        cluster,
    };
    (status, Json(body)).into_response()
}

async fn check_postgres(state: &AppState) -> bool {
    let check = async {
        let client = state.pool.get().await.ok()?;
        client.simple_query("SELECT 1").await.ok()
    };
    matches!(
        tokio::time::timeout(CHECK_TIMEOUT, check).await,
        Ok(Some(_))
    )
}

async fn read_lag(state: &AppState) -> Vec<ConsumerLag> {
    let read = async {
        let client = state.pool.get().await.ok()?;
        consumer_lags(&**client).await.ok()
    };
    match tokio::time::timeout(CHECK_TIMEOUT, read).await {
        Ok(Some(lag)) => lag,
        _ => Vec::new(),
    }
}

async fn check_rabbitmq(state: &AppState) -> bool {
    let connect = crate::messaging::connect(&state.amqp_url, "couponledger-readiness");
    match tokio::time::timeout(CHECK_TIMEOUT, connect).await {
        Ok(Ok(conn)) => {
            let _ = conn.close(200, "readiness check".into()).await;
            true
        }
        _ => false,
    }
}

/// Prometheus text exposition.
#[utoipa::path(get, path = "/metrics", operation_id = "metrics", tag = "ops",
    responses((status = 200, body = String,
        content_type = "application/openmetrics-text; version=1.0.0; charset=utf-8",
        description = "The request counters and latency histograms, OpenMetrics text.")))]
pub async fn metrics(State(state): State<AppState>) -> Response {
    let mut text = String::new();
    if prometheus_client::encoding::text::encode(&mut text, &state.metrics.registry).is_err() {
        return StatusCode::INTERNAL_SERVER_ERROR.into_response();
    }
    (
        [(
            CONTENT_TYPE,
            "application/openmetrics-text; version=1.0.0; charset=utf-8",
        )],
        text,
    )
        .into_response()
}
