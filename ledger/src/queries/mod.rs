//! The read side: plain queries over the write model and the event store.
//!
//! - [`coupons`]: a coupon, a user's coupons (paged), a coupon's history.

pub mod coupons;
