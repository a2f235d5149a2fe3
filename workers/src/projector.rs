//! The projection workers (`balances`, `template_stats`, and the `notify`
//! worker's reminder projection): each consumes its own queue bound to
//! `coupon.events` and applies every event through its projection's
//! `apply` (`ledger::projections`, or `ledger::projections::notify` for
//! the reminders), which skips versions it has seen and catches up from
//! Postgres when one is missing.
//!
//! They run in the runtime's batch mode: the events of a batch are applied
//! in arrival order in ONE transaction (one commit for up to 500 events,
//! where each event used to wait for its own commit's flush), runs of
//! `CouponIssued` set-based (each projection's `apply_batch`).

use deadpool_postgres::Transaction;
use lapin::message::Delivery;
use ledger::domain::projection::Projection;
use ledger::messaging::message;
use ledger::projections::notify::{self, NotifyClock};
use ledger::projections::{self, Applied};

use crate::batch_consumer::BatchHandler;
use crate::consumer::Handler;

/// The projection a worker applies each event to (inside the transaction
/// that records the message, or the batch's).
#[derive(Clone, Copy, Debug)]
pub enum Projector {
    /// One of the projections the relay feeds by route.
    Named(Projection),
    /// `notify_msg`, its reminders due by the business clock.
    Notify(NotifyClock),
}

impl Handler for Projector {
    type Committed = ();

    async fn handle(&self, tx: &Transaction<'_>, delivery: &Delivery) -> anyhow::Result<()> {
        let event = message::decode(&delivery.data)?;
        match *self {
            Projector::Named(projection) => {
                let applied = projections::apply(tx, projection, &event).await?;
                if applied == Applied::AlreadyApplied {
                    tracing::debug!(
                        projection = projection.as_str(),
                        stream = event.stream_id,
                        version = event.stream_version,
                        "already applied"
                    );
                }
            }
            Projector::Notify(clock) => {
                notify::apply(tx, clock, &event).await?;
            }
        }
        Ok(())
    }
}

impl BatchHandler for Projector {
    async fn handle_batch(
        &self,
        tx: &Transaction<'_>,
        deliveries: &[&Delivery],
    ) -> Result<(), (usize, anyhow::Error)> {
        let events = decode_all(deliveries)?;
        let applied = match *self {
            Projector::Named(projection) => projections::apply_batch(tx, projection, &events).await,
            Projector::Notify(clock) => notify::apply_batch(tx, clock, &events).await,
        };
        applied.map_err(|(i, e)| (i, e.into()))
    }
}

/// The events of a batch's messages; on failure, the index of the one that
/// is not an event message.
fn decode_all(
    deliveries: &[&Delivery],
) -> Result<Vec<ledger::store::RecordedEvent>, (usize, anyhow::Error)> {
    deliveries
        .iter()
        .enumerate()
        .map(|(i, d)| message::decode(&d.data).map_err(|e| (i, e.into())))
        .collect()
}
