//! couponledger: an event-sourced coupon ledger.
//!
//! A map of the modules:
//!
//! - [`api`]: the HTTP API v1 (axum + OpenAPI): routes, auth, errors.
//! - [`commands`]: the write side — SQL guards and event appends in one transaction.
//! - [`config`]: the environment variables of DESIGN §3, parsed once.
//! - [`db`]: the Postgres connection pool.
//! - [`migrate`]: `ledger migrate` — create the database, apply `migrations/` under a lock.
//! - [`store`]: the append-only event store (append, batch append by binary COPY,
//!   ordered reads that never skip a late commit).
//! - [`idempotency`]: idempotency keys for commands, claimed inside the caller's transaction.
//! - [`inbox`]: at-most-once message consumption, claimed inside the caller's transaction.
//! - [`retention`]: pruning of nonces, idempotency keys and the inbox by age.
//! - [`domain`]: pure coupon rules (validity, pricing, allocation, refunds,
//!   the state machine, what an event does to the projections).
//! - [`messaging`]: RabbitMQ topology, event messages, confirmed publishing, JSON Schemas.
//! - [`projections`]: apply an event to `balances` / `template_stats`; serve them.
//! - [`replay`]: rebuild projections and write-model tables from `events` and compare.
//! - [`queries`]: the read side — coupons, a user's coupons, a coupon's history.
//! - [`redis_handle`]: Redis as an optional accelerator.
//! - `testkit` (feature `testkit`): a fresh database, vhost and Redis prefix per test.

pub mod api;
pub mod commands;
pub mod config;
pub mod db;
pub mod domain;
pub mod env_vars;
pub mod idempotency;
pub mod inbox;
pub mod messaging;
pub mod migrate;
pub mod projections;
pub mod queries;
pub mod redact;
pub mod redis_handle;
pub mod replay;
pub mod retention;
pub mod store;
#[cfg(feature = "testkit")]
pub mod testkit;
