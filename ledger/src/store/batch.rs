//! Batch append through binary COPY, for bulk issuance's millions of events.
//!
//! Positions are taken from the sequence first (one statement), then the
//! events go in by one COPY. Their ids (`event_ids`) and their streams'
//! versions (`streams`) are written by the database itself, by the
//! statement trigger every insert into `events` fires (migration V35,
//! docs/design.md §16): a reused id or a taken (stream, version) fails the
//! COPY, whoever wrote it.

use futures_util::pin_mut;
use tokio_postgres::Transaction;
use tokio_postgres::binary_copy::BinaryCopyInWriter;
use tokio_postgres::types::Type;

use super::error::{StoreError, conflict_or_db};
use super::event::StreamEvent;

const COPY: &str = "COPY events (position, event_id, stream_id, stream_version, event_type, \
     schema_version, payload, metadata, occurred_at) FROM STDIN (FORMAT binary)";

const TYPES: [Type; 9] = [
    Type::INT8,
    Type::UUID,
    Type::TEXT,
    Type::INT4,
    Type::TEXT,
    Type::INT2,
    Type::JSONB,
    Type::JSONB,
    Type::TIMESTAMPTZ,
];

/// Appends `events` inside the caller's transaction with one binary COPY and
/// returns how many rows were written.
///
/// COPY cannot skip duplicates, so this is for events that are new by
/// construction (fresh streams, ids minted by the caller); retries are made
/// idempotent one level up (e.g. the issuance chunk's inbox row). Stream
/// versions are still guarded, by the database: a taken (stream, version)
/// fails the whole batch (`VersionConflict`), as does an id recorded
/// before (`EventIdReused`). The ids go to the request's [`appended`](super::appended)
/// collector, if one is in scope (the flash-sale batcher's task has none:
/// it adds each claim's id to that claim's request itself).
pub async fn copy_events<'a>(
    tx: &Transaction<'_>,
    events: impl IntoIterator<Item = &'a StreamEvent>,
) -> Result<u64, StoreError> {
    let events: Vec<&StreamEvent> = events.into_iter().collect();
    if events.is_empty() {
        return Ok(0);
    }
    let positions = take_positions(tx, events.len()).await?;
    let written = copy_rows(tx, &events, &positions)
        .await
        .map_err(|e| match e {
            StoreError::Db(e) => conflict_or_db(e, "a stream of the batch", 0),
            other => other,
        })?;
    if let Some(appended) = super::appended::current() {
        appended.extend(events.iter().map(|e| e.event.event_id));
    }
    Ok(written)
}

/// `n` positions from the sequence, in increasing order.
async fn take_positions(tx: &Transaction<'_>, n: usize) -> Result<Vec<i64>, StoreError> {
    let sql = "SELECT nextval('events_position_seq') FROM generate_series(1, $1::int)";
    let n = i32::try_from(n).map_err(|_| StoreError::TooMany(n))?;
    let rows = tx.query(sql, &[&n]).await?;
    let mut positions: Vec<i64> = rows.iter().map(|r| r.get(0)).collect();
    positions.sort_unstable();
    Ok(positions)
}

async fn copy_rows(
    tx: &Transaction<'_>,
    events: &[&StreamEvent],
    positions: &[i64],
) -> Result<u64, StoreError> {
    let sink = tx.copy_in(COPY).await?;
    let writer = BinaryCopyInWriter::new(sink, &TYPES);
    pin_mut!(writer);
    for (e, position) in events.iter().zip(positions) {
        let ev = &e.event;
        let event_type = ev.event_type.as_str();
        writer
            .as_mut()
            .write(&[
                position,
                &ev.event_id,
                &e.stream_id,
                &e.stream_version,
                &event_type,
                &ev.schema_version,
                &ev.payload,
                &ev.metadata,
                &ev.occurred_at,
            ])
            .await?;
    }
    Ok(writer.finish().await?)
}
