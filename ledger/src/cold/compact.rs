//! The hot table's indexes given their space back after a large archive
//! (docs/design.md §16, "Compaction"). A DELETE frees index entries but
//! VACUUM never shrinks an index, so after most of `coupons` moved to
//! cold storage its indexes keep the size of the whole store, and every
//! claim, quote and lock walks them. `REINDEX INDEX CONCURRENTLY` builds
//! each index again online (writes go on meanwhile), one at a time. A
//! steady trickle of archiving does not need it: the pages it empties are
//! reused by new rows.

use tokio_postgres::GenericClient;

/// Fewer moved rows than this never trigger a rebuild: the space is small
/// and new rows reuse it.
pub const MIN_MOVED: u64 = 10_000;

/// Whether an archive that moved `moved` rows, leaving `remaining` in
/// `coupons`, emptied enough of the indexes to rebuild them: at least half
/// of what they held.
pub fn worth_rebuilding(moved: u64, remaining: u64) -> bool {
    moved >= MIN_MOVED && moved >= remaining
}

/// Rows left in `coupons`, as a fresh ANALYZE estimates them (a count of
/// a large table would read it whole; the estimate is close enough for
/// [`worth_rebuilding`]).
pub async fn remaining(client: &impl GenericClient) -> Result<u64, tokio_postgres::Error> {
    client.batch_execute("ANALYZE coupons").await?;
    let row = client
        .query_one(
            "SELECT greatest(reltuples, 0)::bigint FROM pg_class WHERE oid = 'coupons'::regclass",
            &[],
        )
        .await?;
    Ok(u64::try_from(row.get::<_, i64>(0)).unwrap_or(0))
}

/// The advisory lock one rebuild holds: two archivers never rebuild at
/// once (one would take the other's copy in progress for a leftover).
const LOCK: &str = "coupons.compact";

/// Builds every index of `coupons` again, concurrently, after dropping
/// the copies an interrupted rebuild left (invalid, named `…_ccnew…`);
/// the names rebuilt, or none if another rebuild is running. Not inside a
/// transaction: each REINDEX CONCURRENTLY commits on its own.
pub async fn rebuild_indexes(
    client: &impl GenericClient,
) -> Result<Vec<String>, tokio_postgres::Error> {
    let locked = client
        .query_one("SELECT pg_try_advisory_lock(hashtext($1))", &[&LOCK])
        .await?;
    if !locked.get::<_, bool>(0) {
        return Ok(vec![]);
    }
    let rebuilt = rebuild_locked(client).await;
    client
        .execute("SELECT pg_advisory_unlock(hashtext($1))", &[&LOCK])
        .await?;
    rebuilt
}

async fn rebuild_locked(client: &impl GenericClient) -> Result<Vec<String>, tokio_postgres::Error> {
    for name in indexes(client, false).await? {
        if name.contains("_ccnew") {
            let sql = format!("DROP INDEX CONCURRENTLY IF EXISTS {name}");
            client.batch_execute(&sql).await?;
        }
    }
    let names = indexes(client, true).await?;
    for name in &names {
        client
            .batch_execute(&format!("REINDEX INDEX CONCURRENTLY {name}"))
            .await?;
    }
    Ok(names)
}

/// The indexes of `coupons` that are valid (or, with `valid` false, the
/// invalid ones), as quoted names.
async fn indexes(
    client: &impl GenericClient,
    valid: bool,
) -> Result<Vec<String>, tokio_postgres::Error> {
    let rows = client
        .query(
            "SELECT indexrelid::regclass::text FROM pg_index
              WHERE indrelid = 'coupons'::regclass AND indisvalid = $1
              ORDER BY 1",
            &[&valid],
        )
        .await?;
    Ok(rows.iter().map(|r| r.get(0)).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_an_archive_that_took_most_of_the_table_rebuilds() {
        assert!(worth_rebuilding(900_000, 100_000));
        assert!(worth_rebuilding(MIN_MOVED, MIN_MOVED));
        assert!(!worth_rebuilding(10_000, 1_000_000), "a trickle");
        assert!(!worth_rebuilding(MIN_MOVED - 1, 0), "too small to matter");
    }
}
