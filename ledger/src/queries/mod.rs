//! The read side: plain queries over the write model and the event store.
//!
//! - [`actions`]: who did what: the events of operators' and apps' requests.
//! - [`allow_lists`]: a template's allow-list: its size, its files, one member.
//! - [`api_keys`]: an app key (never the key), every key, a key by its digest.
//! - [`channels`]: a channel (never its secret), every channel.
//! - [`coupons`]: a coupon, a coupon's history, a user's candidate coupons
//!   for a quote.
//! - [`history`]: a template's coupons by issue time and what became of them.
//! - [`names`]: the names of templates and channels, for reports.
//! - [`issuance_jobs`]: a bulk-issuance job's progress, a template's jobs, a job's report.
//! - [`package_jobs`]: a large package's claim run as a job.
//! - [`order_record`]: what the ledger holds for one order (lock, coupons,
//!   allocations, refunds).
//! - [`templates`]: a template, templates (paged, newest first);
//!   [`template_budget`]: a template's budget and what it leaves.
//! - [`terms`]: a template's public terms (what a user may see);
//!   [`wallet`]: a user's coupons with their terms, filtered, sorted and
//!   keyset-paged, and what expires soon; [`claimable`]: the
//!   templates a user can still claim from a channel.
//! - [`webhooks`]: webhook endpoints (never a secret) and their deliveries.
//! - [`lag`]: how far the relay and each projection are behind the log.
//! - [`liability`]: liability and cost as of an instant, from the events and
//!   the liability snapshots the sealer builds at its checkpoints.

pub(crate) mod actions;
pub(crate) mod allow_lists;
pub mod api_keys;
pub(crate) mod channels;
pub(crate) mod claimable;
pub(crate) mod code_batches;
pub(crate) mod coupons;
pub(crate) mod gauges;
pub(crate) mod history;
pub mod issuance_jobs;
pub mod lag;
pub mod liability;
pub(crate) mod names;
pub(crate) mod order_record;
pub(crate) mod package_jobs;
pub(crate) mod packages;
pub(crate) mod page;
pub mod template_budget;
pub mod templates;
pub(crate) mod terms;
pub(crate) mod wallet;
pub mod webhooks;
