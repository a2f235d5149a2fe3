//! `ledger replay --verify`: rebuild every projection and write-model table
//! from `events` (in memory, in the store's commit-safe order) and compare
//! them, column by column, with the live tables. Finance's proof that the
//! tables are what the log says.
//!
//! Memory holds the replayed side only, and a bounded part of it: the
//! coupons are folded in passes ([`partition`]), each over the coupons
//! whose stream id hashes to it (and the orders that touch them), and the
//! per-user tables in as many buckets of users, once every pass has folded
//! its coupons (the passes before the last spill their part to disk). The
//! live tables are streamed past, each pass and bucket reading its own
//! rows; everything reads one exported snapshot.
//!
//! The fold is pure: it and all it imports ([`event`], [`tables`],
//! [`codes_fold`], [`keys_fold`], [`budgets_fold`], [`template_fold`], [`notify_steps`] and `domain`) do no I/O and import no
//! Postgres client. The side that reads the live tables ([`live`],
//! [`codes_live`], [`notify`], ...) imports those pure files, never the
//! other way round, so the modules import one another without a cycle.
//!
//! - [`event`]: one stored event, as the folds read it.
//! - [`tables`]: the compared rows, one shape for both sides, and what a
//!   pass holds of its coupons and orders.
//! - [`fold`]: events → tables (pure); [`template_fold`]: templates,
//!   allow-lists and channels, events → rows (pure).
//! - [`codes_fold`]: redemption codes and packages, events → rows (pure);
//!   [`keys_fold`]: app keys, events → rows (pure); [`budgets_fold`]:
//!   templates' budgets, from their templates' and orders' events (pure).
//! - [`notify_steps`]: the reminder steps the fold records (pure).
//! - [`partition`]: how many passes, and which rows each reads.
//! - `run`: the passes of a verification, then the tables they added to
//!   (templates', codes' and packages', template stats).
//! - [`pass`]: one pass: copy its events out, fold, compare its rows.
//! - [`spill`]: what the passes leave on disk for the buckets of users.
//! - [`holdings`]: claims and balances from the coupons.
//! - [`notify`]: `notify_msg` (pending / cancelled) rebuilt from the steps
//!   and compared.
//! - [`users`]: the buckets of users, compared on both connections.
//! - [`live`]: the live tables, streamed and compared row by row.
//! - [`codes_live`]: the codes' and packages' live tables, compared;
//!   [`keys_live`]: the app keys'; [`templates_live`]: templates',
//!   allow-lists', channels', totals' and budgets'.
//! - [`compare`]: the differences (table, key, field, live vs replayed).
//! - [`lag`]: how far each projection is behind the log, so differences in
//!   its tables while it catches up are told apart from corruption.

pub(crate) mod budgets_fold;
pub(crate) mod codes_fold;
pub(crate) mod codes_live;
pub(crate) mod compare;
pub(crate) mod event;
pub(crate) mod fold;
pub(crate) mod holdings;
pub(crate) mod keys_fold;
pub(crate) mod keys_live;
pub mod lag;
pub(crate) mod live;
pub(crate) mod notify;
pub(crate) mod notify_steps;
pub mod partition;
pub(crate) mod pass;
mod run;
pub(crate) mod spill;
pub(crate) mod tables;
pub(crate) mod template_fold;
pub(crate) mod templates_live;
pub(crate) mod users;

use std::sync::Arc;
use std::time::{Duration, Instant};

use tokio_postgres::GenericClient;

use crate::domain::projection::Projection;
use crate::projections::notify::NotifyClock;

pub use compare::{Difference, Differences};
pub use lag::Lag;
pub use partition::Partitions;

/// What `notify_msg` is checked with: the clock the projection used, and
/// which rows the retention may have purged by `now`.
#[derive(Clone, Copy, Debug)]
pub struct NotifyCheck {
    pub clock: NotifyClock,
    pub now: chrono::DateTime<chrono::Utc>,
    pub retention: chrono::Duration,
}

/// What a verification found, and how long its two phases took.
#[derive(Debug)]
pub struct Report {
    pub events: u64,
    pub differences: Differences,
    /// Folding the events (coupons and write-model tables), every pass.
    pub fold: Duration,
    /// Adding up the projections and claims, and comparing with the live tables.
    pub compare: Duration,
    /// Where each projection stood in the snapshot.
    pub lags: Vec<Lag>,
    /// The passes it made.
    pub partitions: Partitions,
}

/// How far a verification is, for a progress bar.
#[derive(Clone, Copy, Debug)]
pub struct Progress {
    /// Events folded so far, over every pass.
    pub events: u64,
    /// The pass folding (from 0), of `passes`.
    pub pass: u32,
    pub passes: u32,
}

/// What a verification concludes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// The live tables are what the log says.
    Agree,
    /// Every difference is in the tables of a projection behind the log.
    Lag,
    /// Some difference is not explained by lag.
    Differ,
}

impl Report {
    /// The tables of the projections that were behind the log.
    fn lagging_tables(&self) -> Vec<&'static str> {
        let behind = self.lags.iter().filter(|l| l.is_behind());
        behind
            .flat_map(|l| l.projection.tables().iter().copied())
            .collect()
    }

    /// Whether `table` belongs to a projection that was behind the log.
    pub fn is_lag(&self, table: &str) -> bool {
        self.lagging_tables().contains(&table)
    }

    /// Whether lag can explain `d`: its table's projection was behind, and
    /// it is not a row that no prefix of the log makes.
    pub fn explains(&self, d: &Difference) -> bool {
        self.is_lag(d.table) && !(d.live_only && lag::keys_kept(d.table))
    }

    /// The differences lag does not explain.
    pub fn unexplained(&self) -> u64 {
        let d = &self.differences;
        let explained: u64 = self
            .lagging_tables()
            .iter()
            .map(|t| {
                let cannot = if lag::keys_kept(t) {
                    d.live_only_in(t)
                } else {
                    0
                };
                d.in_tables(&[t]) - cannot
            })
            .sum();
        d.len() - explained
    }

    pub fn verdict(&self) -> Verdict {
        if self.differences.is_empty() {
            Verdict::Agree
        } else if self.unexplained() == 0 {
            Verdict::Lag
        } else {
            Verdict::Differ
        }
    }
}

#[derive(Debug, thiserror::Error)]
pub enum ReplayError {
    #[error(transparent)]
    Db(#[from] tokio_postgres::Error),
    #[error("spilling the coupons to disk: {0}")]
    Spill(#[from] std::io::Error),
    #[error("comparing the buckets of users: {0}")]
    Apart(String),
    #[error("event at position {position} ({stream_id} v{version}): {source}")]
    Event {
        position: i64,
        stream_id: String,
        version: i32,
        source: fold::FoldError,
    },
}

/// Replays every event and compares, in one snapshot: the log and the
/// tables agree on a moment, and what commits meanwhile is in neither.
/// `partitions` says how many passes to make (none: as many as the store
/// needs to stay within the memory bound, see [`partition`]). The buckets
/// of users are compared on a thread and connection of their own, in the
/// same snapshot, while the last pass compares its coupons.
pub async fn verify(
    config: &tokio_postgres::Config,
    reminders: NotifyCheck,
    partitions: Option<Partitions>,
    mut progress: impl FnMut(Progress),
) -> Result<Report, ReplayError> {
    let mut client = crate::db::connect(config).await?;
    let tx = crate::db::read_only_snapshot(&mut client).await?;
    let snapshot: String = tx
        .query_one("SELECT pg_export_snapshot()", &[])
        .await?
        .get(0);
    let lags = lag::lags(&tx).await?;
    let started = Instant::now();
    // A deployment that never ran the notify worker has no reminders to check.
    let notify_ran = lags.iter().any(|l| l.projection == Projection::Notify);
    let (partitions, presize) = run::plan(&tx, partitions, notify_ran).await?;
    let spill = Arc::new(spill::Spill::new(partitions.buckets())?);
    let buckets = users::Buckets {
        config: config.clone(),
        snapshot,
        partitions,
        spill: Arc::clone(&spill),
        reminders: notify_ran.then_some((reminders.now, reminders.retention)),
    };
    let clock = notify_ran.then_some(reminders.clock);
    let mut passes = run::Passes::new(&tx, partitions, clock, spill);
    let folded = passes.all(presize, buckets, &mut progress).await?;
    tx.rollback().await?;
    let run::Folded {
        events,
        fold,
        differences,
    } = folded;
    Ok(Report {
        events,
        differences,
        fold,
        compare: started.elapsed() - fold,
        lags,
        partitions,
    })
}

/// The events in the store's order, the columns the fold reads, as a binary
/// COPY: the log as Postgres hands it over, the baseline of the benches
/// (a pass reads the same with its partition columns, see
/// [`partition::Partitions::events`]).
pub const EVENTS: &str = "COPY (SELECT position, stream_id, stream_version, event_type, payload,
                             occurred_at, schema_version FROM events ORDER BY tx_id, position)
                      TO STDOUT (FORMAT binary)";

/// Postgres' estimate of `table`'s rows (no scan): for sizing maps and
/// progress bars, where a wrong one only costs regrowing or a wrong bar.
pub async fn estimated_rows(
    client: &impl GenericClient,
    table: &str,
) -> Result<u64, tokio_postgres::Error> {
    let row = client
        .query_one(
            "SELECT greatest(reltuples, 0)::bigint FROM pg_class WHERE oid = $1::text::regclass",
            &[&table],
        )
        .await?;
    Ok(u64::try_from(row.get::<_, i64>(0)).unwrap_or(0))
}

#[cfg(test)]
mod tests {
    use super::tables::ClaimsRow;
    use super::*;
    use crate::domain::projection::Projection::{self, Balances, TemplateStats};

    fn report(tables: &[&'static str], behind: &[Projection]) -> Report {
        let mut differences = Differences::default();
        for table in tables {
            differences.row(table, "k", Some(&ClaimsRow { claimed: 1 }), None);
        }
        let lag = |projection| Lag {
            projection,
            position: Some(5),
            head: Some(7),
            behind: if behind.contains(&projection) { 2 } else { 0 },
        };
        Report {
            events: 7,
            differences,
            fold: Duration::ZERO,
            compare: Duration::ZERO,
            lags: vec![lag(Balances), lag(TemplateStats)],
            partitions: Partitions::ONE,
        }
    }

    #[test]
    fn differences_are_lag_only_in_the_tables_of_a_projection_behind() {
        assert_eq!(report(&[], &[Balances]).verdict(), Verdict::Agree);
        let lagging = report(&["balances"], &[Balances]);
        assert_eq!(
            (lagging.verdict(), lagging.unexplained()),
            (Verdict::Lag, 0)
        );
        let mut stats = report(&[], &[TemplateStats]);
        for table in ["template_stats", "template_totals"] {
            let (live, replayed) = (ClaimsRow { claimed: 1 }, ClaimsRow { claimed: 2 });
            stats
                .differences
                .row(table, "k", Some(&live), Some(&replayed));
        }
        assert_eq!(stats.verdict(), Verdict::Lag);
        // A template's row that the log does not make at all is never lag.
        let foreign = report(&["template_stats"], &[TemplateStats]);
        assert_eq!(foreign.verdict(), Verdict::Differ);
        assert!(!foreign.explains(&foreign.differences.listed[0]));
        // Caught up, the same difference is corruption.
        assert_eq!(
            report(&["balances"], &[TemplateStats]).verdict(),
            Verdict::Differ
        );
        // The write model is never lag.
        let mixed = report(&["balances", "coupons"], &[Balances, TemplateStats]);
        assert_eq!((mixed.verdict(), mixed.unexplained()), (Verdict::Differ, 1));
        assert!(mixed.is_lag("balances") && !mixed.is_lag("coupons"));
    }
}
