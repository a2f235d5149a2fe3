//! Pricing a combination of coupons on an order: the discounts, their
//! allocation over lines and shipping, and the payable amount. This is what
//! a lock computes (and compares with the client's `expected_payable`).

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

use crate::domain::allocation::Allocation;
use crate::domain::coupon::Coupon;
use crate::domain::discount::{Parts, Prepared, Remaining};
use crate::domain::money::Money;
use crate::domain::order::Order;
use crate::domain::stacking::{Refusal, RefusalReason, check_stacking};

/// The discount one coupon of a combination gives.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct AppliedCoupon<C> {
    pub coupon_id: C,
    pub discount: Money,
}

/// The outcome of applying a combination of coupons to an order.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Pricing<C> {
    pub goods_total: Money,
    pub shipping_fee: Money,
    /// One entry per coupon, in application order.
    pub coupons: Vec<AppliedCoupon<C>>,
    /// Every non-zero part: by coupon (application order), then line order.
    pub allocations: Vec<Allocation<C>>,
    /// The sum of the coupons' discounts.
    pub discount: Money,
    /// goods + shipping − discount, never below 0.00.
    pub payable: Money,
}

/// Applies `coupons` to `order` in the given order at `now`, or refuses the
/// combination naming the first offending coupon.
pub fn price<C: Clone + Eq>(
    order: &Order,
    coupons: &[Coupon<C>],
    now: DateTime<Utc>,
) -> Result<Pricing<C>, Refusal<C>> {
    check_stacking(coupons)?;
    let mut left = Remaining::of(order);
    let mut applied = Vec::with_capacity(coupons.len());
    for coupon in coupons {
        let refuse = |r| Refusal {
            coupon_id: coupon.id.clone(),
            reason: RefusalReason::NotApplicable(r),
        };
        let prepared = Prepared::new(order, coupon, now).map_err(refuse)?;
        let discount = prepared.discount(&left).map_err(refuse)?;
        let parts = prepared.split(&left, discount);
        left.take(&parts);
        applied.push((coupon.id.clone(), parts));
    }
    Ok(assemble(order, applied))
}

/// Builds the public result from the parts of each applied coupon.
pub(crate) fn assemble<C: Clone>(order: &Order, applied: Vec<(C, Parts)>) -> Pricing<C> {
    let mut coupons = Vec::with_capacity(applied.len());
    let mut allocations = Vec::new();
    let mut discount = 0;
    for (coupon_id, parts) in applied {
        let total = parts.total();
        discount += total;
        match parts {
            Parts::Lines(ps) => allocations.extend(ps.into_iter().map(|(i, cents)| Allocation {
                coupon_id: coupon_id.clone(),
                line_id: Some(order.lines()[i].line_id().to_owned()),
                amount: Money::from_cents(cents),
            })),
            Parts::Shipping(cents) => allocations.push(Allocation {
                coupon_id: coupon_id.clone(),
                line_id: None,
                amount: Money::from_cents(cents),
            }),
        }
        coupons.push(AppliedCoupon {
            coupon_id,
            discount: Money::from_cents(total),
        });
    }
    let total = order.total().cents();
    debug_assert!(discount <= total, "discounts exceed the order");
    Pricing {
        goods_total: order.goods_total(),
        shipping_fee: order.shipping_fee(),
        coupons,
        allocations,
        discount: Money::from_cents(discount),
        payable: Money::from_cents((total - discount).max(0)),
    }
}
