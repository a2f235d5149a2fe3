//! Batch append through binary COPY, for bulk issuance's millions of events.
//!
//! Positions are taken from the sequence first (one statement), so that
//! the events, their ids (`event_ids`) and their streams (`streams`) are
//! each written by one statement that knows them: the uniqueness rules the
//! partitioned `events` cannot keep itself (docs/design.md §16).

use futures_util::pin_mut;
use tokio_postgres::Transaction;
use tokio_postgres::binary_copy::BinaryCopyInWriter;
use tokio_postgres::types::Type;

use super::error::{StoreError, is_event_id_reused, is_version_conflict, reused_id};
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

const COPY_IDS: &str = "COPY event_ids (event_id, position) FROM STDIN (FORMAT binary)";

/// Appends `events` inside the caller's transaction with one binary COPY and
/// returns how many rows were written.
///
/// COPY cannot skip duplicates, so this is for events that are new by
/// construction (fresh streams, ids minted by the caller); retries are made
/// idempotent one level up (e.g. the issuance chunk's inbox row). Stream
/// versions are still guarded: a taken (stream, version) fails the whole
/// batch, as does an id recorded before. A stream appears at most once in a
/// batch. The ids go to the request's [`appended`](super::appended)
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
    let written = copy_rows(tx, &events, &positions).await?;
    copy_ids(tx, &events, &positions).await?;
    claim_streams(tx, &events, &positions).await?;
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

/// Every event's id and position; an id recorded before fails the batch.
async fn copy_ids(
    tx: &Transaction<'_>,
    events: &[&StreamEvent],
    positions: &[i64],
) -> Result<(), StoreError> {
    let sink = tx.copy_in(COPY_IDS).await?;
    let writer = BinaryCopyInWriter::new(sink, &[Type::UUID, Type::INT8]);
    pin_mut!(writer);
    let reused = |e: tokio_postgres::Error| match is_event_id_reused(&e) {
        true => StoreError::EventIdReused {
            event_id: reused_id(&e).unwrap_or_default(),
        },
        false => StoreError::Db(e),
    };
    for (e, position) in events.iter().zip(positions) {
        let row: [&(dyn tokio_postgres::types::ToSql + Sync); 2] = [&e.event.event_id, position];
        writer.as_mut().write(&row).await.map_err(reused)?;
    }
    writer.finish().await.map_err(reused)?;
    Ok(())
}

/// The batch's streams: new ones made (their id must be free), the others
/// moved on from the version before (each must be there). One statement
/// each; a stream that is not where the batch expects fails it.
async fn claim_streams(
    tx: &Transaction<'_>,
    events: &[&StreamEvent],
    positions: &[i64],
) -> Result<(), StoreError> {
    let (fresh, later): (Vec<_>, Vec<_>) = events
        .iter()
        .zip(positions)
        .partition(|(e, _)| e.stream_version == 1);
    if !fresh.is_empty() {
        let ids: Vec<&str> = fresh.iter().map(|(e, _)| e.stream_id.as_str()).collect();
        let first: Vec<i64> = fresh.iter().map(|(_, p)| **p).collect();
        let sql = "INSERT INTO streams (stream_id, version, last_tx, first_position)
                   SELECT s, 1, pg_current_xact_id()::text::bigint, p
                     FROM unnest($1::text[], $2::bigint[]) AS x (s, p)";
        let params: [&(dyn tokio_postgres::types::ToSql + Sync); 2] = [&ids, &first];
        tx.execute(sql, &params)
            .await
            .map_err(|e| conflict(e, "a new stream of the batch"))?;
    }
    if !later.is_empty() {
        let ids: Vec<&str> = later.iter().map(|(e, _)| e.stream_id.as_str()).collect();
        let versions: Vec<i32> = later.iter().map(|(e, _)| e.stream_version).collect();
        let sql = "UPDATE streams s SET version = x.v,
                          last_tx = GREATEST(s.last_tx, pg_current_xact_id()::text::bigint)
                     FROM unnest($1::text[], $2::int[]) AS x (id, v)
                    WHERE s.stream_id = x.id AND s.version = x.v - 1";
        let params: [&(dyn tokio_postgres::types::ToSql + Sync); 2] = [&ids, &versions];
        let moved = tx.execute(sql, &params).await?;
        if moved != later.len() as u64 {
            return Err(StoreError::VersionConflict {
                stream_id: "a stream of the batch".into(),
                expected: 0,
            });
        }
    }
    Ok(())
}

fn conflict(e: tokio_postgres::Error, what: &str) -> StoreError {
    if is_version_conflict(&e) {
        let stream_id = e
            .as_db_error()
            .and_then(|db| db.detail())
            .unwrap_or(what)
            .to_owned();
        StoreError::VersionConflict {
            stream_id,
            expected: 0,
        }
    } else {
        StoreError::Db(e)
    }
}
