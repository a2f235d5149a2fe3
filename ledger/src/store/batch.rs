//! Batch append through binary COPY, for bulk issuance's millions of events.

use futures_util::pin_mut;
use tokio_postgres::Transaction;
use tokio_postgres::binary_copy::BinaryCopyInWriter;
use tokio_postgres::types::Type;

use super::error::{StoreError, is_version_conflict};
use super::event::StreamEvent;

const COPY: &str = "COPY events (event_id, stream_id, stream_version, event_type, \
     schema_version, payload, metadata, occurred_at) FROM STDIN (FORMAT binary)";

const TYPES: [Type; 8] = [
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
/// versions are still guarded: a taken (stream, version) fails the whole batch.
/// The ids go to the request's [`appended`](super::appended) collector, if
/// one is in scope (the flash-sale batcher's task has none: it adds each
/// claim's id to that claim's request itself).
pub async fn copy_events<'a>(
    tx: &Transaction<'_>,
    events: impl IntoIterator<Item = &'a StreamEvent>,
) -> Result<u64, StoreError> {
    let sink = tx.copy_in(COPY).await?;
    let writer = BinaryCopyInWriter::new(sink, &TYPES);
    pin_mut!(writer);
    let collecting = super::appended::current();
    let mut ids = Vec::new();
    for e in events {
        let ev = &e.event;
        if collecting.is_some() {
            ids.push(ev.event_id);
        }
        let event_type = ev.event_type.as_str();
        writer
            .as_mut()
            .write(&[
                &ev.event_id,
                &e.stream_id,
                &e.stream_version,
                &event_type,
                &ev.schema_version,
                &ev.payload,
                &ev.metadata,
                &ev.occurred_at,
            ])
            .await
            .map_err(map_copy_error)?;
    }
    let written = writer.finish().await.map_err(map_copy_error)?;
    if let Some(appended) = collecting {
        appended.extend(ids);
    }
    Ok(written)
}

fn map_copy_error(e: tokio_postgres::Error) -> StoreError {
    if is_version_conflict(&e) {
        let stream_id = e
            .as_db_error()
            .and_then(|db| db.detail())
            .unwrap_or("a stream in the batch")
            .to_owned();
        StoreError::VersionConflict {
            stream_id,
            expected: 0,
        }
    } else {
        StoreError::Db(e)
    }
}
