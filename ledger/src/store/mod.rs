//! The append-only event store (docs/design.md §4).
//!
//! - [`event`]: what is appended and what is read back.
//! - [`append`]: append to one stream at an expected version, idempotent by event id.
//! - [`row_append`]: append one event with the row that carries its stream's
//!   version, in one statement (the checkout path).
//! - [`batch`]: append many new streams' events in one transaction by binary COPY.
//! - [`read`]: read a stream; read everything after a cursor in commit-safe order.
//! - [`appended`]: the ids a request appended, collected for its log line.
//! - [`identity`]: the store's id, carried by every message it publishes.
//! - [`partitions`]: `events`' partitions, made ahead by pg_partman, listed.
//! - [`partition_moves`]: what a partition is to the appends; moving one to
//!   another tablespace.

pub(crate) mod append;
pub(crate) mod appended;
pub(crate) mod batch;
pub(crate) mod error;
pub(crate) mod event;
pub mod identity;
pub mod partition_moves;
pub mod partitions;
pub mod read;
pub(crate) mod row_append;

pub use append::{AppendOutcome, append};
pub use batch::copy_events;
pub use error::StoreError;
pub use event::{
    EncodeError, GlobalCursor, NewEvent, RecordedEvent, StoredEventError, StoredType, StreamEvent,
};
pub use identity::{StoreCell, StoreId};
pub use read::{read_all, read_all_from, read_stream};
pub use row_append::append_with_row;

use chrono::{DateTime, SubsecRound, Utc};

/// Now, to the microsecond: what Postgres stores, so that an event's payload
/// and the rows written with it carry the same instants. Every clock that
/// feeds a command reads this.
pub fn now() -> DateTime<Utc> {
    Utc::now().trunc_subsecs(6)
}
