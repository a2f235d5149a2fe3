//! Where and how a consuming worker consumes: its queue, its inbox name,
//! its limits, and the store it serves.

use ledger::store::StoreCell;

/// Where and how a worker consumes.
#[derive(Clone, Debug)]
pub struct Spec {
    /// The inbox's consumer name.
    pub name: &'static str,
    pub queue: &'static str,
    pub prefetch: u16,
    /// Failures of one message before it is dead-lettered.
    pub max_attempts: u32,
    pub amqp_url: String,
    /// Tables the worker fills in bulk, analysed when their statistics go
    /// stale (`db::StatsKeeper`).
    pub analyze: &'static [&'static str],
    /// The store this process serves: a message of another store is
    /// dead-lettered, never applied.
    pub store: StoreCell,
    pub inbox: Inbox,
}

/// What a worker's inbox rows do (docs/design.md §5, "Exactly once").
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Inbox {
    /// A row per message, claimed with its effect: a message seen before
    /// is skipped. For handlers whose effects cannot tell a repeat.
    Guard,
    /// A row per message as a receipt only (that its transaction
    /// committed, which the fault suite's checker reads): every delivery
    /// is applied, and the handler skips what it has seen by its own rows
    /// (the projections' stream versions). One row per run of events, not
    /// one per event.
    Receipt,
}

impl Spec {
    pub fn new(name: &'static str, queue: &'static str, amqp_url: &str, store: StoreCell) -> Self {
        Self {
            name,
            queue,
            prefetch: 64,
            max_attempts: 5,
            amqp_url: amqp_url.to_owned(),
            analyze: &[],
            store,
            inbox: Inbox::Guard,
        }
    }
}
