//! What a relay route sends of a batch (docs/design.md §5, "Nobody bound
//! to coupon.events"). A route whose unroutable messages are normal
//! (`coupon.events` with no subscriber) sends a whole batch only while
//! someone is bound: once every message of a batch came back unroutable,
//! each later batch (and the first after the relay starts) first sends
//! its first message alone, `mandatory`, as a probe. Returned: nobody is bound yet, and the rest of the batch is
//! counted as unroutable without being sent. Routed: the rest follows.
//!
//! A queue bound after a probe therefore gets the events from the next
//! batch on (at most [`super::batches::BATCH`] later than without
//! probes), in order and without a hole; what came before is backfilled
//! with `ledger events publish`, as for any new subscriber.

use ledger::messaging::message::Outgoing;
use ledger::messaging::publish::Publisher;
use ledger::messaging::routes::{Route, Unroutable};

/// Whether a route starts by probing: a relay just started does not know
/// whether anyone is bound, and a probe costs one round trip.
pub fn probes_at_start(route: &Route) -> bool {
    route.unroutable == Unroutable::Accept
}

/// What a route did with one batch.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Outcome {
    /// Messages handed to the broker (a probe alone counts one).
    pub sent: u64,
    /// Messages that reached no queue, sent or skipped.
    pub unroutable: u64,
}

impl Outcome {
    /// Whether nobody took any of `messages` messages: the next batch
    /// probes first (only on a route where that is normal).
    pub fn nobody_bound(&self, route: &Route, messages: usize) -> bool {
        route.unroutable == Unroutable::Accept && messages > 0 && self.unroutable == messages as u64
    }
}

/// Sends `messages` along `route`; with `probe`, the first alone first,
/// and the rest only if a queue took it.
pub async fn send(
    publisher: &Publisher,
    route: &Route,
    messages: &[Outgoing],
    probe: bool,
) -> Result<Outcome, lapin::Error> {
    let all = messages.len() as u64;
    let rest = match messages.split_first() {
        Some((first, rest)) if probe && !rest.is_empty() => {
            let probed = publisher
                .publish_patiently(route, std::slice::from_ref(first))
                .await?;
            if probed.unroutable == 1 {
                return Ok(Outcome {
                    sent: 1,
                    unroutable: all,
                });
            }
            rest
        }
        _ => messages,
    };
    let sent = publisher.publish_patiently(route, rest).await?;
    Ok(Outcome {
        sent: all,
        unroutable: sent.unroutable,
    })
}
