//! One stored event as the replay reads it: what the folds take (`fold`,
//! and `codes_fold` for the codes' streams), kept apart from both so that
//! neither imports the other.

use chrono::{DateTime, Utc};

/// One stored event, as the replay reads it.
#[derive(Clone, Copy)]
pub struct Event<'a> {
    /// Its place in the store's order: `(tx_id, position)`.
    pub order: (i64, i64),
    pub stream_id: &'a str,
    pub version: i32,
    pub event_type: &'a str,
    pub schema_version: i16,
    /// The payload's JSON text, parsed once, into what its type needs.
    pub payload: &'a [u8],
    pub occurred_at: DateTime<Utc>,
    /// Whether this pass builds the stream's rows (false: an order's event
    /// that only touches this pass's coupons).
    pub own: bool,
    /// An issue's user's bucket (see `partition`).
    pub bucket: u32,
}
