//! What the operators' gauges read (`observability/`): counts and
//! positions over the write model, each one plain read. The callers run
//! them in a transaction bounded by a statement timeout
//! (`observability/refresh.rs`), so a slow store cannot pile them up.

use tokio_postgres::GenericClient;

use crate::domain::reminder::{NotifyStatus, NotifyType};
use crate::store::GlobalCursor;

type Result<T> = std::result::Result<T, tokio_postgres::Error>;

/// Issuance jobs per stored status.
pub async fn issuance_jobs_by_status(c: &impl GenericClient) -> Result<Vec<(String, i64)>> {
    let sql = "SELECT status, count(*) FROM issuance_jobs GROUP BY status";
    let rows = c.query(sql, &[]).await?;
    Ok(rows.iter().map(|r| (r.get(0), r.get(1))).collect())
}

/// The median and 99th percentile of chunk transaction times (ms) over the
/// last hour; `None` without a chunk in that hour.
pub async fn chunk_ms_last_hour(c: &impl GenericClient) -> Result<[Option<f64>; 2]> {
    let row = c
        .query_one(
            "SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY duration_ms),
                    percentile_cont(0.99) WITHIN GROUP (ORDER BY duration_ms)
               FROM issuance_chunks WHERE done_at > now() - interval '1 hour'",
            &[],
        )
        .await?;
    Ok([row.get(0), row.get(1)])
}

/// Coupons issued by bulk-issuance chunks, in all.
pub async fn coupons_issued_by_chunks(c: &impl GenericClient) -> Result<i64> {
    let sql = "SELECT coalesce(sum(issued), 0)::bigint FROM issuance_chunks";
    Ok(c.query_one(sql, &[]).await?.get(0))
}

/// `notify_msg` rows per (type code, status code).
pub async fn notify_rows_by_status(c: &impl GenericClient) -> Result<Vec<(i16, i16, i64)>> {
    let sql = "SELECT notify_type, status, count(*) FROM notify_msg GROUP BY 1, 2";
    let rows = c.query(sql, &[]).await?;
    Ok(rows
        .iter()
        .map(|r| (r.get(0), r.get(1), r.get(2)))
        .collect())
}

/// Pending expiry reminders whose notify time passed more than
/// `overdue_after` (a Postgres interval, e.g. `15 minutes`) ago. Granted
/// rows are left out: they are due at their coupons' issue but wait, by
/// design, for their job to end.
pub async fn notify_rows_overdue(c: &impl GenericClient, overdue_after: &str) -> Result<i64> {
    // The status is written into the text, not bound, so that the partial
    // index `notify_msg_due` serves the statement.
    let sql = format!(
        "SELECT count(*) FROM notify_msg
          WHERE status = {pending} AND notify_time < now() - $1::text::interval
            AND notify_type = {reminder}",
        pending = NotifyStatus::Pending.code(),
        reminder = NotifyType::ExpiryReminder.code()
    );
    Ok(c.query_one(&sql, &[&overdue_after]).await?.get(0))
}

/// Events after `cursor`, counted up to `cap` (the count stays cheap).
pub async fn events_after(c: &impl GenericClient, cursor: GlobalCursor, cap: i64) -> Result<i64> {
    let sql = "SELECT count(*) FROM (SELECT 1 FROM events
                WHERE (tx_id, position) > ($1, $2) LIMIT $3) AS behind";
    let row = c
        .query_one(sql, &[&cursor.tx_id, &cursor.position, &cap])
        .await?;
    Ok(row.get(0))
}

/// Unix time of the last seal checkpoint, if any.
pub async fn last_checkpoint_epoch(c: &impl GenericClient) -> Result<Option<f64>> {
    let sql = "SELECT extract(epoch FROM max(created_at))::float8 FROM seal_checkpoints";
    Ok(c.query_one(sql, &[]).await?.get(0))
}

/// A relay route's cursor: where it is and its running totals (`None`
/// before the route's first batch).
pub struct RelayCursor {
    pub name: String,
    pub position: Option<i64>,
    pub published: Option<i64>,
    pub sent: Option<i64>,
    pub unroutable: Option<i64>,
}

/// The cursors of the routes `names`, one row each, stored or not.
pub async fn relay_cursors(c: &impl GenericClient, names: &[&str]) -> Result<Vec<RelayCursor>> {
    let sql = "SELECT r.name, c.position, c.published, c.unroutable, c.sent
                 FROM unnest($1::text[]) AS r (name)
                 LEFT JOIN relay_cursors c ON c.name = r.name";
    let rows = c.query(sql, &[&names]).await?;
    let cursor = |r: &tokio_postgres::Row| RelayCursor {
        name: r.get(0),
        position: r.get(1),
        published: r.get(2),
        unroutable: r.get(3),
        sent: r.get(4),
    };
    Ok(rows.iter().map(cursor).collect())
}

/// The last position each projection of `names` applied, stored or not.
pub async fn projection_positions(
    c: &impl GenericClient,
    names: &[&str],
) -> Result<Vec<(String, Option<i64>)>> {
    let sql = "SELECT p.name, pp.position
                 FROM unnest($1::text[]) AS p (name)
                 LEFT JOIN projection_positions pp ON pp.projection = p.name";
    let rows = c.query(sql, &[&names]).await?;
    Ok(rows.iter().map(|r| (r.get(0), r.get(1))).collect())
}
