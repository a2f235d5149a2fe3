//! Budgets in `ledger replay --verify` (docs/design.md §15, "Budgets"),
//! pure: a template's amounts from its own events, its counters from its
//! orders' (what each lock charged, then its confirm, cancel, timeout and
//! refunds), by the rules the write model's guard keeps
//! ([`Counters`]). Orders are folded by the pass that owns them, and the
//! counters add up over the passes.

use serde_json::Value;

use super::tables::{BudgetRow, Cents, Map, OrderRow};
use crate::domain::budget::{Budget, BudgetCharges, Counters, Settle};
use crate::domain::ledger_event::LedgerEvent;

/// A template's event: its budget's amounts, when it sets them.
pub(super) fn template(budgets: &mut Map<String, BudgetRow>, sn: &str, event: &LedgerEvent) {
    let budget = match event {
        LedgerEvent::TemplateCreated(created) => created.budget,
        LedgerEvent::TemplateBudgetRaised(raised) => Some(raised.budget),
        _ => None,
    };
    if let Some(Budget { total, daily }) = budget {
        let row = budgets.entry(sn.to_owned()).or_default();
        row.total = Cents(total.cents());
        row.daily = daily.map(|d| Cents(d.cents()));
    }
}

/// An order's event, after its row took it (`order` holds the lock's
/// charges): what it does to its templates' counters.
pub(super) fn order(budgets: &mut Map<String, BudgetRow>, order: &OrderRow, event: &LedgerEvent) {
    let Some(charges) = order.budget_charges.as_ref().and_then(charges_of) else {
        return;
    };
    let (how, amounts) = match event {
        LedgerEvent::OrderLocked(_) => {
            for (sn, amount) in charges.per_template() {
                let row = budgets.entry(sn.as_str().to_owned()).or_default();
                with_counters(row, |c| c.charge(amount.cents(), charges.day));
            }
            return;
        }
        LedgerEvent::OrderConfirmed(_) => (Settle::Keep, charges.per_template()),
        LedgerEvent::OrderCancelled(_) | LedgerEvent::OrderReleased(_) => {
            (Settle::Release, charges.per_template())
        }
        LedgerEvent::OrderRefunded(refunded) => {
            (Settle::Refund, charges.returned(&refunded.refund.coupons))
        }
        _ => return,
    };
    for (sn, amount) in amounts {
        let row = budgets.entry(sn.as_str().to_owned()).or_default();
        with_counters(row, |c| c.settle(how, amount.cents(), charges.day));
    }
}

/// The charges as the order's row keeps them (its lock's `budget`); a
/// payload that does not read as charges was refused by the lock's decode.
fn charges_of(json: &Value) -> Option<BudgetCharges> {
    serde_json::from_value(json.clone()).ok()
}

fn with_counters(row: &mut BudgetRow, change: impl FnOnce(&mut Counters)) {
    let mut counters = Counters {
        spent: row.spent.0,
        reserved: row.reserved.0,
        day: row.day,
        day_spent: row.day_spent.0,
        day_reserved: row.day_reserved.0,
    };
    change(&mut counters);
    row.spent = Cents(counters.spent);
    row.reserved = Cents(counters.reserved);
    row.day = counters.day;
    row.day_spent = Cents(counters.day_spent);
    row.day_reserved = Cents(counters.day_reserved);
}
