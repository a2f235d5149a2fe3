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
//! expected version. The stream's own row in `streams` must agree: the
//! statement trigger on `events` (migration V35, docs/design.md §16) makes
//! it at version 1 or moves it on from the version before, and fails the
//! statement otherwise, so a stream that ran ahead of its row or fell
//! behind it writes nothing and is a conflict. The same trigger records the
//! event's id. Checkout runs on this path.

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
         appended AS (
             INSERT INTO events (position, event_id, stream_id, stream_version, event_type,
                                 schema_version, payload, metadata, occurred_at)
             SELECT nextval('events_position_seq'), {id}::uuid, {stream}::text, w.version,
                    {}::text, {}::int2, {}::jsonb, {}::jsonb, {}::timestamptz
               FROM w
             RETURNING position, stream_version)
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
