//! Webhooks' edges (docs/design.md §21), used by the `webhooks` worker:
//!
//! - [`fanout`]: the log after the fan-out's cursor → one delivery row per
//!   event and endpoint that wants it.
//! - [`deliveries`]: the rows due (per stream in order), an attempt
//!   recorded, replays queued, delivered rows pruned.
//! - [`endpoints`]: enabled endpoints with their secrets opened.
//! - [`attempt`]: one delivery: the message signed, POSTed, decided, recorded.
//! - [`client`]: the HTTP client (no redirects, bounded time and bytes).
//! - [`address_guard`]: the SSRF guard, also used when an endpoint is made.
//!
//! The rules (URLs, types, signatures, backoff) are pure, in
//! [`crate::domain::webhook`]; the API's writes in `commands/webhooks.rs`.

pub mod address_guard;
pub mod attempt;
pub mod client;
pub mod deliveries;
pub mod endpoints;
pub mod fanout;
