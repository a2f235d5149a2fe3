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
        }
    }
}
