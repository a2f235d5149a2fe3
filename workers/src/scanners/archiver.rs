//! The archiver (docs/design.md §16): every interval, moves the coupons
//! that ended more than `LEDGER_ARCHIVE_AFTER_DAYS` ago from `coupons` to
//! `coupons_archive`, oldest first, one statement per batch. Each batch
//! commits whole or not at all, so a kill loses nothing and the next run
//! goes on where it stopped; two archivers skip each other's rows. A
//! sweep that emptied most of `coupons` rebuilds its indexes (`cold::compact`).

use std::time::Duration;

use deadpool_postgres::Pool;
use ledger::cold::{archive, compact};

use crate::shutdown::Shutdown;

/// Batches per sweep (25M coupons at the default batch): a backlog after a
/// long outage drains over several sweeps, each ending to look at shutdown.
const MAX_BATCHES: usize = 5_000;

pub async fn run(
    pool: Pool,
    after_days: u32,
    interval: Duration,
    mut shutdown: Shutdown,
) -> anyhow::Result<()> {
    while !shutdown.is_set() {
        if let Err(e) = sweep(&pool, after_days, &shutdown).await {
            tracing::warn!(
                error = ledger::logging::chain(e.as_ref()),
                "archiving ended coupons failed; next interval retries"
            );
        }
        shutdown.sleep(interval).await;
    }
    Ok(())
}

/// Moves what is due now, a bounded number of batches; returns how many.
pub async fn sweep(pool: &Pool, after_days: u32, shutdown: &Shutdown) -> anyhow::Result<u64> {
    let client = pool.get().await?;
    let before = archive::cutoff(ledger::store::now(), after_days);
    let mut batches = 0;
    let total = archive::move_all(&**client, before, archive::DEFAULT_BATCH, |_| {
        batches += 1;
        batches < MAX_BATCHES && !shutdown.is_set()
    })
    .await?;
    if total > 0 {
        tracing::info!(moved = total, %before, "ended coupons archived");
    }
    if total >= compact::MIN_MOVED && !shutdown.is_set() {
        let remaining = compact::remaining(&**client).await?;
        if compact::worth_rebuilding(total, remaining) {
            let rebuilt = compact::rebuild_indexes(&**client).await?;
            tracing::info!(moved = total, remaining, indexes = ?rebuilt, "hot indexes rebuilt");
        }
    }
    Ok(total)
}
