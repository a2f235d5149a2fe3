//! The quote (`POST /v1/orders/quote`): every coupon's own discount and
//! the best combination.

use chrono::{DateTime, Utc};

use crate::domain::best::{Best, best_combination};
use crate::domain::coupon::Coupon;
use crate::domain::discount::discount_of;
use crate::domain::money::Money;
use crate::domain::order::Order;

/// One coupon of a quote: the discount it gives alone, or why none.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CouponQuote<C> {
    pub coupon_id: C,
    pub usable: bool,
    /// `0.00` when not usable.
    pub discount: Money,
    /// Set when not usable; `reason.code()` suits the JSON `reason`.
    pub reason: Option<crate::domain::discount::NotApplicable>,
}

/// A quote of an order against a user's coupons.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Quote<C> {
    /// In the order the coupons were given.
    pub coupons: Vec<CouponQuote<C>>,
    pub best: Best<C>,
}

/// Quotes `order` against `coupons` (the user's unused coupons) at `now`.
pub fn quote<C: Clone + Eq>(order: &Order, coupons: &[Coupon<C>], now: DateTime<Utc>) -> Quote<C> {
    let quotes = coupons
        .iter()
        .map(|c| match discount_of(order, c, now) {
            Ok(discount) => CouponQuote {
                coupon_id: c.id.clone(),
                usable: true,
                discount,
                reason: None,
            },
            Err(reason) => CouponQuote {
                coupon_id: c.id.clone(),
                usable: false,
                discount: Money::ZERO,
                reason: Some(reason),
            },
        })
        .collect();
    Quote {
        coupons: quotes,
        best: best_combination(order, coupons, now),
    }
}
