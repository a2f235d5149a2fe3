//! Coupon packages (券包, DESIGN §13), the pure part: how many coupons a
//! package gives, and each template's share of one claim.

use std::collections::BTreeMap;

use crate::domain::events::PackageItem;

/// The most coupons one package gives (one request's transaction).
pub const MAX_COUPONS: i32 = 100;

/// The coupons one claim of the package gives.
pub fn coupons(items: &[PackageItem]) -> i64 {
    items.iter().map(|i| i64::from(i.count)).sum()
}

/// Each template's coupons in one claim, a template listed twice summed,
/// in sn order: every claim takes its templates' rows in that one order,
/// so two claims of packages listing the same templates in other orders
/// cannot deadlock.
pub fn shares(items: &[PackageItem]) -> Vec<(&str, i64)> {
    let mut by_sn: BTreeMap<&str, i64> = BTreeMap::new();
    for item in items {
        *by_sn.entry(item.template_sn.as_str()).or_default() += i64::from(item.count);
    }
    by_sn.into_iter().collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn item(sn: &str, count: i32) -> PackageItem {
        PackageItem {
            template_sn: sn.into(),
            count,
        }
    }

    #[test]
    fn shares_are_summed_per_template_in_sn_order() {
        let items = [item("c", 2), item("a", 1), item("c", 3), item("b", 4)];
        assert_eq!(coupons(&items), 10);
        assert_eq!(shares(&items), [("a", 1), ("b", 4), ("c", 5)]);
        assert!(shares(&[]).is_empty());
    }
}
