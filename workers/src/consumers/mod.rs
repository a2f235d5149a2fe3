//! The consumer runtime every consuming worker runs on (docs/design.md §5):
//!
//! - [`spec`]: where and how a worker consumes.
//! - [`one_by_one`]: one message at a time: inbox, retries, dead letters,
//!   reconnects, graceful shutdown.
//! - [`batched`]: the same discipline over batches of messages, one
//!   transaction each (the projections); [`event_batch`]: a batch's
//!   messages opened into their events.
//! - [`session`]: the connection to the broker, opened and closed alike in
//!   both modes.
//! - [`retries`]: what counts against a message before it is dead-lettered.

pub(crate) mod batched;
mod event_batch;
pub(crate) mod one_by_one;
mod retries;
mod session;
mod spec;

pub(crate) use batched::{BatchHandler, BatchSpec};
pub(crate) use one_by_one::Handler;
pub(crate) use spec::Spec;
