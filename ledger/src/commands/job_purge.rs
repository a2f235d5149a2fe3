//! Ended jobs are kept `LEDGER_JOB_RETENTION_DAYS` (default 90) after they
//! ended, then purged by the scanner with what only they use: an issuance
//! job's chunks and its report's lines, a package job's row. Their coupons
//! and events stay: the log is the history, a job only told its caller how
//! the work went. Uploads silent for the whole retention (never resumed)
//! go too.

use chrono::{DateTime, Duration, Utc};
use tokio_postgres::GenericClient;
use uuid::Uuid;

use crate::domain::issuance::IssuanceJobStatus;
use crate::domain::package_job::PackageJobStatus;

/// Rows one statement deletes: a 10M-line job's report is deleted in
/// bounded steps, never one long lock and one burst of WAL.
pub const ROWS_PER_STATEMENT: i64 = 10_000;
/// Issuance jobs purged per call (the scanner calls again while it is full).
pub const JOBS_PER_CALL: i64 = 10;

/// What one [`purge`] deleted.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Purged {
    pub issuance_jobs: u64,
    pub package_jobs: u64,
    /// Report lines of the issuance jobs.
    pub lines: u64,
}

impl Purged {
    pub fn total(&self) -> u64 {
        self.issuance_jobs + self.package_jobs
    }
}

/// Purges the jobs that ended before `now - retention`.
pub async fn purge(
    client: &impl GenericClient,
    now: DateTime<Utc>,
    retention: Duration,
) -> Result<Purged, tokio_postgres::Error> {
    let before = now - retention;
    let mut purged = Purged::default();
    for job in ended_issuance_jobs(client, before).await? {
        purged.lines += delete_lines(client, job).await?;
        client
            .execute("DELETE FROM issuance_chunks WHERE job_id = $1", &[&job])
            .await?;
        purged.issuance_jobs += client
            .execute("DELETE FROM issuance_jobs WHERE id = $1", &[&job])
            .await?;
    }
    purged.package_jobs = client
        .execute(
            "DELETE FROM package_jobs WHERE ctid = ANY(ARRAY(
                 SELECT ctid FROM package_jobs
                  WHERE status <> $3 AND finished_at < $1
                  LIMIT $2 FOR UPDATE SKIP LOCKED))",
            &[
                &before,
                &ROWS_PER_STATEMENT,
                &PackageJobStatus::Queued.as_str(),
            ],
        )
        .await?;
    Ok(purged)
}

/// Issuance jobs ended (or silent) since before `before`, oldest first.
async fn ended_issuance_jobs(
    client: &impl GenericClient,
    before: DateTime<Utc>,
) -> Result<Vec<Uuid>, tokio_postgres::Error> {
    // Ended, or an upload that broke off (or went silent) and was never resumed.
    use IssuanceJobStatus as S;
    let ended = S::final_names();
    let uploads = [S::Uploading.as_str(), S::Incomplete.as_str()];
    let rows = client
        .query(
            "SELECT id FROM issuance_jobs
              WHERE (status = ANY($3) AND finished_at < $1)
                 OR (status = ANY($4) AND updated_at < $1)
              ORDER BY created_at LIMIT $2",
            &[&before, &JOBS_PER_CALL, &ended, &uploads.as_slice()],
        )
        .await?;
    Ok(rows.iter().map(|r| r.get(0)).collect())
}

async fn delete_lines(
    client: &impl GenericClient,
    job: Uuid,
) -> Result<u64, tokio_postgres::Error> {
    let sql = "DELETE FROM issuance_lines WHERE ctid = ANY(ARRAY(
                   SELECT ctid FROM issuance_lines WHERE job_id = $1 LIMIT $2))";
    let mut total = 0;
    loop {
        let n = client.execute(sql, &[&job, &ROWS_PER_STATEMENT]).await?;
        total += n;
        if n < ROWS_PER_STATEMENT.unsigned_abs() {
            return Ok(total);
        }
    }
}
