//! What the fold records for `notify_msg`: a [`Step`] each time a coupon
//! with reminders is issued, leaves or comes back, and the clock that says
//! which reminders an issue is due. Pure, so the fold can import it:
//! `notify` spills the steps and rebuilds and compares the rows from them.

use chrono::NaiveDate;

use uuid::Uuid;

use crate::domain::reminder::Reminder;

/// A coupon with reminders moved, at `order` in the store's order
/// (`tx_id`, `position`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Step {
    pub order: (i64, i64),
    pub coupon: Uuid,
    pub change: StepChange,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum StepChange {
    /// Issued, with these reminders due.
    Issued {
        user: String,
        template: String,
        due: Vec<Reminder>,
    },
    /// No longer live: its pending rows are cancelled unless another live
    /// coupon of the user and template is reminded on the same day.
    Left,
    /// Live again on business day `on`: its cancelled rows of that day or
    /// later are pending.
    Returned { on: NaiveDate },
}
