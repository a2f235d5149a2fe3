//! The guards every write that issues coupons passes, each written once
//! (docs/design.md §9): a claim, a batch of claims (group commit, §12), a
//! package's share (§13), a bulk-issuance chunk and a package job take them
//! in the same order: the template open, the user admitted, the user's
//! limit, and the quota last, so the template's hot row is locked for the
//! commit only.
//!
//! - [`open`]: the template as a write reads it ([`open::TemplateView`]),
//!   whether it issues now (status, window, validity) and whom it admits
//!   (eligibility, allow-list).
//! - [`user_limits`]: every statement on `user_claims`, the users' counts
//!   against the per-user limit.
//! - [`quota`]: the one statement that raises a template's `issued`, with
//!   the status re-checked on the locked row.
//! - [`budget`]: what a lock charges to its coupons' templates' budgets,
//!   guarded the same way, and what settling and refunding give back.

pub(crate) mod budget;
pub(crate) mod open;
pub(crate) mod quota;
pub(crate) mod user_limits;
