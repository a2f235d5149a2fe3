//! The quote (`POST /v1/orders/quote`): every coupon's own discount and
//! the best combination. The caller passes only coupons that could apply
//! (docs/design.md §15: what never can is filtered in SQL); when more remain
//! than [`SEARCH_BOUND`], the highest single discounts are searched and the
//! quote says it was truncated.

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

/// Most coupons one quote searches and lists: the combination search is
/// bounded per coupon (`best.rs`), and an answer of 200 entries stays small.
pub const SEARCH_BOUND: usize = 200;

/// A quote of an order against a user's coupons.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Quote<C> {
    /// The coupons searched: in the order given, or, when truncated, the
    /// highest single discounts first.
    pub coupons: Vec<CouponQuote<C>>,
    pub best: Best<C>,
    /// More coupons could apply than were searched.
    pub truncated: bool,
}

/// Quotes `order` against `coupons` (the user's unused coupons that could
/// apply) at `now`; `more` says the caller left some out.
pub fn quote<C: Clone + Eq>(
    order: &Order,
    coupons: &[Coupon<C>],
    now: DateTime<Utc>,
    more: bool,
) -> Quote<C> {
    let quotes = alone(order, coupons, now);
    let truncated = more || coupons.len() > SEARCH_BOUND;
    if coupons.len() <= SEARCH_BOUND {
        let best = best_combination(order, coupons, now);
        return Quote {
            coupons: quotes,
            best,
            truncated,
        };
    }
    let mut ranked: Vec<usize> = (0..coupons.len()).collect();
    ranked.sort_by_key(|&i| (std::cmp::Reverse(quotes[i].discount), i));
    ranked.truncate(SEARCH_BOUND);
    let searched: Vec<Coupon<C>> = ranked.iter().map(|&i| coupons[i].clone()).collect();
    let mut kept: Vec<Option<CouponQuote<C>>> = quotes.into_iter().map(Some).collect();
    Quote {
        coupons: ranked.iter().filter_map(|&i| kept[i].take()).collect(),
        best: best_combination(order, &searched, now),
        truncated,
    }
}

/// Every coupon's discount alone, or why none.
fn alone<C: Clone>(
    order: &Order,
    coupons: &[Coupon<C>],
    now: DateTime<Utc>,
) -> Vec<CouponQuote<C>> {
    coupons
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
        .collect()
}
