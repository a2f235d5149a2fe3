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

pub mod compare;
pub mod fold;
pub mod live;
pub mod tables;

use futures_util::{TryStreamExt, pin_mut};
use serde_json::Value;
use tokio_postgres::{Client, GenericClient};

pub use compare::{Difference, Differences};

/// What a verification found.
#[derive(Debug)]
pub struct Report {
    pub events: u64,
    pub differences: Differences,
}

#[derive(Debug, thiserror::Error)]
pub enum ReplayError {
    #[error(transparent)]
    Db(#[from] tokio_postgres::Error),
    #[error("event at position {position} ({stream_id} v{version}): {source}")]
    Event {
        position: i64,
        stream_id: String,
        version: i32,
        source: crate::domain::projection::ProjectionError,
    },
}

/// Events folded between two calls of the progress callback.
pub const PROGRESS_EVERY: u64 = 10_000;

/// Replays every event and compares. Run it in a REPEATABLE READ snapshot
/// (see `verify_snapshot`) so the log and the tables agree on a moment.
pub async fn verify(
    client: &impl GenericClient,
    progress: impl FnMut(u64),
) -> Result<Report, ReplayError> {
    let (mut replay, events) = fold_all(client, progress).await?;
    let empty = tables::BucketRow::default();
    replay.tables.balances.retain(|_, b| *b != empty);
    replay.tables.template_stats.retain(|_, b| *b != empty);
    let mut differences = Differences::default();
    live::compare(client, &mut replay, &mut differences).await?;
    differences.listed.sort();
    Ok(Report {
        events,
        differences,
    })
}

/// Folds every event, streamed in the store's order; returns the replay and
/// how many events it folded.
async fn fold_all(
    client: &impl GenericClient,
    mut progress: impl FnMut(u64),
) -> Result<(fold::Replay, u64), ReplayError> {
    let mut replay = fold::Replay::default();
    let sql = "SELECT position, stream_id, stream_version, event_type, payload, occurred_at
                 FROM events ORDER BY tx_id, position";
    let rows = client.query_raw(sql, std::iter::empty::<i32>()).await?;
    pin_mut!(rows);
    let mut events = 0;
    while let Some(row) = rows.try_next().await? {
        let payload: Value = row.get(4);
        let event = fold::Event {
            stream_id: row.get(1),
            version: row.get(2),
            event_type: row.get(3),
            payload: &payload,
            occurred_at: row.get(5),
        };
        replay.apply(&event).map_err(|source| ReplayError::Event {
            position: row.get(0),
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

/// [`verify`] inside one REPEATABLE READ, read-only transaction, so events
/// committed while it runs are in neither side.
pub async fn verify_snapshot(
    client: &mut Client,
    progress: impl FnMut(u64),
) -> Result<Report, ReplayError> {
    let tx = client
        .build_transaction()
        .isolation_level(tokio_postgres::IsolationLevel::RepeatableRead)
        .read_only(true)
        .start()
        .await?;
    let report = verify(&tx, progress).await;
    tx.rollback().await?;
    report
}
