//! The record of `ledger audit verify` runs (table `audit_verifications`),
//! which the console's finance page shows as the audit status.

use chrono::{DateTime, Utc};
use tokio_postgres::GenericClient;

use super::chain::{Hash, from_bytes};

/// One verify run and its verdict.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct VerifyRun {
    pub started_at: DateTime<Utc>,
    pub finished_at: DateTime<Utc>,
    pub from_checkpoint: Option<i64>,
    /// Whether a head kept outside was checked (`--expect`).
    pub expected_head: bool,
    /// Events checked (when intact).
    pub events: i64,
    /// The chain's head it verified (when intact).
    pub head: Option<Hash>,
    /// What it found; None: intact.
    pub finding: Option<String>,
}

pub async fn record(
    client: &impl GenericClient,
    run: &VerifyRun,
) -> Result<(), tokio_postgres::Error> {
    let head = run.head.map(|h| h.to_vec());
    client
        .execute(
            "INSERT INTO audit_verifications (started_at, finished_at, from_checkpoint,
                 expected_head, intact, events, head, finding)
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8)",
            &[
                &run.started_at,
                &run.finished_at,
                &run.from_checkpoint,
                &run.expected_head,
                &run.finding.is_none(),
                &run.events,
                &head,
                &run.finding,
            ],
        )
        .await?;
    Ok(())
}

/// The latest run, if any.
pub async fn last(client: &impl GenericClient) -> Result<Option<VerifyRun>, tokio_postgres::Error> {
    let row = client
        .query_opt(
            "SELECT started_at, finished_at, from_checkpoint, expected_head, events, head, finding
               FROM audit_verifications ORDER BY id DESC LIMIT 1",
            &[],
        )
        .await?;
    Ok(row.map(|r| VerifyRun {
        started_at: r.get(0),
        finished_at: r.get(1),
        from_checkpoint: r.get(2),
        expected_head: r.get(3),
        events: r.get(4),
        head: r.get::<_, Option<Vec<u8>>>(5).map(from_bytes),
        finding: r.get(6),
    }))
}
