//! The scanner: every interval, expires unused coupons past their expiry
//! and releases order locks that timed out, in bounded batches. Both
//! commands lock their rows with SKIP LOCKED and go through the coupon
//! state machine, so two scanners never apply the same change twice. Then
//! it prunes what the ledger only remembers for a while
//! (`ledger::retention`) and the jobs that ended longer ago than their
//! retention (`commands::job_purge`), and re-publishes package jobs left
//! queued without a message ([`crate::requeue`]).

use std::time::Duration;

use deadpool_postgres::Pool;
use ledger::commands::{coupons, job_purge, orders};
use ledger::retention;

use crate::requeue::Requeue;
use crate::shutdown::Shutdown;

/// Rows changed per transaction.
pub const BATCH: i64 = 500;
/// Batches per sweep, so one sweep cannot run forever.
const MAX_BATCHES: usize = 200;

/// How the scanner keeps the tables it prunes.
pub struct Keeping {
    pub interval: Duration,
    /// How long an ended job is kept.
    pub jobs: chrono::Duration,
}

pub async fn run(
    pool: Pool,
    keeping: Keeping,
    mut requeue: Requeue,
    mut shutdown: Shutdown,
) -> anyhow::Result<()> {
    while !shutdown.is_set() {
        if let Err(e) = purge_jobs(&pool, keeping.jobs, &shutdown).await {
            tracing::warn!(
                error = ledger::logging::chain(e.as_ref()),
                "purging ended jobs failed; next interval retries"
            );
        }
        if let Err(e) = sweep(&pool, &shutdown).await {
            tracing::warn!(
                error = ledger::logging::chain(e.as_ref()),
                "scanner sweep failed; next interval retries"
            );
        }
        if let Err(e) = requeue.sweep(&pool).await {
            tracing::warn!(
                error = ledger::logging::chain(e.as_ref()),
                "re-publishing queued package jobs failed; next interval retries"
            );
        }
        shutdown.sleep(keeping.interval).await;
    }
    Ok(())
}

/// Purges ended jobs past their retention, a bounded number of rounds.
async fn purge_jobs(
    pool: &Pool,
    retention: chrono::Duration,
    shutdown: &Shutdown,
) -> anyhow::Result<()> {
    let client = pool.get().await?;
    for _ in 0..MAX_BATCHES {
        let purged = job_purge::purge(&**client, ledger::store::now(), retention).await?;
        if purged.total() > 0 {
            tracing::info!(?purged, "ended jobs purged");
        }
        let full = purged.issuance_jobs == job_purge::JOBS_PER_CALL.unsigned_abs()
            || purged.package_jobs == job_purge::ROWS_PER_STATEMENT.unsigned_abs();
        if shutdown.is_set() || !full {
            break;
        }
    }
    Ok(())
}

/// One sweep of both commands; returns (expired, released).
pub async fn sweep(pool: &Pool, shutdown: &Shutdown) -> anyhow::Result<(usize, usize)> {
    let mut totals = (0, 0);
    for _ in 0..MAX_BATCHES {
        let (expired, released) = batch(pool).await?;
        totals = (totals.0 + expired, totals.1 + released);
        let full = |n: usize| n == usize::try_from(BATCH).unwrap_or(usize::MAX);
        if shutdown.is_set() || !(full(expired) || full(released)) {
            break;
        }
    }
    let pruned = prune(pool, shutdown).await?;
    if totals != (0, 0) || pruned > 0 {
        tracing::info!(
            expired = totals.0,
            released = totals.1,
            pruned,
            "scanner sweep"
        );
    }
    Ok(totals)
}

/// Prunes by age, a bounded number of batches; returns the rows deleted.
async fn prune(pool: &Pool, shutdown: &Shutdown) -> anyhow::Result<u64> {
    let client = pool.get().await?;
    let mut total = 0;
    for _ in 0..MAX_BATCHES {
        let pruned = retention::prune(&**client, ledger::store::now()).await?;
        total += pruned.total();
        if shutdown.is_set() || !pruned.full() {
            break;
        }
    }
    Ok(total)
}

async fn batch(pool: &Pool) -> anyhow::Result<(usize, usize)> {
    let now = ledger::store::now();
    let mut client = pool.get().await?;
    let tx = client.transaction().await?;
    let expired = coupons::expire_coupons(&tx, now, BATCH).await?;
    tx.commit().await?;
    let tx = client.transaction().await?;
    let released = orders::release_expired_locks(&tx, now, BATCH).await?;
    tx.commit().await?;
    Ok((expired, released))
}
