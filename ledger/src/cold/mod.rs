//! Hot and cold coupons (docs/design.md §16, "Hot and cold coupons"): an
//! ended coupon whose last change is older than `LEDGER_ARCHIVE_AFTER_DAYS`
//! moves from `coupons` to `coupons_archive`, and may later be purged. The
//! events stay in the store whatever happens to the rows.
//!
//! - [`archive`]: what is due, and moving it in bounded batches (the
//!   archiver worker and `ledger archive`).
//! - [`compact`]: the hot table's indexes rebuilt after a large archive.
//! - [`thaw`]: an archived coupon back to `coupons` when a refund needs it.
//! - [`purge`]: deleting cold rows before an instant, and the horizon
//!   replay reads.

pub mod archive;
pub mod compact;
pub mod purge;
pub(crate) mod thaw;

use std::sync::LazyLock;

use crate::domain::coupon_state::CouponStatus;

/// The columns both tables share, in one order.
pub const COLUMNS: &str = "id, template_sn, user_id, status, issued_at, effective_at, \
     expires_at, channel_id, refund_from, order_id, version, job_id, job_line, changed_at";

/// The ended statuses as SQL, written out (not bound) as the partial index
/// `coupons_ended` (V30) says them, so the planner can use it.
pub fn ended_sql() -> &'static str {
    static SQL: LazyLock<String> = LazyLock::new(|| {
        let ended: Vec<String> = CouponStatus::ALL
            .iter()
            .filter(|s| is_ended(**s))
            .map(|s| format!("'{}'", s.as_str()))
            .collect();
        format!("status IN ({})", ended.join(", "))
    });
    &SQL
}

/// When an ended coupon ended, as the index says it: rows from before V30
/// have no `changed_at` and take their expiry.
pub const ENDED_AT_SQL: &str = "coalesce(changed_at, expires_at)";

/// The statuses that may move to cold storage. A used coupon comes back
/// through a refund ([`thaw`]); the others never change again.
pub fn is_ended(status: CouponStatus) -> bool {
    use CouponStatus::*;
    match status {
        Used | Refunded | Expired | Void => true,
        Unused | Locked => false,
    }
}

/// Every coupon, hot or cold, as one relation (named `c`'s source): the
/// reads that must find a coupon wherever it is.
pub fn everywhere(columns: &str) -> String {
    format!("(SELECT {columns} FROM coupons UNION ALL SELECT {columns} FROM coupons_archive)")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_sql_names_exactly_the_ended_statuses() {
        for &status in CouponStatus::ALL {
            let quoted = format!("'{}'", status.as_str());
            assert_eq!(
                ended_sql().contains(&quoted),
                is_ended(status),
                "{status:?}"
            );
        }
    }
}
