//! Where the relay sends each event, one route per destination, each with
//! its own cursor (`relay_cursors.name`) so that one full or slow
//! destination holds back only itself (docs/event-pipeline.md).
//!
//! - The ledger's own queues (balances, template_stats, notify) are fed
//!   directly through the default exchange: a refusal names exactly one
//!   queue, so re-sending the refused messages duplicates nothing. They
//!   carry runs of events, up to 1,000 per message (`run_message`).
//! - `coupon.events`, the public fanout, carries every event to outside
//!   subscribers. The ledger's queues are not bound to it, so an outsider's
//!   full queue can only hold back (and, on a re-send, duplicate into) the
//!   outsiders' own queues.

use super::topology::{self, PROJECTION_QUEUES};

/// One destination of the relay.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Route {
    /// The route's cursor row in `relay_cursors`: its destination's name.
    pub name: &'static str,
    pub exchange: &'static str,
    pub routing_key: &'static str,
    /// What a `mandatory` return (routed to no queue) means.
    pub unroutable: Unroutable,
    pub packing: Packing,
}

/// How a route packs events into messages (docs/design.md §5, "Runs").
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Packing {
    /// One message per event: what outside subscribers are promised.
    OnePerEvent,
    /// Runs of consecutive events (`run_message`): the ledger's own queues,
    /// whose consumers read both.
    Runs,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Unroutable {
    /// The ledger's queue is missing: keep the message and retry.
    Retry,
    /// No subscriber is bound to the public exchange: nobody to deliver to.
    /// The event stays in the store (`ledger events publish` backfills).
    Accept,
}

/// The public fanout's route. Its name is the cursor the single relay of
/// earlier releases kept, so an upgrade resumes where that relay stopped.
pub const PUBLIC: Route = Route {
    name: topology::EVENTS,
    exchange: topology::EVENTS,
    routing_key: "",
    unroutable: Unroutable::Accept,
    packing: Packing::OnePerEvent,
};

const fn own_queue(queue: &'static str) -> Route {
    Route {
        name: queue,
        exchange: "",
        routing_key: queue,
        unroutable: Unroutable::Retry,
        packing: Packing::Runs,
    }
}

/// Every route the relay keeps.
pub const ROUTES: [Route; 1 + PROJECTION_QUEUES.len()] = {
    let mut routes = [PUBLIC; 1 + PROJECTION_QUEUES.len()];
    let mut i = 0;
    while i < PROJECTION_QUEUES.len() {
        routes[1 + i] = own_queue(PROJECTION_QUEUES[i]);
        i += 1;
    }
    routes
};

/// Route names, as `relay_cursors.name` and the lag gauges label them.
pub fn names() -> Vec<&'static str> {
    ROUTES.iter().map(|r| r.name).collect()
}
