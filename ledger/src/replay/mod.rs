//! `ledger replay --verify`: rebuild every projection and write-model table
//! from `events` (in memory, in the store's commit-safe order) and compare
//! them with the live tables. Finance's proof that the tables are what the
//! log says.
//!
//! - [`tables`]: the compared rows, one shape for both sides.
//! - [`fold`]: events → tables (pure).
//! - [`live`]: the live tables → the same shape.
//! - [`compare`]: the differences (table, key, field, live vs replayed).

pub mod compare;
pub mod fold;
pub mod live;
pub mod tables;

use futures_util::{TryStreamExt, pin_mut};
use serde_json::Value;
use tokio_postgres::{Client, GenericClient};

pub use compare::Difference;

/// What a verification found.
#[derive(Debug)]
pub struct Report {
    pub events: u64,
    pub differences: Vec<Difference>,
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
    mut progress: impl FnMut(u64),
) -> Result<Report, ReplayError> {
    let mut replay = fold::Replay::default();
    let sql = "SELECT position, stream_id, stream_version, event_type, payload
                 FROM events ORDER BY tx_id, position";
    let rows = client.query_raw(sql, std::iter::empty::<i32>()).await?;
    pin_mut!(rows);
    let mut events = 0;
    while let Some(row) = rows.try_next().await? {
        let (stream_id, version): (&str, i32) = (row.get(1), row.get(2));
        let payload: Value = row.get(4);
        replay
            .apply(stream_id, version, row.get(3), &payload)
            .map_err(|source| ReplayError::Event {
                position: row.get(0),
                stream_id: stream_id.to_owned(),
                version,
                source,
            })?;
        events += 1;
        if events % PROGRESS_EVERY == 0 {
            progress(events);
        }
    }
    progress(events);
    let mut replayed = replay.tables;
    let empty = tables::BucketRow::default();
    replayed.balances.retain(|_, b| *b != empty);
    replayed.template_stats.retain(|_, b| *b != empty);
    let live = live::read(client).await?;
    Ok(Report {
        events,
        differences: compare::compare(&live, &replayed),
    })
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
