//! `ledger replay --verify`: rebuild every projection and write-model table
//! from `events` (in memory, in the store's commit-safe order) and compare
//! them, column by column, with the live tables. Finance's proof that the
//! tables are what the log says.
//!
//! Memory holds the replayed side only (what the log says of each coupon,
//! order, template, user and bucket): the live tables are streamed past it.
//!
//! - [`tables`]: the compared rows, one shape for both sides.
//! - [`fold`]: events → tables (pure).
//! - [`live`]: the live tables, streamed and compared row by row.
//! - [`compare`]: the differences (table, key, field, live vs replayed).
//! - [`notify`]: `notify_msg` (pending / cancelled) from the events, compared.
//! - [`lag`]: how far each projection is behind the log, so differences in
//!   its tables while it catches up are told apart from corruption.

pub mod compare;
pub mod fold;
pub mod lag;
pub mod live;
pub mod notify;
pub mod tables;

use futures_util::{TryStreamExt, pin_mut};
use std::sync::Arc;
use std::time::{Duration, Instant};

use tokio::sync::oneshot;
use tokio_postgres::binary_copy::BinaryCopyOutStream;
use tokio_postgres::types::{FromSql, Type};
use tokio_postgres::{Client, GenericClient, Transaction};

use uuid::Uuid;

use self::tables::{Counts, Map, Names};
use crate::projections::notify::{NOTIFY, NotifyClock};

pub use compare::{Difference, Differences};
pub use lag::Lag;

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
    /// Folding the events (coupons and write-model tables).
    pub fold: Duration,
    /// Adding up the projections and claims, and comparing with the live tables.
    pub compare: Duration,
    /// Where each projection stood in the snapshot.
    pub lags: Vec<Lag>,
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
            .flat_map(|l| lag::tables_of(l.projection).iter().copied())
            .collect()
    }

    /// Whether `table` belongs to a projection that was behind the log.
    pub fn is_lag(&self, table: &str) -> bool {
        self.lagging_tables().contains(&table)
    }

    /// The differences lag does not explain.
    pub fn unexplained(&self) -> u64 {
        self.differences.len() - self.differences.in_tables(&self.lagging_tables())
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
    #[error("comparing the counts: {0}")]
    Apart(String),
    #[error("event at position {position} ({stream_id} v{version}): {source}")]
    Event {
        position: i64,
        stream_id: String,
        version: i32,
        source: fold::FoldError,
    },
}

/// Events folded between two calls of the progress callback.
pub const PROGRESS_EVERY: u64 = 10_000;

/// Replays every event and compares, in one snapshot: the log and the
/// tables agree on a moment, and what commits meanwhile is in neither. The
/// claims and buckets are counted and compared on a thread of their own, on
/// a second connection in the same snapshot, while this one compares the
/// coupons.
pub async fn verify(
    config: &tokio_postgres::Config,
    reminders: NotifyCheck,
    progress: impl FnMut(u64),
) -> Result<Report, ReplayError> {
    let mut client = crate::db::connect(config).await?;
    let tx = read_only(&mut client).await?;
    let snapshot: String = tx
        .query_one("SELECT pg_export_snapshot()", &[])
        .await?
        .get(0);
    let lags = lag::lags(&tx).await?;
    let started = Instant::now();
    // A deployment that never ran the notify worker has no reminders to check.
    let notify_ran = lags.iter().any(|l| l.projection == NOTIFY);
    let mut notify_fold = notify_ran.then(|| notify::NotifyFold::new(reminders.clock));
    let (replay, events) = fold_all(&tx, notify_fold.as_mut(), progress).await?;
    let fold = started.elapsed();
    let fold::Replay {
        mut tables,
        coupons,
        ..
    } = replay;
    let names = Arc::new(std::mem::take(&mut tables.names));
    let coupons = Arc::new(coupons);
    let apart = (Arc::clone(&names), Arc::clone(&coupons));
    let counted = counts_apart(config.clone(), snapshot, apart);
    let mut differences = Differences::default();
    live::compare_records(&tx, &names, &coupons, &mut tables, &mut differences).await?;
    if let Some(fold) = &notify_fold {
        let (now, keep) = (reminders.now, reminders.retention);
        notify::compare(&tx, fold, now, keep, &mut differences).await?;
    }
    let counted = counted
        .await
        .map_err(|_| ReplayError::Apart("the thread stopped".into()))??;
    differences.merge(counted);
    differences.listed.sort();
    tx.rollback().await?;
    Ok(Report {
        events,
        differences,
        fold,
        compare: started.elapsed() - fold,
        lags,
    })
}

/// The coupons as the replay left them, and the names they refer to.
type Coupons = (Arc<Names>, Arc<Map<Uuid, fold::ReplayedCoupon>>);

/// Adds up the coupons into the counts and compares those, on a thread and
/// connection of their own, in the exported `snapshot`.
fn counts_apart(
    config: tokio_postgres::Config,
    snapshot: String,
    (names, coupons): Coupons,
) -> oneshot::Receiver<Result<Differences, ReplayError>> {
    let (send, receive) = oneshot::channel();
    std::thread::spawn(move || {
        let counts = fold::counts(&coupons);
        let compared = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .map_err(|e| ReplayError::Apart(e.to_string()))
            .and_then(|runtime| {
                runtime.block_on(compare_counts(&config, &snapshot, &names, counts))
            });
        // The receiver is gone only if `verify` already failed.
        let _ = send.send(compared);
    });
    receive
}

async fn compare_counts(
    config: &tokio_postgres::Config,
    snapshot: &str,
    names: &Names,
    counts: Counts,
) -> Result<Differences, ReplayError> {
    // An id like 00000003-0000001B-1; it is written into the command.
    debug_assert!(snapshot.chars().all(|c| c.is_ascii_hexdigit() || c == '-'));
    let mut client = crate::db::connect(config).await?;
    let tx = read_only(&mut client).await?;
    tx.batch_execute(&format!("SET TRANSACTION SNAPSHOT '{snapshot}'"))
        .await?;
    let mut out = Differences::default();
    live::compare_counts(&tx, names, counts, &mut out).await?;
    Ok(out)
}

/// The events in the store's order, as a binary COPY: several times faster
/// than the same rows as query results. Public for the relay bench, whose
/// baseline is this read alone.
pub const EVENTS: &str = "COPY (SELECT position, stream_id, stream_version, event_type, payload,
                             occurred_at, schema_version FROM events ORDER BY tx_id, position)
                      TO STDOUT (FORMAT binary)";
const EVENT_TYPES: [Type; 7] = [
    Type::INT8,
    Type::TEXT,
    Type::INT4,
    Type::TEXT,
    Type::JSONB,
    Type::TIMESTAMPTZ,
    Type::INT2,
];

/// Folds every event, streamed in the store's order; returns the replay and
/// how many events it folded.
async fn fold_all(
    tx: &Transaction<'_>,
    mut notify: Option<&mut notify::NotifyFold>,
    mut progress: impl FnMut(u64),
) -> Result<(fold::Replay, u64), ReplayError> {
    // The coupons, and as many balances and claims: sized once, bounded.
    let coupons = estimated_rows(tx, "coupons").await?;
    let presize = usize::try_from(coupons).map_or(fold::MAX_PRESIZE, |n| n.min(fold::MAX_PRESIZE));
    let mut replay = fold::Replay::with_capacity(presize);
    let rows = BinaryCopyOutStream::new(tx.copy_out(EVENTS).await?, &EVENT_TYPES);
    pin_mut!(rows);
    let mut events = 0;
    while let Some(row) = rows.try_next().await? {
        let payload: JsonText<'_> = row.try_get(4)?;
        let event = fold::Event {
            stream_id: row.try_get(1)?,
            version: row.try_get(2)?,
            event_type: row.try_get(3)?,
            schema_version: row.try_get(6)?,
            payload: payload.0,
            occurred_at: row.try_get(5)?,
        };
        let folded = match notify.as_deref_mut() {
            Some(n) => replay.apply(&event).and_then(|()| n.apply(&event)),
            None => replay.apply(&event),
        };
        folded.map_err(|source| ReplayError::Event {
            position: row.try_get(0).unwrap_or_default(),
            stream_id: event.stream_id.to_owned(),
            version: event.version,
            source,
        })?;
        events += 1;
        if events % PROGRESS_EVERY == 0 {
            progress(events);
        }
    }
    progress(events);
    Ok((replay, events))
}

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

/// A `jsonb` column as its JSON text, unparsed: the fold parses it once,
/// straight into the payload type its event needs.
struct JsonText<'a>(&'a [u8]);

impl<'a> FromSql<'a> for JsonText<'a> {
    fn from_sql(
        ty: &Type,
        raw: &'a [u8],
    ) -> Result<Self, Box<dyn std::error::Error + Sync + Send>> {
        if *ty != Type::JSONB {
            return Ok(JsonText(raw));
        }
        // Binary jsonb is a format version (1) and the JSON text.
        match raw.split_first() {
            Some((1, text)) => Ok(JsonText(text)),
            _ => Err("unsupported jsonb format version".into()),
        }
    }

    fn accepts(ty: &Type) -> bool {
        *ty == Type::JSON || *ty == Type::JSONB
    }
}

async fn read_only(client: &mut Client) -> Result<Transaction<'_>, tokio_postgres::Error> {
    client
        .build_transaction()
        .isolation_level(tokio_postgres::IsolationLevel::RepeatableRead)
        .read_only(true)
        .start()
        .await
}

#[cfg(test)]
mod tests {
    use super::tables::ClaimsRow;
    use super::*;
    use crate::domain::projection::{BALANCES, TEMPLATE_STATS};

    fn report(tables: &[&'static str], behind: &[&'static str]) -> Report {
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
            lags: vec![lag(BALANCES), lag(TEMPLATE_STATS)],
        }
    }

    #[test]
    fn differences_are_lag_only_in_the_tables_of_a_projection_behind() {
        assert_eq!(report(&[], &[BALANCES]).verdict(), Verdict::Agree);
        let lagging = report(&["balances"], &[BALANCES]);
        assert_eq!(
            (lagging.verdict(), lagging.unexplained()),
            (Verdict::Lag, 0)
        );
        let stats = report(&["template_stats", "template_totals"], &[TEMPLATE_STATS]);
        assert_eq!(stats.verdict(), Verdict::Lag);
        // Caught up, the same difference is corruption.
        assert_eq!(
            report(&["balances"], &[TEMPLATE_STATS]).verdict(),
            Verdict::Differ
        );
        // The write model is never lag.
        let mixed = report(&["balances", "coupons"], &[BALANCES, TEMPLATE_STATS]);
        assert_eq!((mixed.verdict(), mixed.unexplained()), (Verdict::Differ, 1));
        assert!(mixed.is_lag("balances") && !mixed.is_lag("coupons"));
    }
}
