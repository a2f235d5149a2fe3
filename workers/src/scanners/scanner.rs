//! The scanner: every interval, expires unused coupons past their expiry,
//! voids the unused coupons of void templates (docs/design.md §15) and
//! releases order locks that timed out, in bounded batches. All
//! commands lock their rows with SKIP LOCKED and go through the coupon
//! state machine, so two scanners never apply the same change twice. Then
//! it prunes what the ledger only remembers for a while
//! (`ledger::exactly_once::retention`) and the jobs that ended longer ago than their
//! retention (`commands::job_purge`), re-publishes package jobs left
//! queued without a message ([`super::requeue`]), and makes the event
//! store's next partitions ahead of the appends (`store::partitions`,
//! docs/design.md §16).

use std::time::Duration;

use deadpool_postgres::Pool;
use ledger::commands::{coupons, job_purge, orders, template_void};
use ledger::exactly_once::retention;

use super::requeue::Requeue;
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
        if let Err(e) = make_partitions_ahead(&pool).await {
            tracing::warn!(
                error = ledger::logging::chain(e.as_ref()),
                "making the event store's partitions ahead failed; next interval retries"
            );
        }
        shutdown.sleep(keeping.interval).await;
    }
    Ok(())
}

/// The event store's partitions due ahead; one whose lock on `events` did
/// not come within its timeout is made at a later round.
async fn make_partitions_ahead(pool: &Pool) -> anyhow::Result<()> {
    let mut client = pool.get().await?;
    let tx = client.transaction().await?;
    if ledger::store::partitions::make_ahead(&tx).await? {
        tx.commit().await?;
    } else {
        tracing::info!("partitions not made this round: events was busy");
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

/// What one sweep changed.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Swept {
    pub expired: usize,
    pub released: usize,
    pub voided: usize,
}

impl Swept {
    fn add(self, o: Swept) -> Swept {
        Swept {
            expired: self.expired + o.expired,
            released: self.released + o.released,
            voided: self.voided + o.voided,
        }
    }

    /// Some batch was full: there may be more.
    fn full(&self) -> bool {
        let full = |n: usize| n == usize::try_from(BATCH).unwrap_or(usize::MAX);
        full(self.expired) || full(self.released) || full(self.voided)
    }
}

/// One sweep of the three commands.
pub async fn sweep(pool: &Pool, shutdown: &Shutdown) -> anyhow::Result<Swept> {
    let mut totals = Swept::default();
    for _ in 0..MAX_BATCHES {
        let swept = batch(pool).await?;
        totals = totals.add(swept);
        if shutdown.is_set() || !swept.full() {
            break;
        }
    }
    let pruned = prune(pool, shutdown).await?;
    if totals != Swept::default() || pruned > 0 {
        tracing::info!(
            expired = totals.expired,
            released = totals.released,
            voided = totals.voided,
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

async fn batch(pool: &Pool) -> anyhow::Result<Swept> {
    let now = ledger::store::now();
    let mut client = pool.get().await?;
    let tx = client.transaction().await?;
    let expired = coupons::expire_coupons(&tx, now, BATCH).await?;
    tx.commit().await?;
    let tx = client.transaction().await?;
    let released = orders::release_expired_locks(&tx, now, BATCH).await?;
    tx.commit().await?;
    let tx = client.transaction().await?;
    let voided = template_void::void_due(&tx, now, BATCH).await?;
    tx.commit().await?;
    Ok(Swept {
        expired,
        released,
        voided,
    })
}
