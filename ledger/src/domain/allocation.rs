//! Allocation (分摊): how a coupon's discount is split over what it touched.
//!
//! A goods coupon's discount is split over its in-scope lines in proportion
//! to what is left of them when it applies, whole cents by largest remainder
//! (ties: line order), so the parts sum exactly to the discount. A shipping
//! coupon's discount is allocated wholly to the shipping fee, written as an
//! allocation without a line (`line_id: None`, JSON `null`).

use serde::{Deserialize, Serialize};

use crate::domain::money::Money;

/// One part of one coupon's discount: on a line, or on the shipping fee
/// when `line_id` is `None`. Zero parts are never listed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Allocation<C> {
    pub coupon_id: C,
    pub line_id: Option<String>,
    pub amount: Money,
}

/// Splits `total` cents over `weights` (`(line index, cents)`) in proportion
/// to the weights, by largest remainder. Requires `0 ≤ total ≤ Σ weights`;
/// then no part exceeds its weight. Zero parts are dropped.
pub(crate) fn split_largest_remainder(total: i64, weights: &[(usize, i64)]) -> Vec<(usize, i64)> {
    let whole: i64 = weights.iter().map(|w| w.1).sum();
    debug_assert!(
        (0..=whole).contains(&total),
        "cannot split {total} over {whole}"
    );
    if total <= 0 || whole <= 0 {
        return Vec::new();
    }
    let mut parts = Vec::with_capacity(weights.len());
    let mut remainders = Vec::with_capacity(weights.len());
    let mut given = 0;
    for (pos, &(line, weight)) in weights.iter().enumerate() {
        let exact = i128::from(total) * i128::from(weight);
        // floor(total·w/whole) ≤ w, so it fits back in i64.
        let floor = i64::try_from(exact / i128::from(whole)).unwrap_or(weight);
        let remainder = exact % i128::from(whole);
        parts.push((line, floor));
        given += floor;
        if remainder > 0 {
            remainders.push((remainder, pos));
        }
    }
    let left = usize::try_from(total - given).unwrap_or(0);
    debug_assert!(left <= remainders.len());
    distribute_cents(&mut parts, &mut remainders, left);
    parts.retain(|p| p.1 > 0);
    debug_assert_eq!(parts.iter().map(|p| p.1).sum::<i64>(), total);
    parts
}

/// Gives one cent to each of the `left` largest remainders (ties: earlier line).
fn distribute_cents(parts: &mut [(usize, i64)], remainders: &mut [(i128, usize)], left: usize) {
    if left == 0 {
        return;
    }
    let order = |a: &(i128, usize), b: &(i128, usize)| b.0.cmp(&a.0).then(a.1.cmp(&b.1));
    if left < remainders.len() {
        // Only which ones get a cent matters, not their order: O(n) select.
        remainders.select_nth_unstable_by(left - 1, order);
    }
    for &(_, pos) in remainders.iter().take(left) {
        parts[pos].1 += 1;
    }
}
