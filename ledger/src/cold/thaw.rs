//! An archived coupon comes back to `coupons` when a command must change
//! it: a refund of an order whose used coupons went cold (docs/design.md
//! §16). The move runs in the caller's transaction, so a refused command
//! leaves the coupon where it was.

use deadpool_postgres::Transaction;
use uuid::Uuid;

use super::COLUMNS;

/// Moves the coupons with `ids` found in `coupons_archive` back to
/// `coupons`; returns how many moved. Ids not archived are left alone.
pub async fn thaw(tx: &Transaction<'_>, ids: &[Uuid]) -> Result<u64, tokio_postgres::Error> {
    if ids.is_empty() {
        return Ok(0);
    }
    let sql = format!(
        "WITH moved AS (DELETE FROM coupons_archive WHERE id = ANY($1) RETURNING {COLUMNS})
         INSERT INTO coupons ({COLUMNS}) SELECT {COLUMNS} FROM moved"
    );
    tx.execute(&tx.prepare_cached(&sql).await?, &[&ids]).await
}
