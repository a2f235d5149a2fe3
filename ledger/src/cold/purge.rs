//! Purging cold coupons (物理删除, docs/design.md §16): the write-model
//! rows of archived coupons that ended before an instant are deleted for
//! good, in bounded batches; their events stay. Each purge is recorded, and
//! the latest instant is the horizon `replay --verify` reads: a coupon the
//! log says ended before it may have no row at all.

use chrono::{DateTime, Utc};
use tokio_postgres::GenericClient;

use super::ENDED_AT_SQL;

/// Rows deleted per statement, for the archiver's reasons.
pub const BATCH: i64 = 10_000;

/// Deletes up to `batch` archived coupons that ended before `before`;
/// returns how many.
pub async fn delete_batch(
    client: &impl GenericClient,
    before: DateTime<Utc>,
    batch: i64,
) -> Result<u64, tokio_postgres::Error> {
    let sql = format!(
        "DELETE FROM coupons_archive WHERE id IN (
             SELECT id FROM coupons_archive WHERE {ENDED_AT_SQL} < $1
              ORDER BY {ENDED_AT_SQL} LIMIT $2 FOR UPDATE SKIP LOCKED)"
    );
    client
        .execute(sql.as_str(), &[&before, &batch.clamp(1, BATCH)])
        .await
}

/// How many archived coupons ended before `before`.
pub async fn purgeable(
    client: &impl GenericClient,
    before: DateTime<Utc>,
) -> Result<i64, tokio_postgres::Error> {
    let sql = format!("SELECT count(*) FROM coupons_archive WHERE {ENDED_AT_SQL} < $1");
    Ok(client.query_one(&sql, &[&before]).await?.get(0))
}

/// Records a finished purge; the horizon is the latest of them all.
pub async fn record(
    client: &impl GenericClient,
    before: DateTime<Utc>,
    coupons: i64,
    operator: &str,
) -> Result<(), tokio_postgres::Error> {
    client
        .execute(
            "INSERT INTO coupon_purges (purged_before, coupons, operator) VALUES ($1, $2, $3)",
            &[&before, &coupons, &operator],
        )
        .await?;
    Ok(())
}

/// The purge horizon: the latest instant any purge deleted before (None:
/// never purged).
pub async fn horizon(
    client: &impl GenericClient,
) -> Result<Option<DateTime<Utc>>, tokio_postgres::Error> {
    let row = client
        .query_one("SELECT max(purged_before) FROM coupon_purges", &[])
        .await?;
    Ok(row.get(0))
}
