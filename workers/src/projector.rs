//! The projection workers (`balances`, `template_stats`): each consumes its
//! own queue bound to `coupon.events` and applies every event through
//! `ledger::projections::apply`, which skips versions it has seen and
//! catches up from Postgres when one is missing.
//!
//! They run in the runtime's batch mode: the events of a batch are applied
//! in arrival order in ONE transaction (one commit for up to 500 events,
//! where each event used to wait for its own commit's flush), runs of
//! `CouponIssued` set-based (`projections::apply_batch`).

use deadpool_postgres::Transaction;
use lapin::message::Delivery;
use ledger::messaging::message;
use ledger::projections::{self, Applied};

use crate::batch_consumer::BatchHandler;
use crate::consumer::Handler;

pub struct Projector {
    pub projection: ledger::domain::projection::Projection,
}

impl Handler for Projector {
    type Committed = ();

    async fn handle(&self, tx: &Transaction<'_>, delivery: &Delivery) -> anyhow::Result<()> {
        let event = message::decode(&delivery.data)?;
        let applied = projections::apply(tx, self.projection, &event).await?;
        if applied == Applied::AlreadyApplied {
            tracing::debug!(
                projection = self.projection.as_str(),
                stream = event.stream_id,
                version = event.stream_version,
                "already applied"
            );
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
        projections::apply_batch(tx, self.projection, &events)
            .await
            .map_err(|(i, e)| (i, e.into()))
    }
}

/// The events of a batch's messages; on failure, the index of the one that
/// is not an event message.
pub fn decode_all(
    deliveries: &[&Delivery],
) -> Result<Vec<ledger::store::RecordedEvent>, (usize, anyhow::Error)> {
    deliveries
        .iter()
        .enumerate()
        .map(|(i, d)| message::decode(&d.data).map_err(|e| (i, e.into())))
        .collect()
}
