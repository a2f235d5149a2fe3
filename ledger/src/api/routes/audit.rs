//! `GET /v1/audit/status`: where the hash chain stands, for the console's
//! finance page: events sealed, the last checkpoint (the line finance keeps
//! outside the database) and the last `ledger audit verify` and its verdict.

use axum::Json;
use axum::extract::State;
use chrono::{DateTime, Utc};
use serde::Serialize;
use utoipa::ToSchema;

use crate::api::AppState;
use crate::api::auth::principal::Principal;
use crate::api::http::error::{ApiError, ErrorBody};
use crate::audit::chain::to_hex;
use crate::audit::runs::{self, VerifyRun};
use crate::audit::seal::{self, Checkpoint};

#[derive(Serialize, ToSchema)]
pub struct AuditStatus {
    /// Events the sealer has chained.
    pub sealed_events: i64,
    pub last_checkpoint: Option<CheckpointView>,
    pub last_verify: Option<VerifyView>,
}

#[derive(Serialize, ToSchema)]
pub struct CheckpointView {
    pub id: i64,
    pub created_at: DateTime<Utc>,
    pub first_seq: i64,
    pub last_seq: i64,
    pub min_position: i64,
    pub max_position: i64,
    /// The chain's head at `last_seq`, hex.
    pub head: String,
    /// The checkpoint as `ledger audit checkpoints` prints it.
    pub line: String,
}

#[derive(Serialize, ToSchema)]
pub struct VerifyView {
    pub started_at: DateTime<Utc>,
    pub finished_at: DateTime<Utc>,
    pub from_checkpoint: Option<i64>,
    /// Whether a head kept outside the database was checked (`--expect`).
    pub expected_head: bool,
    pub intact: bool,
    pub events: i64,
    pub head: Option<String>,
    /// The first thing that differed; null when intact.
    pub finding: Option<String>,
}

/// The hash chain's state and the last verification.
#[utoipa::path(get, path = "/v1/audit/status", operation_id = "audit_status", tag = "finance",
    security(("admin" = [])),
    responses((status = 200, body = AuditStatus), (status = 401, body = ErrorBody),
        (status = 403, body = ErrorBody)))]
pub async fn status(
    State(state): State<AppState>,
    _: Principal,
) -> Result<Json<AuditStatus>, ApiError> {
    let client = state.pool.get().await?;
    let head = seal::head(&**client).await?;
    let checkpoint = seal::last_checkpoint(&**client).await?;
    let verify = runs::last(&**client).await?;
    Ok(Json(AuditStatus {
        sealed_events: head.seq,
        last_checkpoint: checkpoint.as_ref().map(checkpoint_view),
        last_verify: verify.map(verify_view),
    }))
}

fn checkpoint_view(c: &Checkpoint) -> CheckpointView {
    CheckpointView {
        id: c.id,
        created_at: c.created_at,
        first_seq: c.first_seq,
        last_seq: c.last_seq,
        min_position: c.min_position,
        max_position: c.max_position,
        head: to_hex(&c.head),
        line: c.to_string(),
    }
}

fn verify_view(r: VerifyRun) -> VerifyView {
    VerifyView {
        started_at: r.started_at,
        finished_at: r.finished_at,
        from_checkpoint: r.from_checkpoint,
        expected_head: r.expected_head,
        intact: r.finding.is_none(),
        events: r.events,
        head: r.head.as_ref().map(to_hex),
        finding: r.finding,
    }
}
