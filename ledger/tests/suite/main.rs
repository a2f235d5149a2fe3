//! The ledger library's integration tests, one binary (one link of the
//! library): a module per feature. Each module says what it proves; the
//! `domain_*` modules are pure (no services) and share `support`.

mod architecture;
mod audit;
mod codes;
mod domain_best;
mod domain_pricing;
mod domain_properties;
mod domain_refund;
mod domain_terms;
mod domain_validity;
mod event_store;
mod export;
mod idempotency;
mod lag;
mod openapi;
mod openapi_links;
mod partition_export;
mod partitions;
mod plans;
mod projection_runs;
mod retention;
mod schemas;
mod sealing;
mod support;
