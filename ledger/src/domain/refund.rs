//! Partial refunds (按比例退).
//!
//! Refunding `q` of a line's `n` units returns `paid_line · q / n` rounded
//! half-up to the cent, and reverses the same share of each coupon's
//! allocation on that line (finance's coupon cost). The refund that takes the
//! last units of a line takes exactly what is left, so refunding every unit in
//! any sequence returns exactly what was paid and reverses exactly each
//! allocation; an earlier refund never takes more than is left.
//!
//! Shipping is never refunded on its own: the refund that leaves every line
//! fully refunded also refunds what was paid for shipping and reverses the
//! shipping coupon. A coupon is released (goes back to the user, per the
//! template's refund policy) once every line it was allocated to — and the
//! shipping fee, for a shipping coupon — is fully refunded.

use serde::{Deserialize, Serialize};

use crate::domain::allocation::Allocation;
use crate::domain::money::{Money, share_half_up};
use crate::domain::order::Order;

/// What was paid for an order once its coupons were locked: per line and
/// for shipping, what was paid and which coupons' parts it carries.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Settlement<C> {
    lines: Vec<SettledLine<C>>,
    shipping: Settled<C>,
    /// Every coupon, in first-allocation order.
    coupons: Vec<C>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
struct SettledLine<C> {
    line_id: String,
    quantity: u32,
    settled: Settled<C>,
}

/// Paid cents, and each coupon's part in cents (no zero parts).
#[derive(Debug, Clone, PartialEq, Eq)]
struct Settled<C> {
    paid: i64,
    parts: Vec<(C, i64)>,
}

/// Allocations that do not fit the order.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SettlementError {
    #[error("an allocation names line {0:?}, which is not in the order")]
    UnknownLine(String),
    #[error("the allocations on line {0:?} exceed its amount")]
    OverAllocatedLine(String),
    #[error("the allocations on shipping exceed the shipping fee")]
    OverAllocatedShipping,
}

/// One line of a refund request: `{line_id, quantity}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct RefundLine {
    pub line_id: String,
    pub quantity: u32,
}

/// A refund request that cannot be honoured.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RefundError {
    #[error("a refund must list at least one line")]
    Empty,
    #[error("line {0:?} is not in the order")]
    UnknownLine(String),
    #[error("line {0:?} is listed twice")]
    DuplicateLine(String),
    #[error("the quantity of line {0:?} must be at least 1")]
    ZeroQuantity(String),
    #[error("line {line_id:?} has {remaining} unit(s) left to refund, {requested} requested")]
    TooMany {
        line_id: String,
        requested: u32,
        remaining: u32,
    },
    #[error("the earlier refunds do not match the order")]
    InconsistentHistory,
}

impl RefundError {
    pub fn code(&self) -> &'static str {
        match self {
            RefundError::Empty => "empty_refund",
            RefundError::UnknownLine(_) => "unknown_line",
            RefundError::DuplicateLine(_) => "duplicate_line",
            RefundError::ZeroQuantity(_) => "zero_quantity",
            RefundError::TooMany { .. } => "refund_exceeds_quantity",
            RefundError::InconsistentHistory => "inconsistent_history",
        }
    }
}

/// The reversal of part of one coupon's allocation.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Reversal<C> {
    pub coupon_id: C,
    pub amount: Money,
}

/// What one line of a refund returns.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct RefundedLine<C> {
    pub line_id: String,
    pub quantity: u32,
    pub amount: Money,
    pub reversals: Vec<Reversal<C>>,
}

/// The shipping part of the refund that completes the order's refund.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct RefundedShipping<C> {
    pub amount: Money,
    pub reversals: Vec<Reversal<C>>,
}

/// Per coupon of the order: what this refund reversed, and whether every
/// line it was allocated to is now fully refunded.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct CouponRefund<C> {
    pub coupon_id: C,
    pub reversed: Money,
    pub released: bool,
}

/// The outcome of one refund. Store it: later refunds take the earlier ones
/// as input.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Refund<C> {
    /// Returned to the customer: lines plus shipping.
    pub amount: Money,
    pub lines: Vec<RefundedLine<C>>,
    pub shipping: Option<RefundedShipping<C>>,
    /// The sum of all reversals.
    pub coupon_cost_reversed: Money,
    /// Every coupon of the order, in allocation order.
    pub coupons: Vec<CouponRefund<C>>,
    /// The coupons this refund released (not released before).
    pub coupons_returned: Vec<C>,
}

/// What earlier refunds took, per line; and whether shipping was refunded.
struct History<C> {
    lines: Vec<Taken<C>>,
    shipping_refunded: bool,
}

#[derive(Clone)]
struct Taken<C> {
    units: u32,
    amount: i64,
    reversed: Vec<(C, i64)>,
}

impl<C> Default for Taken<C> {
    fn default() -> Self {
        Taken {
            units: 0,
            amount: 0,
            reversed: Vec::new(),
        }
    }
}

fn add_part<C: Eq>(parts: &mut Vec<(C, i64)>, coupon: C, cents: i64) {
    match parts.iter_mut().find(|p| p.0 == coupon) {
        Some(p) => p.1 += cents,
        None => parts.push((coupon, cents)),
    }
}

fn part_of<C: Eq>(parts: &[(C, i64)], coupon: &C) -> i64 {
    parts.iter().find(|p| p.0 == *coupon).map_or(0, |p| p.1)
}

impl<C: Clone + Eq> Settlement<C> {
    /// Rebuilds what was paid from the order and the allocations of its lock
    /// (e.g. `Pricing::allocations`, or those stored in the lock event).
    pub fn new(
        order: &Order,
        allocations: &[Allocation<C>],
    ) -> Result<Settlement<C>, SettlementError> {
        let mut lines: Vec<SettledLine<C>> = order
            .lines()
            .iter()
            .map(|l| SettledLine {
                line_id: l.line_id().to_owned(),
                quantity: l.quantity(),
                settled: Settled {
                    paid: l.amount().cents(),
                    parts: Vec::new(),
                },
            })
            .collect();
        let mut shipping = Settled {
            paid: order.shipping_fee().cents(),
            parts: Vec::new(),
        };
        let mut coupons: Vec<C> = Vec::new();
        for a in allocations.iter().filter(|a| !a.amount.is_zero()) {
            let target = match &a.line_id {
                Some(id) => {
                    let i = order
                        .line_index(id)
                        .ok_or_else(|| SettlementError::UnknownLine(id.clone()))?;
                    &mut lines[i].settled
                }
                None => &mut shipping,
            };
            target.paid -= a.amount.cents();
            if target.paid < 0 {
                return Err(match &a.line_id {
                    Some(id) => SettlementError::OverAllocatedLine(id.clone()),
                    None => SettlementError::OverAllocatedShipping,
                });
            }
            add_part(&mut target.parts, a.coupon_id.clone(), a.amount.cents());
            if !coupons.contains(&a.coupon_id) {
                coupons.push(a.coupon_id.clone());
            }
        }
        Ok(Settlement {
            lines,
            shipping,
            coupons,
        })
    }

    /// What the customer paid in all (lines and shipping).
    pub fn paid(&self) -> Money {
        Money::from_cents(
            self.lines.iter().map(|l| l.settled.paid).sum::<i64>() + self.shipping.paid,
        )
    }

    /// What the customer paid for one line.
    pub fn line_paid(&self, line_id: &str) -> Option<Money> {
        self.lines
            .iter()
            .find(|l| l.line_id == line_id)
            .map(|l| Money::from_cents(l.settled.paid))
    }

    /// Computes the refund of `request`, given every earlier refund of the
    /// order (`past`, as returned by this function).
    pub fn refund(
        &self,
        past: &[Refund<C>],
        request: &[RefundLine],
    ) -> Result<Refund<C>, RefundError> {
        let history = self.history(past)?;
        let wanted = self.validate(&history, request)?;
        let lines: Vec<RefundedLine<C>> = wanted
            .iter()
            .map(|&(i, q)| self.refund_line(i, q, &history.lines[i]))
            .collect();
        let mut units: Vec<u32> = history.lines.iter().map(|t| t.units).collect();
        wanted.iter().for_each(|&(i, q)| units[i] += q);
        let all_done = self.lines.iter().zip(&units).all(|(l, u)| *u == l.quantity);
        let shipping = (all_done && !history.shipping_refunded)
            .then(|| self.refund_shipping())
            .flatten();
        let summary = self.coupon_summary(&history, &units, &lines, shipping.as_ref());
        let line_cents: i64 = lines.iter().map(|l| l.amount.cents()).sum();
        let amount = line_cents + shipping.as_ref().map_or(0, |s| s.amount.cents());
        let reversed: i64 = summary.iter().map(|c| c.reversed.cents()).sum();
        let coupons_returned = self.newly_released(&history, &summary);
        Ok(Refund {
            amount: Money::from_cents(amount),
            lines,
            shipping,
            coupon_cost_reversed: Money::from_cents(reversed),
            coupons: summary,
            coupons_returned,
        })
    }

    fn history(&self, past: &[Refund<C>]) -> Result<History<C>, RefundError> {
        let mut lines = vec![Taken::default(); self.lines.len()];
        let mut shipping_refunded = false;
        for refund in past {
            for l in &refund.lines {
                let i = self
                    .index(&l.line_id)
                    .ok_or(RefundError::InconsistentHistory)?;
                let taken = &mut lines[i];
                taken.units = taken.units.saturating_add(l.quantity);
                taken.amount += l.amount.cents();
                l.reversals.iter().for_each(|r| {
                    add_part(&mut taken.reversed, r.coupon_id.clone(), r.amount.cents())
                });
                let line = &self.lines[i];
                let over_reversed = taken
                    .reversed
                    .iter()
                    .any(|(c, r)| *r > part_of(&line.settled.parts, c));
                if taken.units > line.quantity || taken.amount > line.settled.paid || over_reversed
                {
                    return Err(RefundError::InconsistentHistory);
                }
            }
            shipping_refunded |= refund.shipping.is_some();
        }
        Ok(History {
            lines,
            shipping_refunded,
        })
    }

    fn index(&self, line_id: &str) -> Option<usize> {
        self.lines.iter().position(|l| l.line_id == line_id)
    }

    /// Resolves the request to `(line index, quantity)`, refusing anything
    /// that would refund more units than are left.
    fn validate(
        &self,
        history: &History<C>,
        request: &[RefundLine],
    ) -> Result<Vec<(usize, u32)>, RefundError> {
        if request.is_empty() {
            return Err(RefundError::Empty);
        }
        let mut wanted: Vec<(usize, u32)> = Vec::with_capacity(request.len());
        for r in request {
            let i = self
                .index(&r.line_id)
                .ok_or_else(|| RefundError::UnknownLine(r.line_id.clone()))?;
            if wanted.iter().any(|w| w.0 == i) {
                return Err(RefundError::DuplicateLine(r.line_id.clone()));
            }
            if r.quantity == 0 {
                return Err(RefundError::ZeroQuantity(r.line_id.clone()));
            }
            let remaining = self.lines[i].quantity - history.lines[i].units;
            if r.quantity > remaining {
                let (line_id, requested) = (r.line_id.clone(), r.quantity);
                return Err(RefundError::TooMany {
                    line_id,
                    requested,
                    remaining,
                });
            }
            wanted.push((i, r.quantity));
        }
        Ok(wanted)
    }

    fn refund_line(&self, i: usize, q: u32, taken: &Taken<C>) -> RefundedLine<C> {
        let line = &self.lines[i];
        let n = line.quantity;
        let last = taken.units + q == n;
        let share = |whole: i64, already: i64| {
            let left = whole - already;
            if last {
                left
            } else {
                share_half_up(whole, i64::from(q), i64::from(n)).min(left)
            }
        };
        let amount = share(line.settled.paid, taken.amount);
        let reversals = line
            .settled
            .parts
            .iter()
            .map(|(c, a)| (c, share(*a, part_of(&taken.reversed, c))))
            .filter(|(_, cents)| *cents > 0)
            .map(|(c, cents)| Reversal {
                coupon_id: c.clone(),
                amount: Money::from_cents(cents),
            })
            .collect();
        RefundedLine {
            line_id: line.line_id.clone(),
            quantity: q,
            amount: Money::from_cents(amount),
            reversals,
        }
    }

    fn refund_shipping(&self) -> Option<RefundedShipping<C>> {
        let s = &self.shipping;
        if s.paid == 0 && s.parts.is_empty() {
            return None;
        }
        let reversals = s
            .parts
            .iter()
            .map(|(c, a)| Reversal {
                coupon_id: c.clone(),
                amount: Money::from_cents(*a),
            })
            .collect();
        Some(RefundedShipping {
            amount: Money::from_cents(s.paid),
            reversals,
        })
    }

    /// Whether coupon `c` is released once the lines have `units` refunded
    /// and shipping is (or is not) refunded.
    fn released(&self, c: &C, units: &[u32], shipping_done: bool) -> bool {
        let lines_done = self
            .lines
            .iter()
            .zip(units)
            .filter(|(l, _)| part_of(&l.settled.parts, c) > 0)
            .all(|(l, u)| *u == l.quantity);
        lines_done && (shipping_done || part_of(&self.shipping.parts, c) == 0)
    }

    fn coupon_summary(
        &self,
        history: &History<C>,
        units: &[u32],
        lines: &[RefundedLine<C>],
        shipping: Option<&RefundedShipping<C>>,
    ) -> Vec<CouponRefund<C>> {
        let all_done = self.lines.iter().zip(units).all(|(l, u)| *u == l.quantity);
        let shipping_done = history.shipping_refunded || all_done;
        let shipping_reversals = shipping.map(|s| s.reversals.as_slice()).unwrap_or_default();
        self.coupons
            .iter()
            .map(|c| {
                let reversed: i64 = lines
                    .iter()
                    .flat_map(|l| &l.reversals)
                    .chain(shipping_reversals)
                    .filter(|r| r.coupon_id == *c)
                    .map(|r| r.amount.cents())
                    .sum();
                let released = self.released(c, units, shipping_done);
                CouponRefund {
                    coupon_id: c.clone(),
                    reversed: Money::from_cents(reversed),
                    released,
                }
            })
            .collect()
    }

    fn newly_released(&self, history: &History<C>, summary: &[CouponRefund<C>]) -> Vec<C> {
        let before: Vec<u32> = history.lines.iter().map(|t| t.units).collect();
        let shipping_before = history.shipping_refunded;
        summary
            .iter()
            .filter(|c| c.released && !self.released(&c.coupon_id, &before, shipping_before))
            .map(|c| c.coupon_id.clone())
            .collect()
    }
}
