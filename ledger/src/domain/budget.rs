//! A template's budget (docs/design.md §15, "Budgets"): the most its
//! coupons may cost in all (`total`) and per business day (`daily`), in the
//! template's currency. A lock reserves its coupons' discounts, a confirm
//! keeps them (spent), a cancel or a lock's timeout gives them back, a
//! refund gives back the cost it reverses.
//!
//! The day's counters belong to one day at a time, the latest a lock was
//! charged to: a lock on a later day starts them again from zero, and
//! whatever settles a lock of an earlier day changes only the total's.
//! A lock is charged to its own business day, or to the counters' day when
//! that is later (a lock that read the clock just before midnight and
//! reached the row after a lock of the new day), so the days a row goes
//! through only move forward and the fold of the events in the store's
//! order ends where the row did (see [`Counters`]).
//!
//! Pure: the write model's guarded statements (`template_guards::budget`)
//! and the replay's fold apply the same rules.

use chrono::NaiveDate;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;
use uuid::Uuid;

use crate::domain::allocation::Allocation;
use crate::domain::ids::TemplateSn;
use crate::domain::money::Money;
use crate::domain::parse_error::{ParseError, ParseErrorKind};
use crate::domain::refund::CouponRefund;

/// A budget as a request gives it: amounts written as strings.
#[derive(Clone, Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct RawBudget {
    /// The most the template's coupons may cost in all, e.g. `"1000.00"`.
    #[schema(value_type = crate::domain::money::PositiveMoney)]
    pub total: String,
    /// The most they may cost per business day (`LEDGER_TZ`); absent: no
    /// daily cap. At most `total`.
    #[schema(value_type = Option<crate::domain::money::PositiveMoney>)]
    pub daily: Option<String>,
}

/// A template's budget: positive amounts, `daily ≤ total`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Budget {
    pub total: Money,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub daily: Option<Money>,
}

impl Budget {
    /// Validates `raw`; the error names the field (`total`, `daily`).
    pub fn parse(raw: &RawBudget) -> Result<Budget, ParseError> {
        let positive = |field: &str, text: &str| {
            let amount = Money::parse(text).map_err(|e| ParseError::new(field, e))?;
            if amount.is_zero() {
                return Err(ParseError::new(field, ParseErrorKind::NotPositive));
            }
            Ok(amount)
        };
        let total = positive("total", &raw.total)?;
        let daily = raw
            .daily
            .as_deref()
            .map(|d| positive("daily", d))
            .transpose()?;
        if daily.is_some_and(|d| d > total) {
            return Err(ParseError::new("daily", ParseErrorKind::DailyOverTotal));
        }
        Ok(Budget { total, daily })
    }

    /// What `asked` changes of this budget: each amount may only rise, and
    /// a daily cap cannot be added to a budget without one (that would
    /// lower it). `None`: nothing changes.
    pub fn raise(self, asked: Budget) -> Result<Option<Budget>, BudgetRefusal> {
        if asked.total < self.total {
            return Err(BudgetRefusal::NotRaised("total", self.total));
        }
        let daily = match (self.daily, asked.daily) {
            (None, Some(_)) => return Err(BudgetRefusal::DailyAdded),
            (Some(now), Some(d)) if d < now => {
                return Err(BudgetRefusal::NotRaised("daily", now));
            }
            (now, d) => d.or(now),
        };
        let raised = Budget {
            total: asked.total,
            daily,
        };
        Ok((raised != self).then_some(raised))
    }
}

/// Why a budget change is refused (409 `budget_not_raised`).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum BudgetRefusal {
    #[error("budget.{0}: may only be raised (now {1})")]
    NotRaised(&'static str, Money),
    #[error("budget.daily: a budget without a daily cap cannot gain one (it would lower it)")]
    DailyAdded,
    #[error("budget: the template has none; a budget is set when the template is created")]
    NotSet,
}

/// One coupon's charge to its template's budget: its discount in the lock.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct CouponCharge {
    pub coupon_id: Uuid,
    pub template_sn: TemplateSn,
    pub amount: Money,
}

/// What a lock charged to budgets: the business day it was charged to and
/// each budgeted coupon's discount. Kept on the order (and in its
/// `OrderLocked`), so that settling and refunding give back exactly it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct BudgetCharges {
    pub day: NaiveDate,
    pub coupons: Vec<CouponCharge>,
}

/// The most coupons one order holds (the lock's own limit) bounds these lists.
impl BudgetCharges {
    /// The charges of a lock's `allocations` to the budgets of the coupons
    /// `budgeted` names (its template, when that has a budget), on `day`;
    /// `None` when no coupon's template has one.
    pub fn of(
        allocations: &[Allocation<Uuid>],
        budgeted: impl Fn(&Uuid) -> Option<TemplateSn>,
        day: NaiveDate,
    ) -> Option<BudgetCharges> {
        let mut coupons: Vec<CouponCharge> = Vec::new();
        for a in allocations {
            let Some(sn) = budgeted(&a.coupon_id) else {
                continue;
            };
            match coupons.iter_mut().find(|c| c.coupon_id == a.coupon_id) {
                Some(c) => c.amount = Money::from_cents(c.amount.cents() + a.amount.cents()),
                None => coupons.push(CouponCharge {
                    coupon_id: a.coupon_id,
                    template_sn: sn,
                    amount: a.amount,
                }),
            }
        }
        (!coupons.is_empty()).then_some(BudgetCharges { day, coupons })
    }

    /// The charges summed per template, in sn order (the order every write
    /// takes the budgets' rows in, so that none can deadlock).
    pub fn per_template(&self) -> Vec<(TemplateSn, Money)> {
        sum_per_template(self.coupons.iter().map(|c| (&c.template_sn, c.amount)))
    }

    /// What a refund gives back per template: each budgeted coupon's
    /// reversed cost, in sn order.
    pub fn returned(&self, refunded: &[CouponRefund<Uuid>]) -> Vec<(TemplateSn, Money)> {
        let reversed = refunded.iter().filter_map(|r| {
            let charge = self.coupons.iter().find(|c| c.coupon_id == r.coupon_id)?;
            debug_assert!(
                r.reversed <= charge.amount,
                "a refund reverses at most the charge"
            );
            Some((&charge.template_sn, r.reversed))
        });
        sum_per_template(reversed)
    }
}

fn sum_per_template<'a>(
    amounts: impl Iterator<Item = (&'a TemplateSn, Money)>,
) -> Vec<(TemplateSn, Money)> {
    let mut sums: Vec<(TemplateSn, Money)> = Vec::new();
    for (sn, amount) in amounts.filter(|(_, a)| !a.is_zero()) {
        match sums.iter_mut().find(|(s, _)| s == sn) {
            Some((_, sum)) => *sum = Money::from_cents(sum.cents() + amount.cents()),
            None => sums.push((sn.clone(), amount)),
        }
    }
    sums.sort_by(|a, b| a.0.as_str().cmp(b.0.as_str()));
    sums
}

/// A budget's counters, in cents: the total's and the current day's.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Counters {
    pub spent: i64,
    pub reserved: i64,
    /// The day the day's counters are of (none before the first lock).
    pub day: Option<NaiveDate>,
    pub day_spent: i64,
    pub day_reserved: i64,
}

/// What a settled or refunded charge does.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Settle {
    /// A confirm: reserved becomes spent.
    Keep,
    /// A cancel or a lock's timeout: reserved is given back.
    Release,
    /// A refund: spent is given back.
    Refund,
}

impl Counters {
    /// A lock's charge of `cents` to `day` (as the store recorded it: the
    /// guard held then). A charge to a day before the counters' moves the
    /// total's only.
    pub fn charge(&mut self, cents: i64, day: NaiveDate) {
        self.reserved += cents;
        if self.day.is_some_and(|d| d > day) {
            return;
        }
        let (day_spent, day_reserved) = self.of_day(day);
        self.day = Some(day);
        self.day_spent = day_spent;
        self.day_reserved = day_reserved + cents;
    }

    /// A charge of `cents` made on `day` settled the `how` way.
    pub fn settle(&mut self, how: Settle, cents: i64, day: NaiveDate) {
        let today = self.day == Some(day);
        let (spent, reserved) = match how {
            Settle::Keep => (cents, -cents),
            Settle::Release => (0, -cents),
            Settle::Refund => (-cents, 0),
        };
        self.spent += spent;
        self.reserved += reserved;
        if today {
            self.day_spent += spent;
            self.day_reserved += reserved;
        }
    }

    /// The day's counters as they stand for `day` (zero for a new day).
    fn of_day(&self, day: NaiveDate) -> (i64, i64) {
        if self.day.is_some_and(|d| d >= day) {
            (self.day_spent, self.day_reserved)
        } else {
            (0, 0)
        }
    }

    /// What is left of `budget` on `today`: the total's and, when it has a
    /// daily cap, the day's, whichever is less.
    pub fn left(&self, budget: Budget, today: NaiveDate) -> Money {
        let total = budget.total.cents() - self.spent - self.reserved;
        let day = budget.daily.map_or(i64::MAX, |d| {
            let (spent, reserved) = if self.day == Some(today) {
                (self.day_spent, self.day_reserved)
            } else {
                (0, 0)
            };
            d.cents() - spent - reserved
        });
        Money::from_cents(total.min(day).max(0))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn budget(total: &str, daily: Option<&str>) -> Budget {
        Budget::parse(&RawBudget {
            total: total.into(),
            daily: daily.map(Into::into),
        })
        .unwrap()
    }

    /// The write model's guard (`template_guards::budget::reserve`, in
    /// SQL), written out to check the fold against it: the charge goes to
    /// the later of the lock's day and the counters', if `budget` leaves room.
    fn reserve(c: &mut Counters, budget: Budget, cents: i64, day: NaiveDate) -> Option<NaiveDate> {
        let charged = c.day.map_or(day, |d| d.max(day));
        let (day_spent, day_reserved) = c.of_day(charged);
        let total_ok = c.spent + c.reserved + cents <= budget.total.cents();
        let daily_ok = budget
            .daily
            .is_none_or(|d| day_spent + day_reserved + cents <= d.cents());
        (total_ok && daily_ok).then(|| {
            c.charge(cents, charged);
            charged
        })
    }

    fn day(d: u32) -> NaiveDate {
        NaiveDate::from_ymd_opt(2026, 11, d).unwrap()
    }

    #[test]
    fn amounts_must_be_positive_with_two_places_and_daily_within_total() {
        let field = |t: &str, d: Option<&str>| {
            Budget::parse(&RawBudget {
                total: t.into(),
                daily: d.map(Into::into),
            })
            .unwrap_err()
            .field()
            .to_owned()
        };
        assert_eq!(field("0", None), "total");
        assert_eq!(field("10.001", None), "total");
        assert_eq!(field("-1", None), "total");
        assert_eq!(field("10", Some("0.00")), "daily");
        assert_eq!(field("10", Some("11")), "daily");
        assert_eq!(
            budget("10", Some("10")).daily,
            Some(Money::parse("10").unwrap())
        );
    }

    #[test]
    fn a_lock_past_what_is_left_is_refused_and_a_release_makes_room() {
        let b = budget("30.00", None);
        let mut c = Counters::default();
        assert_eq!(reserve(&mut c, b, 1_000, day(1)), Some(day(1)));
        assert_eq!(reserve(&mut c, b, 2_000, day(1)), Some(day(1)));
        assert_eq!(reserve(&mut c, b, 1, day(1)), None);
        c.settle(Settle::Release, 1_000, day(1));
        c.settle(Settle::Keep, 2_000, day(1));
        assert_eq!((c.spent, c.reserved), (2_000, 0));
        assert_eq!(c.left(b, day(1)), Money::parse("10").unwrap());
        c.settle(Settle::Refund, 500, day(1));
        assert_eq!(c.left(b, day(1)), Money::parse("15").unwrap());
    }

    #[test]
    fn the_daily_cap_starts_again_each_day_and_an_old_days_settling_leaves_today_alone() {
        let b = budget("100.00", Some("20.00"));
        let mut c = Counters::default();
        assert_eq!(reserve(&mut c, b, 2_000, day(1)), Some(day(1)));
        assert_eq!(reserve(&mut c, b, 1, day(1)), None);
        assert_eq!(c.left(b, day(2)), Money::parse("20").unwrap());
        assert_eq!(reserve(&mut c, b, 2_000, day(2)), Some(day(2)));
        // Day 1's lock confirmed on day 2: the total's counters only.
        c.settle(Settle::Keep, 2_000, day(1));
        assert_eq!(
            (c.spent, c.reserved, c.day_spent, c.day_reserved),
            (2_000, 2_000, 0, 2_000)
        );
        // A lock that read day 1 and reached the row after day 2's: day 2's.
        assert_eq!(reserve(&mut c, b, 1, day(1)), None);
    }

    #[test]
    fn folding_charges_out_of_order_ends_where_the_row_did() {
        let b = budget("100.00", Some("50.00"));
        let mut live = Counters::default();
        let late = reserve(&mut live, b, 700, day(1)).unwrap();
        let early = reserve(&mut live, b, 300, day(2)).unwrap();
        let mut fold = Counters::default();
        fold.charge(300, early);
        fold.charge(700, late);
        assert_eq!(fold, live);
    }

    #[test]
    fn raising_only_rises_and_a_daily_cap_is_never_added() {
        let b = budget("100", Some("10"));
        assert_eq!(b.raise(budget("100", Some("10"))), Ok(None));
        assert_eq!(
            b.raise(budget("200", None)).unwrap().unwrap().daily,
            b.daily
        );
        assert!(matches!(
            b.raise(budget("90", None)),
            Err(BudgetRefusal::NotRaised("total", _))
        ));
        assert!(matches!(
            b.raise(budget("100", Some("5"))),
            Err(BudgetRefusal::NotRaised("daily", _))
        ));
        let open = budget("100", None);
        assert_eq!(
            open.raise(budget("100", Some("5"))),
            Err(BudgetRefusal::DailyAdded)
        );
    }

    #[test]
    fn charges_sum_per_coupon_and_template_and_refunds_give_back_the_reversal() {
        let (a, b) = (Uuid::from_u128(1), Uuid::from_u128(2));
        let (t1, t2) = (TemplateSn::generate(), TemplateSn::generate());
        let alloc = |id, line: &str, amount: &str| Allocation {
            coupon_id: id,
            line_id: Some(line.into()),
            amount: Money::parse(amount).unwrap(),
        };
        let allocations = [
            alloc(a, "l1", "3"),
            alloc(a, "l2", "2"),
            alloc(b, "l1", "4"),
        ];
        let charges = BudgetCharges::of(&allocations, |id| (*id == a).then(|| t1.clone()), day(1));
        let charges = charges.unwrap();
        assert_eq!(
            charges.per_template(),
            vec![(t1.clone(), Money::parse("5").unwrap())]
        );
        let refunded = [CouponRefund {
            coupon_id: a,
            reversed: Money::parse("2.50").unwrap(),
            released: false,
        }];
        assert_eq!(
            charges.returned(&refunded),
            vec![(t1.clone(), Money::parse("2.5").unwrap())]
        );
        assert_eq!(BudgetCharges::of(&allocations, |_| None, day(1)), None);
        let both = BudgetCharges::of(
            &allocations,
            |id| Some(if *id == a { t2.clone() } else { t1.clone() }),
            day(1),
        );
        let mut expected = vec![
            (t1.clone(), Money::parse("4").unwrap()),
            (t2.clone(), Money::parse("5").unwrap()),
        ];
        expected.sort_by(|x, y| x.0.as_str().cmp(y.0.as_str()));
        assert_eq!(both.unwrap().per_template(), expected);
    }
}
