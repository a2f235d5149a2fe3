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
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
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
        let (floor, remainder) = mul_div_rem(total, weight, whole);
        parts.push((line, floor));
        given += floor;
        if remainder > 0 {
            remainders.push(rank_key(remainder, pos));
        }
    }
    let left = usize::try_from(total - given).unwrap_or(0);
    debug_assert!(left <= remainders.len());
    distribute_cents(&mut parts, &mut remainders, left);
    parts.retain(|p| p.1 > 0);
    debug_assert_eq!(parts.iter().map(|p| p.1).sum::<i64>(), total);
    parts
}

/// `(⌊a·b/c⌋, a·b mod c)` for `0 ≤ a ≤ c`, `b ≥ 0`, `c > 0`: both fit in
/// i64 (the quotient is ≤ b, the remainder < c). i64 when the product fits,
/// which is the common case and several times faster than i128 division.
fn mul_div_rem(a: i64, b: i64, c: i64) -> (i64, i64) {
    match a.checked_mul(b) {
        Some(p) => (p / c, p % c),
        None => {
            let p = i128::from(a) * i128::from(b);
            let (q, r) = (p / i128::from(c), p % i128::from(c));
            (i64::try_from(q).unwrap_or(b), i64::try_from(r).unwrap_or(0))
        }
    }
}

/// A key that sorts by remainder, then by earlier position, as one
/// integer: comparing primitives keeps the selection below cheap.
fn rank_key(remainder: i64, pos: usize) -> u128 {
    let pos = u32::try_from(pos).unwrap_or(u32::MAX);
    (u128::from(remainder.unsigned_abs()) << 32) | u128::from(u32::MAX - pos)
}

fn key_position(key: u128) -> usize {
    (u32::MAX - (key & u128::from(u32::MAX)) as u32) as usize
}

/// Gives one cent to each of the `left` largest remainders (ties: earlier line).
fn distribute_cents(parts: &mut [(usize, i64)], remainders: &mut [u128], left: usize) {
    if left == 0 {
        return;
    }
    if left < remainders.len() {
        // Only which ones get a cent matters, not their order: O(n) select.
        remainders.select_nth_unstable_by(left - 1, |a, b| b.cmp(a));
    }
    for &key in remainders.iter().take(left) {
        parts[key_position(key)].1 += 1;
    }
}
