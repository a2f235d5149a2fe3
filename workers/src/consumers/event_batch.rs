//! A batch of deliveries opened into the events they carry: one per event
//! message, up to [`run_message::MAX_RUN`] per run (docs/design.md §5,
//! "Runs"). The batch consumer applies, isolates and records events, not
//! messages; a delivery that cannot be opened here (another store's, not
//! an event or a run, or returned too often) is set aside for the
//! single-message path, which retries or dead-letters it whole.

use lapin::message::Delivery;
use ledger::messaging::run_message;
use ledger::store::RecordedEvent;

use super::one_by_one::{delivery_count, foreign};
use super::retries::MAX_DELIVERIES;
use super::spec::Spec;

/// Events in arrival order, each with the delivery that carried it.
#[derive(Default)]
pub struct Events {
    pub events: Vec<RecordedEvent>,
    /// Index, in the batch's deliveries, of each event's delivery.
    pub from: Vec<usize>,
}

impl Events {
    pub fn len(&self) -> usize {
        self.events.len()
    }

    pub fn is_empty(&self) -> bool {
        self.events.is_empty()
    }

    /// The events from `at` on, taken out.
    pub fn split_off(&mut self, at: usize) -> Events {
        Events {
            events: self.events.split_off(at),
            from: self.from.split_off(at),
        }
    }

    /// The last event, taken out.
    pub fn pop(&mut self) -> Option<(RecordedEvent, usize)> {
        Some((self.events.pop()?, self.from.pop()?))
    }

    /// One event alone.
    pub fn one(event: RecordedEvent, from: usize) -> Events {
        Events {
            events: vec![event],
            from: vec![from],
        }
    }
}

/// Deliveries as they arrive, opened.
#[derive(Default)]
pub struct EventBatch {
    pub deliveries: Vec<Delivery>,
    pub events: Events,
    /// Deliveries (indexes) for the single-message path.
    pub set_aside: Vec<usize>,
}

impl EventBatch {
    /// Adds `delivery`, its events at the end of the batch's.
    pub fn add(&mut self, spec: &Spec, delivery: Delivery) -> anyhow::Result<()> {
        let index = self.deliveries.len();
        match open(spec, &delivery)? {
            Some(events) => {
                self.events
                    .from
                    .extend(std::iter::repeat_n(index, events.len()));
                self.events.events.extend(events);
            }
            None => self.set_aside.push(index),
        }
        self.deliveries.push(delivery);
        Ok(())
    }
}

/// The events of `delivery`, or none if the single-message path must deal
/// with it. An error only if this process cannot tell whose it is.
fn open(spec: &Spec, delivery: &Delivery) -> anyhow::Result<Option<Vec<RecordedEvent>>> {
    if foreign(spec, delivery)?.is_some() || delivery_count(delivery) >= MAX_DELIVERIES {
        return Ok(None);
    }
    Ok(run_message::events(&delivery.properties, &delivery.data).ok())
}
