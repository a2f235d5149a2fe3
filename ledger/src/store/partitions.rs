//! The event store's partitions (docs/design.md §16): ranges of position,
//! made ahead by pg_partman (`partman.run_maintenance`), each refusing
//! TRUNCATE like the table; listed with their range, size and tablespace.
//!
//! Making a partition takes a lock on `events` that would queue every
//! append behind a long reader (a replay's snapshot, an export), so it is
//! tried with a short `lock_timeout` and simply tried again at the next
//! round: four partitions are made ahead, days of appends.

use tokio_postgres::{GenericClient, Transaction};

/// How long making a partition may wait for its lock on `events`.
const LOCK_TIMEOUT: &str = "2s";

/// One partition of `events`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Partition {
    /// Its number: its first position over the partition size (the
    /// default partition, which holds what no range does, has none).
    pub number: Option<i64>,
    pub name: String,
    /// `[lower, upper)`; None for the default partition.
    pub range: Option<(i64, i64)>,
    /// Rows, as the planner's statistics estimate them.
    pub estimated_rows: i64,
    pub bytes: i64,
    /// None: the database's default tablespace.
    pub tablespace: Option<String>,
}

/// The partition size pg_partman makes new partitions with.
pub async fn size(client: &impl GenericClient) -> Result<i64, tokio_postgres::Error> {
    let sql = "SELECT partition_interval::bigint FROM partman.part_config
                WHERE parent_table = 'public.events'";
    Ok(client.query_one(sql, &[]).await?.get(0))
}

/// Makes the partitions due ahead of the appends and guards every one, in
/// `tx` (which the caller commits). Waiting too long for the lock on
/// `events` is not an error: the next round makes them (see the module's
/// doc); then false, and `tx` is to be rolled back.
pub async fn make_ahead(tx: &Transaction<'_>) -> Result<bool, tokio_postgres::Error> {
    tx.batch_execute(&format!("SET LOCAL lock_timeout = '{LOCK_TIMEOUT}'"))
        .await?;
    let made = tx
        .batch_execute("SELECT partman.run_maintenance('public.events', p_analyze := false)")
        .await;
    match made {
        Ok(()) => {
            guard(tx).await?;
            Ok(true)
        }
        Err(e) if is_lock_timeout(&e) => Ok(false),
        Err(e) => Err(e),
    }
}

fn is_lock_timeout(e: &tokio_postgres::Error) -> bool {
    e.code() == Some(&tokio_postgres::error::SqlState::LOCK_NOT_AVAILABLE)
        || e.as_db_error()
            .is_some_and(|db| db.message().contains("lock timeout"))
}

/// Every partition refuses TRUNCATE, as `events` does (a statement trigger
/// of a partitioned table does not fire for a partition truncated alone).
async fn guard(client: &impl GenericClient) -> Result<(), tokio_postgres::Error> {
    let sql =
        "SELECT c.oid::regclass::text FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
                WHERE i.inhparent = 'events'::regclass
                  AND NOT EXISTS (SELECT 1 FROM pg_trigger t
                                   WHERE t.tgrelid = c.oid AND t.tgname = 'events_no_truncate')";
    for row in client.query(sql, &[]).await? {
        let part: String = row.get(0);
        client
            .batch_execute(&format!(
                "CREATE OR REPLACE TRIGGER events_no_truncate BEFORE TRUNCATE ON {part}
                 FOR EACH STATEMENT EXECUTE FUNCTION events_append_only()"
            ))
            .await?;
    }
    Ok(())
}

/// Every partition, in position order (the default one last).
pub async fn list(client: &impl GenericClient) -> Result<Vec<Partition>, tokio_postgres::Error> {
    let size = size(client).await?;
    let sql = "SELECT c.relname::text, pg_get_expr(c.relpartbound, c.oid), c.reltuples::bigint,
                      pg_total_relation_size(c.oid), t.spcname::text
                 FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
                 LEFT JOIN pg_tablespace t ON t.oid = c.reltablespace
                WHERE i.inhparent = 'events'::regclass";
    let mut parts: Vec<Partition> = client
        .query(sql, &[])
        .await?
        .iter()
        .map(|r| {
            let range = bounds(r.get(1));
            Partition {
                number: range.map(|(lower, _)| lower / size),
                name: r.get(0),
                range,
                estimated_rows: r.get::<_, i64>(2).max(0),
                bytes: r.get(3),
                tablespace: r.get(4),
            }
        })
        .collect();
    parts.sort_by_key(|p| p.range.map_or(i64::MAX, |(lower, _)| lower));
    Ok(parts)
}

/// `[lower, upper)` of `FOR VALUES FROM ('0') TO ('50000000')`; None for
/// `DEFAULT`.
fn bounds(expr: &str) -> Option<(i64, i64)> {
    let number = |s: &str| s.trim().trim_matches(['(', ')', '\'', ' ']).parse().ok();
    let rest = expr.strip_prefix("FOR VALUES FROM")?;
    let (lower, upper) = rest.split_once(" TO ")?;
    Some((number(lower)?, number(upper)?))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bounds_are_read_from_postgres_own_words() {
        assert_eq!(
            bounds("FOR VALUES FROM ('0') TO ('50000000')"),
            Some((0, 50_000_000))
        );
        assert_eq!(
            bounds("FOR VALUES FROM ('150000000') TO ('200000000')"),
            Some((150_000_000, 200_000_000))
        );
        assert_eq!(bounds("DEFAULT"), None);
    }
}
