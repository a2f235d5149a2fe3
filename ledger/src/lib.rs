//! couponledger: an event-sourced coupon ledger.
//!
//! A map of the modules, in the order a request meets them:
//!
//! - [`api`]: the HTTP API v1 (axum + OpenAPI): routes, auth, errors. Only
//!   HTTP lives here: a handler parses its input, calls one command or
//!   query, and answers a typed body.
//! - [`commands`]: the write side — SQL guards and event appends in one transaction.
//! - [`queries`]: the read side — templates, coupons, a user's coupons, a coupon's history.
//! - [`domain`]: pure rules, no I/O. The events and streams are listed once
//!   ([`domain::ledger_event`], [`domain::stream`]); the state machines,
//!   validity, pricing, allocation, refunds and what an event does to the
//!   projections are pure functions over them.
//! - [`store`]: the append-only event store (append, batch append by binary COPY,
//!   ordered reads that never skip a late commit); `NewEvent::of` and
//!   `RecordedEvent::decode` are the one way in and out of the typed events.
//! - [`idempotency`]: idempotency keys for commands, claimed inside the caller's transaction.
//! - [`inbox`]: at-most-once message consumption, claimed inside the caller's transaction.
//! - [`messaging`]: RabbitMQ topology, event messages, confirmed publishing, JSON Schemas.
//! - [`projections`]: apply an event to `balances` / `template_stats` /
//!   `notify_msg`; serve them.
//! - [`replay`]: rebuild projections and write-model tables from `events` and compare.
//! - [`audit`]: the hash chain over the events, its checkpoints, `audit verify`,
//!   the export of the events with their links.
//! - [`retention`]: pruning of nonces, idempotency keys and the inbox by age.
//! - [`config`]: the environment variables of DESIGN §3, parsed once;
//!   [`env_vars`] lists them for `--help`; [`redact`] masks passwords in
//!   anything printed; [`logging`]: tracing as text or JSON lines.
//! - [`db`]: the Postgres connection pool. [`migrate`]: `ledger migrate`.
//! - [`csv_line`]: one CSV record, quoted where needed (reports).
//! - [`codes`]: redemption codes, pure: [`codes::Code`] parsed from what
//!   people type (length, alphabet, check character, no key needed) and
//!   [`codes::CodeKey`] (serial ↔ code, forgeries refused by the tag).
//! - [`redis_handle`]: Redis as an optional accelerator.
//! - [`secret_box`]: channel secrets sealed at rest under `LEDGER_SECRET_KEY`.
//! - `testkit` (feature `testkit`): a fresh database, vhost and Redis prefix per test.
//!
//! Bulk issuance (DESIGN §9), in the same layers: `domain/user_file.rs`
//! (the uploaded file, parsed as it streams) and `domain/issuance.rs` (job
//! statuses, line outcomes, the chunk's per-user and quota decisions);
//! `api/issuance_jobs.rs` and `api/upload.rs` (the streamed upload, chunks
//! published with confirms); `commands/issuance_job.rs` (the upload side of
//! a job) and `commands/issuance.rs` (one chunk in one transaction);
//! `queries/issuance_jobs.rs`; `messaging/chunk_message.rs`; the worker in
//! `workers/src/issuance.rs`; `ledger issue` in `cli/issue.rs`.
//!
//! Expiry reminders (DESIGN §10), in the same layers: `domain/reminder.rs`
//! (offsets, notify days and times, row statuses, the message body);
//! `projections/notify.rs` (coupon events → `notify_msg`, with its own
//! per-coupon state in `notify_coupons`); `commands/reminders.rs` (the
//! sender: due rows → one message per user and day, confirmed, and the
//! purge); `messaging/reminder_message.rs`; `replay/notify.rs`; the worker
//! in `workers/src/notify.rs` on the consumer runtime's batch mode
//! (`workers/src/batch_consumer.rs`).
//!
//! Finance, flash sales, codes and the console (DESIGN §11–§14), each in the
//! same layers:
//!
//! - Finance: `audit/` (hash chain, sealer, verify, `audit/export.rs`: the
//!   events with their links), `domain/liability.rs` (the as-of fold),
//!   `queries/liability.rs` (its snapshots and reads), `cli/audit.rs`,
//!   `cli/report.rs`, `cli/export.rs`.
//! - Flash sales: [`flash`] (Redis gate and reconciliation, group commit in
//!   `commands/claim_batch.rs`, rate limits in `domain/rate_limit.rs`).
//! - Redemption codes and packages: [`codes`] (the pure scheme: FF1 keyed
//!   permutation of serial + HMAC tag, Damm check character; see
//!   `docs/redemption-codes.md`), `commands/code_batches.rs`,
//!   `commands/redeem.rs`, `commands/redeem_batch.rs` (group commit,
//!   `flash/redemptions.rs`; used-up codes in Redis, `flash/used_up.rs`),
//!   `commands/packages.rs` (+
//!   `commands/package_coupons.rs`), `api/code_batches.rs`,
//!   `api/redemptions.rs` (+ `api/guess_limit.rs`, `api/shared_windows.rs`),
//!   `api/packages.rs`, `cli/codes.rs`. Claims of large packages run as jobs
//!   on the issuance worker: `domain/package_job.rs`,
//!   `commands/package_job.rs`, `api/package_jobs.rs`,
//!   `queries/package_jobs.rs`, `messaging/package_job_message.rs`,
//!   `workers/src/package_jobs.rs`.
//! - Admin console: `api/admin.rs` serving `ledger/assets/admin/` (one page
//!   over the JSON API, uPlot vendored); its data routes `api/reports.rs`
//!   (+ `queries/names.rs`), `api/audit.rs`, `api/workers.rs` (+
//!   `api/dead_letters.rs`), and a template's chart `api/history.rs`
//!   (`queries/history.rs`, `domain/history.rs`).

pub mod api;
pub mod audit;
pub mod codes;
pub mod commands;
pub mod config;
pub mod csv_line;
pub mod db;
pub mod domain;
pub mod env_vars;
pub mod flash;
pub mod idempotency;
pub mod inbox;
pub mod logging;
pub mod messaging;
pub mod migrate;
pub mod observability;
pub mod projections;
pub mod queries;
pub mod redact;
pub mod redis_handle;
pub mod replay;
pub mod retention;
pub mod secret_box;
pub mod store;
#[cfg(feature = "testkit")]
pub mod testkit;
pub mod write_model;
