//! What the fold records for `notify_msg`: a [`Step`] each time a coupon
//! with reminders, or of a job that asked `notify=true`, is issued, leaves
//! or comes back. Pure, so the fold can import it: `notify` spills the
//! steps and rebuilds and compares the rows from them.

use chrono::{DateTime, NaiveDate, Utc};

use uuid::Uuid;

use crate::domain::reminder::Reminder;

/// A coupon with notify rows moved, at `order` in the store's order
/// (`tx_id`, `position`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Step {
    pub order: (i64, i64),
    pub coupon: Uuid,
    pub change: StepChange,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum StepChange {
    /// Issued, with these reminders due, and its job's `CouponsGranted`
    /// row when the job asked for one.
    Issued {
        user: String,
        template: String,
        due: Vec<Reminder>,
        grant: Option<Grant>,
    },
    /// No longer live: its pending rows are cancelled unless another live
    /// coupon of the user and template is reminded on the same day (or, for
    /// the granted row, is of the same job).
    Left,
    /// Live again on business day `on`: its cancelled reminders of that day
    /// or later are pending, and its job's cancelled granted row.
    Returned { on: NaiveDate },
}

/// The `CouponsGranted` row a coupon belongs to: its job's, made (due at
/// once) at the coupon's issue if it is the user's first of the job.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Grant {
    pub job: Uuid,
    pub at: DateTime<Utc>,
}
