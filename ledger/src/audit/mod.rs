//! Tamper evidence for finance (docs/design.md §11): a SHA-256 hash chain over the
//! events in the store's commit-safe order, sealed by the `sealer` worker
//! off the write path, with checkpoints finance keeps outside the database.
//!
//! - [`chain`]: one link, a pure function of the previous link and the event.
//! - [`seal`]: the chain's head, sealing a batch, checkpoints (SQL).
//! - [`verify`]: recompute the chain and name the first thing that differs.
//! - [`export`]: the events in chain order with their links, for finance.
//! - [`runs`]: the record of verify runs (the console's audit status).
//! - [`partition_file`]: the file of one exported event partition (its lines).
//! - [`partition_export`]: writing that file, reading it back, recording it.
//! - [`file_verify`]: verifying such a file offline (`audit verify --file`).
//! - [`partition_records`]: the exports and retirements recorded (V31).
//! - [`retire`]: detaching or dropping a partition that was exported.

pub mod chain;
pub mod export;
pub mod file_verify;
pub mod partition_export;
pub(crate) mod partition_file;
pub mod partition_records;
pub mod retire;
pub mod runs;
pub mod seal;
pub mod verify;
