//! The resource routes, one file each: a handler takes its input parsed
//! (path parameters by `ApiPath`, bodies by serde), calls one command or
//! query, and answers a typed body. `user_facts_body` is the block of the
//! three bodies made for a user.

pub mod allow_lists;
pub mod api_keys;
pub mod audit;
pub mod audit_actions;
pub mod channel_lifecycle;
pub mod channels;
pub mod claimable;
pub mod claims;
pub mod code_batches;
pub mod coupons;
pub mod history;
pub mod issuance_jobs;
pub mod me;
pub mod orders;
pub mod package_jobs;
pub mod packages;
pub mod projections;
pub mod redemptions;
pub mod reports;
pub mod template_changes;
pub mod template_channels;
pub mod templates;
pub mod user_facts_body;
pub mod webhooks;
pub mod workers;
