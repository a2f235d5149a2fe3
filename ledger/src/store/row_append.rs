//! Append one event together with the write-model row that carries its
//! stream's version (a coupon, an order), in one statement:
//!
//! ```sql
//! WITH w AS (UPDATE coupons SET status = $1, ..., version = version + 1
//!             WHERE id = $n AND version = $m RETURNING version)
//! INSERT INTO events (...) SELECT ..., w.version, ... FROM w
//! ```
//!
//! One round trip where an UPDATE and [`append`](super::append) take two:
//! the row's version guard (the row is locked by the caller) stands for the
//! expected version, and the stream's own row in `streams` must agree (it
//! is made at version 1, moved on from the version before after), so a
//! stream that ran ahead of its row or fell behind it writes nothing and is
//! a conflict. The event's id and position go to `event_ids` in the same
//! statement (docs/design.md §16). Checkout runs on this path.

use deadpool_postgres::Transaction;
use tokio_postgres::types::ToSql;

use super::error::{StoreError, conflict_or_db};
use super::event::NewEvent;

/// The statement for `write` (an UPDATE or INSERT with `n_params`
/// parameters that returns the row's new `version`, one row or none).
fn statement(write: &str, n_params: usize) -> String {
    let p = |i: usize| format!("${}", n_params + i);
    let (id, stream) = (p(1), p(2));
    format!(
        "WITH w AS ({write}),
         pos AS MATERIALIZED (SELECT nextval('events_position_seq') AS position FROM w),
         made AS (
             INSERT INTO streams (stream_id, version, last_tx, first_position)
             SELECT {stream}::text, 1, pg_current_xact_id()::text::bigint, pos.position
               FROM w, pos WHERE w.version = 1
             ON CONFLICT (stream_id) DO NOTHING RETURNING version),
         moved AS (
             UPDATE streams s SET version = w.version,
                    last_tx = GREATEST(s.last_tx, pg_current_xact_id()::text::bigint)
               FROM w WHERE s.stream_id = {stream}::text AND s.version = w.version - 1
             RETURNING s.version),
         appended AS (
             INSERT INTO events (position, event_id, stream_id, stream_version, event_type,
                                 schema_version, payload, metadata, occurred_at)
             SELECT pos.position, {id}::uuid, {stream}::text, v.version, {}::text, {}::int2,
                    {}::jsonb, {}::jsonb, {}::timestamptz
               FROM pos, (SELECT version FROM made UNION ALL SELECT version FROM moved) v
             RETURNING position, event_id, stream_version),
         ids AS (INSERT INTO event_ids (event_id, position)
                 SELECT event_id, position FROM appended)
         SELECT position, stream_version FROM appended",
        p(3),
        p(4),
        p(5),
        p(6),
        p(7)
    )
}

/// Runs `write` (see [`statement`]) and appends `event` to `stream_id` at
/// the version it returns, which must be `expected + 1` (the write's guard
/// is the caller's: `expected` names the conflict). Returns the
/// event's position; `VersionConflict` when the write matched no row or the
/// stream already has that version.
pub async fn append_with_row(
    tx: &Transaction<'_>,
    write: &str,
    params: &[&(dyn ToSql + Sync)],
    stream_id: &str,
    expected: i32,
    event: &NewEvent,
) -> Result<i64, StoreError> {
    let sql = statement(write, params.len());
    let event_type = event.event_type.as_str();
    let mut all: Vec<&(dyn ToSql + Sync)> = Vec::with_capacity(params.len() + 7);
    all.extend_from_slice(params);
    all.extend_from_slice(&[
        &event.event_id,
        &stream_id,
        &event_type,
        &event.schema_version,
        &event.payload,
        &event.metadata,
        &event.occurred_at,
    ]);
    let rows = tx
        .query(&tx.prepare_cached(&sql).await?, &all)
        .await
        .map_err(|e| conflict_or_db(e, stream_id, expected))?;
    debug_assert!(rows.len() <= 1, "a row write touches one row");
    // No row: the write matched none, or the stream is not where its row
    // says (either way the caller's row and the log disagree: a conflict).
    let row = rows.first().ok_or_else(|| StoreError::VersionConflict {
        stream_id: stream_id.to_owned(),
        expected,
    })?;
    debug_assert_eq!(row.get::<_, i32>(1), expected + 1, "{stream_id}");
    super::appended::record([event.event_id]);
    Ok(row.get(0))
}
