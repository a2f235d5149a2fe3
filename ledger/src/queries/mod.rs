//! The read side: plain queries over the write model and the event store.
//!
//! - [`coupons`]: a coupon, a user's coupons (paged), a coupon's history,
//!   a user's coupons of one status (for quotes).
//! - [`templates`]: a template, templates (paged, newest first).

pub mod coupons;
pub mod templates;
