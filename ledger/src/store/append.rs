//! Append to one stream at an expected version, idempotent by event id.

use chrono::{DateTime, Utc};
use deadpool_postgres::Transaction;
use serde_json::Value;
use uuid::Uuid;

use super::error::{StoreError, conflict_or_db};
use super::event::NewEvent;

/// The most events one append may carry (a stream's events per command are few).
pub const MAX_EVENTS_PER_APPEND: usize = 1_000;

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AppendOutcome {
    /// Global positions of the appended events, in order.
    pub positions: Vec<i64>,
    /// The stream's version after the append.
    pub version: i32,
    /// True when every event had been recorded before: nothing was written.
    pub duplicate: bool,
}

/// One call of `append_events` (V32, leaner since V44): when no event id
/// was recorded before, the events at positions taken from the sequence;
/// otherwise nothing, with no error (the caller's transaction goes on, and
/// [`previous_append`] says whether it was a replay). The stream's version
/// is the statement trigger's to guard (V35): a stale `$3`, or a race for
/// the same version, is its unique violation of `streams_pkey`, read as a
/// version conflict. A function so that its plan is made once per
/// connection, not at every call (docs/design.md §4, "The append's plan").
const INSERT: &str = "SELECT event_position, event_version
                        FROM append_events($1, $2, $3, $4, $5, $6, $7, $8)";

/// Appends `events` to `stream_id`, which must be at version `expected` (0: new).
///
/// Runs inside the caller's transaction so write-model updates commit with the
/// events. The same events appended again (same ids, same content) are a no-op
/// that reports the original positions; an id reused with other content is an error.
pub async fn append(
    tx: &Transaction<'_>,
    stream_id: &str,
    expected: i32,
    events: &[NewEvent],
) -> Result<AppendOutcome, StoreError> {
    assert!(
        !events.is_empty() && events.len() <= MAX_EVENTS_PER_APPEND && expected >= 0,
        "an append carries 1..={MAX_EVENTS_PER_APPEND} events at a version >= 0"
    );
    let columns = Columns::of(events);
    let rows = tx
        .query(
            &tx.prepare_cached(INSERT).await?,
            &[
                &columns.ids,
                &stream_id,
                &expected,
                &columns.types,
                &columns.schema_versions,
                &columns.payloads,
                &columns.metadata,
                &columns.occurred_at,
            ],
        )
        .await
        .map_err(|e| conflict_or_db(e, stream_id, expected))?;
    if rows.len() == events.len() {
        let positions = rows.iter().map(|r| r.get(0)).collect();
        let version = rows.last().map_or(expected, |r| r.get(1));
        debug_assert_eq!(version, expected + events.len() as i32);
        super::appended::record(columns.ids);
        return Ok(AppendOutcome {
            positions,
            version,
            duplicate: false,
        });
    }
    debug_assert!(rows.is_empty(), "all of the events or none");
    previous_append(tx, stream_id, expected, events).await
}

/// Nothing was inserted: either every event is a replay of an earlier append,
/// or the stream is not at the expected version.
async fn previous_append(
    tx: &Transaction<'_>,
    stream_id: &str,
    expected: i32,
    events: &[NewEvent],
) -> Result<AppendOutcome, StoreError> {
    let ids: Vec<Uuid> = events.iter().map(|e| e.event_id).collect();
    // By position, found through the ids' own table: the partitions are
    // searched by their key, not one by one.
    let sql = "SELECT e.event_id, e.stream_id, e.event_type, e.payload, e.position,
                      e.stream_version
                 FROM event_ids k JOIN events e ON e.position = k.position
                WHERE k.event_id = ANY($1) ORDER BY e.position";
    let rows = tx.query(&tx.prepare_cached(sql).await?, &[&ids]).await?;
    if rows.is_empty() {
        return Err(StoreError::VersionConflict {
            stream_id: stream_id.to_owned(),
            expected,
        });
    }
    if rows.len() < events.len() {
        // Some ids were recorded and some not: a caller mixed old and new events.
        let known: Vec<Uuid> = rows.iter().map(|r| r.get(0)).collect();
        let event_id = ids.into_iter().find(|id| !known.contains(id));
        return Err(StoreError::EventIdReused {
            event_id: event_id.unwrap_or_default(),
        });
    }
    let mut positions = Vec::with_capacity(events.len());
    let mut version = 0;
    for event in events {
        let same = rows.iter().find(|r| r.get::<_, Uuid>(0) == event.event_id);
        let Some(row) = same.filter(|r| {
            r.get::<_, &str>(1) == stream_id
                && r.get::<_, &str>(2) == event.event_type.as_str()
                && r.get::<_, Value>(3) == event.payload
        }) else {
            return Err(StoreError::EventIdReused {
                event_id: event.event_id,
            });
        };
        positions.push(row.get(4));
        version = version.max(row.get(5));
    }
    Ok(AppendOutcome {
        positions,
        version,
        duplicate: true,
    })
}

/// The events as parallel arrays, for one `unnest` insert.
struct Columns<'a> {
    ids: Vec<Uuid>,
    types: Vec<&'static str>,
    schema_versions: Vec<i16>,
    payloads: Vec<&'a Value>,
    metadata: Vec<&'a Value>,
    occurred_at: Vec<DateTime<Utc>>,
}

impl<'a> Columns<'a> {
    fn of(events: &'a [NewEvent]) -> Self {
        Self {
            ids: events.iter().map(|e| e.event_id).collect(),
            types: events.iter().map(|e| e.event_type.as_str()).collect(),
            schema_versions: events.iter().map(|e| e.schema_version).collect(),
            payloads: events.iter().map(|e| &e.payload).collect(),
            metadata: events.iter().map(|e| &e.metadata).collect(),
            occurred_at: events.iter().map(|e| e.occurred_at).collect(),
        }
    }
}
