//! The quota guard (docs/design.md §9): the one statement that raises a
//! template's `issued`, `issued + n <= total` on an active template, so no
//! number of concurrent writes can issue past the total or on a template
//! that was stopped or voided since they read it. The template's hot row
//! is locked here, the last thing a write does before its commit.

use deadpool_postgres::Transaction;

use crate::commands::CommandError;
use crate::db::Named;
use crate::domain::quota::{self, QuotaRefused, Take};
use crate::domain::template_status::TemplateStatus;

/// Takes `wanted` of the template's quota the `take` way; how many it got.
/// In the common case (quota left, template active) one guarded update;
/// when that refuses, the row is locked and [`quota::grant`] decides from
/// what it holds.
pub(crate) async fn take(
    tx: &Transaction<'_>,
    sn: &str,
    wanted: i64,
    take: Take,
) -> Result<Result<i64, QuotaRefused>, tokio_postgres::Error> {
    if wanted == 0 {
        return Ok(Ok(0));
    }
    if raise(tx, sn, wanted).await? {
        return Ok(Ok(wanted));
    }
    let lock = "SELECT status, total - issued FROM templates WHERE sn = $1 FOR NO KEY UPDATE";
    let row = tx
        .query_one(&tx.prepare_cached(lock).await?, &[&sn])
        .await?;
    let Named(status) = row.try_get::<_, Named<TemplateStatus>>(0)?;
    let granted = match quota::grant(status, row.get(1), wanted, take) {
        Ok(n) => n,
        Err(refused) => return Ok(Err(refused)),
    };
    // The row is locked and was just read: the guard holds.
    let raised = granted == 0 || raise(tx, sn, granted).await?;
    debug_assert!(raised, "the quota guard refused a locked row's grant");
    Ok(if raised {
        Ok(granted)
    } else {
        Err(QuotaRefused::SoldOut)
    })
}

/// The guard: adds `n` to the template's `issued` if it is active and that
/// does not pass its total.
async fn raise(tx: &Transaction<'_>, sn: &str, n: i64) -> Result<bool, tokio_postgres::Error> {
    let guard = "UPDATE templates SET issued = issued + $2
                  WHERE sn = $1 AND status = $3 AND issued + $2 <= total";
    let active = TemplateStatus::Active.as_str();
    let updated = tx
        .execute(&tx.prepare_cached(guard).await?, &[&sn, &n, &active])
        .await?;
    Ok(updated == 1)
}

/// Gives `n` of the template's quota back, whatever its status: a large
/// package's claim took it in its request, and its job could not write the
/// coupons (docs/design.md §13, "Large packages keep their promise").
pub(crate) async fn give_back(
    tx: &Transaction<'_>,
    sn: &str,
    n: i64,
) -> Result<(), tokio_postgres::Error> {
    let sql = "UPDATE templates SET issued = issued - $2 WHERE sn = $1";
    tx.execute(&tx.prepare_cached(sql).await?, &[&sn, &n])
        .await?;
    Ok(())
}

/// The answer to a write the quota refused whole: 422 when the template
/// left `active`, 410 when its quota is exhausted.
pub(crate) fn refused(why: QuotaRefused) -> CommandError {
    match why {
        QuotaRefused::NotActive(status) => super::open::not_active(status),
        QuotaRefused::SoldOut => CommandError::SoldOut(why.to_string()),
    }
}
