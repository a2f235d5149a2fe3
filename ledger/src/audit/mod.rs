//! Tamper evidence for finance (docs/design.md §11): a SHA-256 hash chain over the
//! events in the store's commit-safe order, sealed by the `sealer` worker
//! off the write path, with checkpoints finance keeps outside the database.
//!
//! - [`chain`]: one link, a pure function of the previous link and the event.
//! - [`seal`]: the chain's head, sealing a batch, checkpoints (SQL).
//! - [`verify`]: recompute the chain and name the first thing that differs.
//! - [`export`]: the events in chain order with their links, for finance.
//! - [`runs`]: the record of verify runs (the console's audit status).

pub mod chain;
pub mod export;
pub mod runs;
pub mod seal;
pub mod verify;
