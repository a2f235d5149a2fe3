//! The projection workers (`balances`, `template_stats`, and the `notify`
//! worker's reminder projection): each consumes its own queue, fed by a
//! relay route of its own in runs of events (or one event per message,
//! from a backfill), and applies every event through its projection's
//! `apply` (`ledger::projections`, or `ledger::projections::notify` for
//! the reminders), which skips versions it has seen and catches up from
//! Postgres when one is missing.
//!
//! They run in the runtime's batch mode: the events of a batch are applied
//! in arrival order in ONE transaction (one commit for up to 2,000
//! events), runs of `CouponIssued` set-based (each projection's
//! `apply_batch`).

use deadpool_postgres::Transaction;
use lapin::message::Delivery;
use ledger::domain::projection::Tally;
use ledger::messaging::run_message;
use ledger::projections;
use ledger::projections::notify::{self, NotifyClock};
use ledger::store::RecordedEvent;

use crate::consumers::BatchHandler;
use crate::consumers::Handler;

/// The projection a worker applies each event to (inside the transaction
/// that records the message, or the batch's).
#[derive(Clone, Copy, Debug)]
pub enum Projector {
    /// `balances` or `template_stats`: coupons counted by bucket.
    Tally(Tally),
    /// `notify_msg`, its reminders due by the business clock.
    Notify(NotifyClock),
}

impl Handler for Projector {
    type Committed = ();

    /// The single-message path (a message the batch set aside): an event
    /// message, or a run, applied whole.
    async fn handle(&self, tx: &Transaction<'_>, delivery: &Delivery) -> anyhow::Result<()> {
        let events = run_message::events(&delivery.properties, &delivery.data)?;
        self.handle_batch(tx, &events)
            .await
            .map_err(|(_, error)| error)
    }
}

impl BatchHandler for Projector {
    async fn handle_batch(
        &self,
        tx: &Transaction<'_>,
        events: &[RecordedEvent],
    ) -> Result<(), (usize, anyhow::Error)> {
        let applied = match *self {
            Projector::Tally(tally) => projections::apply_batch(tx, tally, events).await,
            Projector::Notify(clock) => notify::apply_batch(tx, clock, events).await,
        };
        applied.map_err(|(i, e)| (i, e.into()))
    }
}
