//! The discount of one coupon on an order, and why a coupon does not apply.
//!
//! The base of a goods coupon is what is left of its in-scope lines; of a
//! shipping coupon, what is left of the shipping fee (region and user tag
//! scope still apply; a product or category scope on a shipping coupon
//! requires at least one such line in the order). Thresholds are inclusive
//! (base ≥ threshold) and a discount never exceeds its base.

use chrono::{DateTime, Utc};

use crate::domain::allocation::split_largest_remainder;
use crate::domain::coupon::Coupon;
use crate::domain::money::{Currency, Money};
use crate::domain::order::Order;
use crate::domain::rule::DiscountRule;
use crate::domain::scope::ScopeKind;
use crate::domain::terms::{Kind, Stacking};

/// Why a coupon gives no discount on an order.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum NotApplicable {
    #[error("the coupon is in {coupon}, the order in {order}")]
    CurrencyMismatch { coupon: Currency, order: Currency },
    #[error("the coupon is not effective before {effective_at}")]
    NotYetEffective { effective_at: DateTime<Utc> },
    #[error("the coupon expired at {expires_at}")]
    Expired { expires_at: DateTime<Utc> },
    #[error("the order is outside the coupon's {0} scope")]
    OutOfScope(ScopeKind),
    #[error("no line of the order is within the coupon's scope")]
    NoLineInScope,
    #[error("the amount {base} is below the threshold {threshold}")]
    BelowThreshold { threshold: Money, base: Money },
    #[error("there is nothing left for the coupon to discount")]
    NothingToDiscount,
    #[error("its template's budget has {left} left, less than the discount")]
    BudgetExhausted { left: Money },
}

impl NotApplicable {
    /// A stable machine-readable code, e.g. for the quote's `reason`.
    pub fn code(&self) -> &'static str {
        match self {
            NotApplicable::CurrencyMismatch { .. } => "currency_mismatch",
            NotApplicable::NotYetEffective { .. } => "not_yet_effective",
            NotApplicable::Expired { .. } => "expired",
            NotApplicable::OutOfScope(_) => "out_of_scope",
            NotApplicable::NoLineInScope => "no_line_in_scope",
            NotApplicable::BelowThreshold { .. } => "below_threshold",
            NotApplicable::NothingToDiscount => "nothing_to_discount",
            NotApplicable::BudgetExhausted { .. } => "budget_exhausted",
        }
    }
}

/// The discount `coupon` alone gives on `order` at `now`.
pub fn discount_of<C>(
    order: &Order,
    coupon: &Coupon<C>,
    now: DateTime<Utc>,
) -> Result<Money, NotApplicable> {
    let prepared = Prepared::new(order, coupon, now)?;
    prepared
        .discount(&Remaining::of(order))
        .map(Money::from_cents)
}

/// What is still to pay of each line and of the shipping fee, in cents, as
/// coupons are applied one after the other.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Remaining {
    pub(crate) lines: Vec<i64>,
    pub(crate) shipping: i64,
}

/// The parts of one coupon's discount, in cents.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Parts {
    /// `(line index, cents)`, in line order, no zero parts.
    Lines(Vec<(usize, i64)>),
    Shipping(i64),
}

impl Remaining {
    pub(crate) fn of(order: &Order) -> Remaining {
        Remaining {
            lines: order.lines().iter().map(|l| l.amount().cents()).collect(),
            shipping: order.shipping_fee().cents(),
        }
    }

    pub(crate) fn take(&mut self, parts: &Parts) {
        match parts {
            Parts::Lines(ps) => ps.iter().for_each(|&(i, c)| self.lines[i] -= c),
            Parts::Shipping(c) => self.shipping -= c,
        }
        debug_assert!(self.lines.iter().all(|c| *c >= 0) && self.shipping >= 0);
    }

    pub(crate) fn give_back(&mut self, parts: &Parts) {
        match parts {
            Parts::Lines(ps) => ps.iter().for_each(|&(i, c)| self.lines[i] += c),
            Parts::Shipping(c) => self.shipping += c,
        }
    }
}

impl Parts {
    pub(crate) fn total(&self) -> i64 {
        match self {
            Parts::Lines(ps) => ps.iter().map(|p| p.1).sum(),
            Parts::Shipping(c) => *c,
        }
    }
}

/// A coupon checked once against the parts of an order that do not change
/// as other coupons apply (currency, validity, scope): what remains is the
/// base-dependent part, evaluated many times by the best-combination search.
#[derive(Debug, Clone)]
pub(crate) struct Prepared<'a> {
    pub(crate) kind: Kind,
    pub(crate) stacking: Stacking,
    pub(crate) rule: &'a DiscountRule,
    /// In-scope line indices (goods coupons only), ascending.
    pub(crate) lines: Vec<usize>,
}

impl<'a> Prepared<'a> {
    pub(crate) fn new<C>(
        order: &Order,
        coupon: &'a Coupon<C>,
        now: DateTime<Utc>,
    ) -> Result<Self, NotApplicable> {
        let terms = &coupon.terms;
        if terms.currency() != order.currency() {
            let (coupon, order) = (terms.currency().clone(), order.currency().clone());
            return Err(NotApplicable::CurrencyMismatch { coupon, order });
        }
        check_validity(coupon, now)?;
        terms
            .scope()
            .admits_order(order)
            .map_err(NotApplicable::OutOfScope)?;
        let lines: Vec<usize> = (0..order.lines().len())
            .filter(|&i| terms.scope().covers_line(&order.lines()[i]))
            .collect();
        if lines.is_empty() {
            return Err(NotApplicable::NoLineInScope);
        }
        let lines = if terms.kind() == Kind::Goods {
            lines
        } else {
            Vec::new()
        };
        Ok(Prepared {
            kind: terms.kind(),
            stacking: terms.stacking(),
            rule: terms.rule(),
            lines,
        })
    }

    /// What the coupon would discount from, given what is left.
    pub(crate) fn base(&self, left: &Remaining) -> i64 {
        match self.kind {
            Kind::Goods => self.lines.iter().map(|&i| left.lines[i]).sum(),
            Kind::Shipping => left.shipping,
        }
    }

    /// The discount in cents (> 0) on what is left.
    pub(crate) fn discount(&self, left: &Remaining) -> Result<i64, NotApplicable> {
        self.discount_on(self.base(left))
    }

    /// The discount in cents (> 0) on `base`, what is left of its lines
    /// (or of the shipping fee).
    pub(crate) fn discount_on(&self, base: i64) -> Result<i64, NotApplicable> {
        let discount =
            self.rule
                .discount_cents(base)
                .map_err(|threshold| NotApplicable::BelowThreshold {
                    threshold: Money::from_cents(threshold),
                    base: Money::from_cents(base),
                })?;
        debug_assert!(discount <= base);
        if discount <= 0 {
            return Err(NotApplicable::NothingToDiscount);
        }
        Ok(discount)
    }

    /// Splits a discount over what the coupon touches (see `allocation`).
    pub(crate) fn split(&self, left: &Remaining, discount: i64) -> Parts {
        match self.kind {
            Kind::Shipping => Parts::Shipping(discount),
            Kind::Goods => {
                let weights: Vec<(usize, i64)> =
                    self.lines.iter().map(|&i| (i, left.lines[i])).collect();
                Parts::Lines(split_largest_remainder(discount, &weights))
            }
        }
    }
}

fn check_validity<C>(coupon: &Coupon<C>, now: DateTime<Utc>) -> Result<(), NotApplicable> {
    let v = &coupon.validity;
    if now < v.effective_at {
        return Err(NotApplicable::NotYetEffective {
            effective_at: v.effective_at,
        });
    }
    if now > v.expires_at {
        return Err(NotApplicable::Expired {
            expires_at: v.expires_at,
        });
    }
    Ok(())
}
