//! Reading events back: one stream, or everything after a cursor.

use tokio_postgres::GenericClient;
use tokio_postgres::types::{ToSql, Type};

use super::event::{COLUMNS, GlobalCursor, RecordedEvent};

/// The most events one read returns; callers page with the last cursor or version.
pub const MAX_READ: i64 = 10_000;

/// The events of `stream_id` with version > `after_version`, in version order.
/// Only the partitions from the stream's first event on are searched (its
/// `first_position` in `streams`; docs/design.md §16), by a function whose
/// plan is kept (`read_stream_events`, V43; §4 "The read's plan").
pub async fn read_stream(
    client: &impl GenericClient,
    stream_id: &str,
    after_version: i32,
    limit: i64,
) -> Result<Vec<RecordedEvent>, tokio_postgres::Error> {
    let sql = format!("SELECT {COLUMNS} FROM read_stream_events($1, $2, $3)");
    let limit = limit.clamp(1, MAX_READ);
    // Typed: one round trip, no statement to describe first; the outer
    // SELECT is trivial to plan, and the function keeps its own plan.
    let params: [(&(dyn ToSql + Sync), Type); 3] = [
        (&stream_id, Type::TEXT),
        (&after_version, Type::INT4),
        (&limit, Type::INT8),
    ];
    let rows = client.query_typed(&sql, &params).await?;
    rows.iter().map(RecordedEvent::from_row).collect()
}

/// The xid below which every transaction that could write to this database's
/// `events` has finished: the oldest transaction in progress at the statement's
/// snapshot, leaving out those that pg_stat_activity places in another database
/// (xids are cluster-wide, and another database's long transaction must not
/// hold this one's readers back). An xid that ended before pg_stat_activity was
/// read is not left out, so the horizon only ever errs on the safe side.
const HORIZON: &str = "
    WITH snap AS (SELECT pg_current_snapshot() AS s),
    elsewhere AS (
        SELECT backend_xid::text::bigint AS xid FROM pg_stat_activity
         WHERE backend_xid IS NOT NULL AND datname IS DISTINCT FROM current_database()
    )
    SELECT coalesce(
        (SELECT min(x::text::bigint) FROM snap, pg_snapshot_xip(snap.s) AS x
          WHERE (x::text::bigint % 4294967296) NOT IN (SELECT xid FROM elsewhere)),
        (SELECT pg_snapshot_xmax(s)::text::bigint FROM snap))";

/// The query of [`read_all`] selecting `columns` (of `events`): `$1`, `$2`
/// the cursor's transaction and position, `$3` the limit. For readers that
/// need the rows in another shape (the sealer reads payloads as text).
pub(crate) fn committed_after_sql(columns: &str) -> String {
    format!(
        "SELECT {columns} FROM events
          WHERE (tx_id, position) > ($1, $2) AND tx_id < ({HORIZON})
          ORDER BY tx_id, position LIMIT $3"
    )
}

/// The condition that the row's `tx_id_column` is of a transaction older
/// than every transaction still running here (see [`read_all`]): rows that
/// pass it are in their final place in the (transaction, position) order,
/// so a reader that stops there never has a hole a late commit fills.
pub(crate) fn committed(tx_id_column: &str) -> String {
    format!("{tx_id_column} < ({HORIZON})")
}

/// Up to `limit` events after `after`, in (transaction, position) order, from
/// transactions older than every transaction still running here.
///
/// Because nothing is returned from a transaction that might still commit, a
/// late commit is never skipped; because a rolled-back transaction leaves no
/// rows and stops holding back the horizon, it never stalls the reader.
/// Call it outside an explicit transaction so each call sees a fresh snapshot.
pub async fn read_all(
    client: &impl GenericClient,
    after: GlobalCursor,
    limit: i64,
) -> Result<Vec<RecordedEvent>, tokio_postgres::Error> {
    read_all_from(client, after, 0, limit).await
}

/// [`read_all`], leaving out events whose position is below `from_position`
/// (a backfill that starts at a position).
pub async fn read_all_from(
    client: &impl GenericClient,
    after: GlobalCursor,
    from_position: i64,
    limit: i64,
) -> Result<Vec<RecordedEvent>, tokio_postgres::Error> {
    let sql = format!(
        "SELECT {COLUMNS} FROM events
          WHERE (tx_id, position) > ($1, $2) AND tx_id < ({HORIZON}) AND position >= $4
          ORDER BY tx_id, position LIMIT $3"
    );
    let limit = limit.clamp(1, MAX_READ);
    let params: [&(dyn tokio_postgres::types::ToSql + Sync); 4] =
        [&after.tx_id, &after.position, &limit, &from_position];
    let rows = client.query(&sql, &params).await?;
    rows.iter().map(RecordedEvent::from_row).collect()
}

/// The events at `positions` (any order; an absent position is left out).
pub async fn at_positions(
    client: &impl GenericClient,
    positions: &[i64],
) -> Result<Vec<RecordedEvent>, tokio_postgres::Error> {
    let sql = format!("SELECT {COLUMNS} FROM events WHERE position = ANY($1)");
    let rows = client.query(&sql, &[&positions]).await?;
    rows.iter().map(RecordedEvent::from_row).collect()
}

/// Up to `limit` events at positions `from..=until`, in position order
/// (what is visible now: a webhook replay's range, docs/design.md §21).
pub async fn positions_from(
    client: &impl GenericClient,
    from: i64,
    until: i64,
    limit: i64,
) -> Result<Vec<RecordedEvent>, tokio_postgres::Error> {
    let sql = format!(
        "SELECT {COLUMNS} FROM events WHERE position BETWEEN $1 AND $2
          ORDER BY position LIMIT $3"
    );
    let limit = limit.clamp(1, MAX_READ);
    let rows = client.query(&sql, &[&from, &until, &limit]).await?;
    rows.iter().map(RecordedEvent::from_row).collect()
}
