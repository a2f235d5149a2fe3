//! Reads that tolerate a bounded lag (docs/design.md §17): wallets, a
//! user's balance, a template's stats and the liability report may go to a
//! streaming replica (`DATABASE_REPLICA_URL`) while it is at most
//! `LEDGER_REPLICA_MAX_LAG_MS` behind; otherwise, and without a replica,
//! to the primary. A watcher measures the replica's lag twice a second; a
//! replica that does not answer counts as too far behind.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicI64, Ordering};
use std::time::Duration;

use deadpool_postgres::Pool;

/// How often the replica's lag is measured.
const WATCH_EVERY: Duration = Duration::from_millis(500);
/// How long a measurement may take before the replica counts as behind.
const WATCH_TIMEOUT: Duration = Duration::from_secs(1);
/// Connections to the replica: reads only, fewer than the primary's.
pub const REPLICA_POOL_SIZE: usize = 16;

/// The replica's lag in milliseconds: 0 when it has replayed all it
/// received (an idle primary sends nothing, so the replay time would
/// grow with no lag at all), and 0 on a primary (a replica promoted).
const LAG_SQL: &str = "SELECT CASE
      WHEN NOT pg_is_in_recovery() THEN 0
      WHEN pg_last_wal_receive_lsn() = pg_last_wal_replay_lsn() THEN 0
      ELSE coalesce((extract(epoch FROM now() - pg_last_xact_replay_timestamp()) * 1000)::bigint, 0)
    END";

#[derive(Clone)]
pub struct ReadPool {
    primary: Pool,
    replica: Option<Replica>,
}

#[derive(Clone)]
struct Replica {
    pool: Pool,
    fresh: Arc<AtomicBool>,
    /// The last lag measured, in ms (-1: unknown, the replica did not answer).
    lag_ms: Arc<AtomicI64>,
}

impl ReadPool {
    /// Every read on the primary.
    pub fn primary_only(primary: Pool) -> Self {
        ReadPool {
            primary,
            replica: None,
        }
    }

    /// Reads on `replica` while its lag is within `max_lag`; spawns the
    /// watcher (on the current runtime) that decides.
    pub fn with_replica(primary: Pool, replica: Pool, max_lag: Duration) -> Self {
        let replica = Replica {
            pool: replica,
            fresh: Arc::new(AtomicBool::new(false)),
            lag_ms: Arc::new(AtomicI64::new(-1)),
        };
        tokio::spawn(watch(replica.clone(), max_lag));
        ReadPool {
            primary,
            replica: Some(replica),
        }
    }

    /// The pool a lag-tolerant read uses now.
    pub fn pick(&self) -> &Pool {
        match &self.replica {
            Some(r) if r.fresh.load(Ordering::Relaxed) => &r.pool,
            _ => &self.primary,
        }
    }

    /// The replica's last measured lag (None: no replica, or it did not answer).
    pub fn replica_lag_ms(&self) -> Option<i64> {
        let lag = self.replica.as_ref()?.lag_ms.load(Ordering::Relaxed);
        (lag >= 0).then_some(lag)
    }

    /// Whether reads go to the replica now.
    pub fn on_replica(&self) -> bool {
        self.replica
            .as_ref()
            .is_some_and(|r| r.fresh.load(Ordering::Relaxed))
    }
}

async fn watch(replica: Replica, max_lag: Duration) {
    let max = i64::try_from(max_lag.as_millis()).unwrap_or(i64::MAX);
    loop {
        let measured = tokio::time::timeout(WATCH_TIMEOUT, lag(&replica.pool)).await;
        let lag = match measured {
            Ok(Ok(lag)) => lag,
            Ok(Err(e)) => {
                tracing::debug!(error = %e, "replica lag not measured");
                -1
            }
            Err(_) => -1,
        };
        replica.lag_ms.store(lag, Ordering::Relaxed);
        let fresh = (0..=max).contains(&lag);
        if replica.fresh.swap(fresh, Ordering::Relaxed) != fresh {
            tracing::info!(lag_ms = lag, fresh, "replica reads switched");
        }
        tokio::time::sleep(WATCH_EVERY).await;
    }
}

async fn lag(pool: &Pool) -> anyhow::Result<i64> {
    let client = pool.get().await?;
    Ok(client.query_one(LAG_SQL, &[]).await?.get(0))
}
