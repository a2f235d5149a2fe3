//! The quote (`POST /v1/orders/quote`): the discount each of the user's
//! templates gives alone and the best combination. The caller passes only
//! coupons that could apply (docs/design.md §15: what never can is filtered
//! in SQL). An order takes at most one coupon of a template, and coupons of
//! one template share its terms, so the candidates are first reduced to one
//! a template (the best for this order: the largest discount alone, then
//! the one expiring first); only when more usable templates remain than
//! [`SEARCH_BOUND`] are the highest single discounts searched and the quote
//! says it was truncated. A wallet holding a thousand copies of a template
//! therefore quotes as one holding a single copy.

use std::cmp::Reverse;
use std::collections::HashMap;

use chrono::{DateTime, Utc};

use crate::domain::best::{Best, best_combination};
use crate::domain::coupon::Coupon;
use crate::domain::discount::{NotApplicable, discount_of};
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

/// Most templates one quote searches and lists: the combination search is
/// bounded per coupon (`best.rs`), and an answer of 200 entries stays small.
pub const SEARCH_BOUND: usize = 200;

/// A quote of an order against a user's coupons.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Quote<C> {
    /// One coupon per template, the one the search would use: in the order
    /// given, or, when truncated, the highest single discounts first.
    pub coupons: Vec<CouponQuote<C>>,
    pub best: Best<C>,
    /// More usable templates could apply than were searched.
    pub truncated: bool,
}

/// Quotes `order` against `coupons` (the user's unused coupons that could
/// apply) at `now`; `more` says the caller left some out. `budgets` says
/// what the budgeted templates have left: a coupon whose discount alone
/// does not fit is unusable (`budget_exhausted`) and left out of the search.
pub fn quote<C: Clone + Eq>(
    order: &Order,
    coupons: &[Coupon<C>],
    now: DateTime<Utc>,
    more: bool,
    budgets: &[(String, Money)],
) -> Quote<C> {
    let quotes = within_budgets(alone(order, coupons, now), coupons, budgets);
    let mut kept = one_per_template(coupons, &quotes);
    let usable = kept.iter().filter(|&&i| quotes[i].usable).count();
    let truncated = more || usable > SEARCH_BOUND;
    if kept.len() > SEARCH_BOUND {
        // Unusable templates give 0 alone: they are the first to go.
        kept.sort_by_key(|&i| (Reverse(quotes[i].discount), i));
        kept.truncate(SEARCH_BOUND);
    }
    let searched: Vec<Coupon<C>> = kept
        .iter()
        .filter(|&&i| {
            !matches!(
                quotes[i].reason,
                Some(NotApplicable::BudgetExhausted { .. })
            )
        })
        .map(|&i| coupons[i].clone())
        .collect();
    let mut listed: Vec<Option<CouponQuote<C>>> = quotes.into_iter().map(Some).collect();
    Quote {
        coupons: kept.iter().filter_map(|&i| listed[i].take()).collect(),
        best: best_combination(order, &searched, now),
        truncated,
    }
}

/// The positions of one coupon per template, in the order the templates
/// first appear: the usable one with the largest discount alone, then the
/// one expiring first, then the earliest given; a template none of whose
/// coupons is usable keeps its first, to say why.
fn one_per_template<C>(coupons: &[Coupon<C>], quotes: &[CouponQuote<C>]) -> Vec<usize> {
    let rank = |i: usize| {
        let q = &quotes[i];
        (
            Reverse(q.usable),
            Reverse(q.discount),
            coupons[i].validity.expires_at,
            i,
        )
    };
    let mut slot: HashMap<&str, usize> = HashMap::new();
    let mut kept: Vec<usize> = Vec::new();
    for (i, c) in coupons.iter().enumerate() {
        match slot.get(c.template_sn.as_str()) {
            Some(&s) if rank(i) < rank(kept[s]) => kept[s] = i,
            Some(_) => {}
            None => {
                slot.insert(&c.template_sn, kept.len());
                kept.push(i);
            }
        }
    }
    kept
}

/// The quotes with every usable coupon whose discount alone is more than
/// its template's budget has left marked unusable. A combination never
/// gives a coupon more than it gives alone, so what fits alone is all a
/// lock could charge.
fn within_budgets<C>(
    mut quotes: Vec<CouponQuote<C>>,
    coupons: &[Coupon<C>],
    budgets: &[(String, Money)],
) -> Vec<CouponQuote<C>> {
    for (q, c) in quotes.iter_mut().zip(coupons) {
        let left = budgets.iter().find(|(sn, _)| *sn == c.template_sn);
        if let Some(&(_, left)) = left.filter(|(_, left)| q.usable && q.discount > *left) {
            q.usable = false;
            q.discount = Money::ZERO;
            q.reason = Some(NotApplicable::BudgetExhausted { left });
        }
    }
    quotes
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
