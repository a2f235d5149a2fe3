//! What each consuming worker does with its messages:
//!
//! - [`projector`]: the projection workers (`balances`, `template_stats`,
//!   and the reminders'), one handler for all.
//! - [`notify`]: the reminder sender, beside the reminder projection.
//! - [`issuance`]: bulk-issuance chunks, one transaction each;
//!   [`package_jobs`]: claims of large packages, on the same queue.

pub(crate) mod issuance;
pub(crate) mod notify;
mod package_jobs;
pub(crate) mod projector;
