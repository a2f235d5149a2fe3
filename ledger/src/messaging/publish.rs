//! Publishing with publisher confirms and `mandatory`: a batch is sent
//! pipelined (every message on the wire before the first confirm is
//! awaited), and whatever the broker nacks or returns is sent again.
//!
//! Every message leaves stamped with the store's id (`store::identity`).
//! Nothing here logs a message's body or headers: bodies carry user ids,
//! and lapin's own per-return warning is switched off (`logging`).

use std::time::Duration;

use lapin::options::{BasicPublishOptions, ConfirmSelectOptions};
use lapin::{Channel, Connection};
use lapin::{Confirmation, PublisherConfirm};

use lapin::types::AMQPValue;

use super::message::Outgoing;
use super::routes::{Route, Unroutable};
use crate::store::StoreId;

/// Rounds of re-sending what was nacked or returned before giving up.
pub const MAX_ROUNDS: u32 = 8;
const FIRST_BACKOFF: Duration = Duration::from_millis(50);
const MAX_BACKOFF: Duration = Duration::from_secs(2);
/// The relay's routes wait for a full queue as long as it takes; between
/// re-sends they back off up to this.
pub const PATIENT_MAX_BACKOFF: Duration = Duration::from_secs(5);

#[derive(Debug, thiserror::Error)]
pub enum PublishError {
    #[error("AMQP: {0}")]
    Amqp(#[from] lapin::Error),
    #[error("{refused} of {total} messages still nacked or returned after {MAX_ROUNDS} rounds")]
    Refused { refused: usize, total: usize },
    /// A transaction's messages that no queue took (`tx_publish`).
    #[error("{returned} of {total} messages returned as unroutable at the commit")]
    Returned { returned: usize, total: usize },
    #[error(transparent)]
    StoreUnknown(#[from] crate::store::identity::UnknownStore),
    /// A published batch's mark could not be written (`tx_publish`).
    #[error("encoding a batch's mark: {0}")]
    Encode(String),
}

/// A channel in confirm mode, publishing for one store.
pub struct Publisher {
    channel: Channel,
    store: StoreId,
}

/// What a patient publish came to.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Sent {
    /// Messages the broker took but routed to no queue, on a route where
    /// that is normal ([`Unroutable::Accept`]: nobody subscribed).
    pub unroutable: u64,
}

/// The broker's answers to one round of sends.
struct Round<'m> {
    /// Nacked, or returned where a return is not accepted: to send again.
    refused: Vec<&'m Outgoing>,
    /// How many of `refused` were returned (routed to no queue).
    returned: usize,
    /// Returned where that is accepted.
    unroutable: u64,
}

impl Publisher {
    pub async fn open(connection: &Connection, store: StoreId) -> Result<Self, lapin::Error> {
        let channel = connection.create_channel().await?;
        channel
            .confirm_select(ConfirmSelectOptions::default())
            .await?;
        Ok(Self { channel, store })
    }

    pub fn channel(&self) -> &Channel {
        &self.channel
    }

    /// Publishes every message to `exchange` and returns once the broker has
    /// confirmed each as routed and stored; nacks and returns are retried
    /// with backoff, up to [`MAX_ROUNDS`].
    pub async fn publish_all(
        &self,
        exchange: &str,
        routing_key: &str,
        messages: &[Outgoing],
    ) -> Result<(), PublishError> {
        let mut pending: Vec<&Outgoing> = messages.iter().collect();
        let mut backoff = FIRST_BACKOFF;
        for _ in 0..MAX_ROUNDS {
            pending = self
                .round(exchange, routing_key, pending, Unroutable::Retry)
                .await?
                .refused;
            if pending.is_empty() {
                return Ok(());
            }
            tracing::warn!(
                refused = pending.len(),
                "broker nacked or returned messages; retrying"
            );
            tokio::time::sleep(backoff).await;
            backoff = (backoff * 2).min(MAX_BACKOFF);
        }
        Err(PublishError::Refused {
            refused: pending.len(),
            total: messages.len(),
        })
    }

    /// Publishes every message along `route` and returns once the broker
    /// has taken each one: only what it refused is sent again, with backoff
    /// up to [`PATIENT_MAX_BACKOFF`] (back to the start whenever a round
    /// got some through), for as long as it keeps refusing: a full queue
    /// holds back this route, and the lag gauges show it.
    pub async fn publish_patiently(
        &self,
        route: &Route,
        messages: &[Outgoing],
    ) -> Result<Sent, lapin::Error> {
        let mut pending: Vec<&Outgoing> = messages.iter().collect();
        let mut backoff = FIRST_BACKOFF;
        let mut sent = Sent::default();
        let mut told_returned = false;
        for attempt in 0u64.. {
            let (exchange, key) = (route.exchange, route.routing_key);
            let before = pending.len();
            let round = self.round(exchange, key, pending, route.unroutable).await?;
            sent.unroutable += round.unroutable;
            pending = round.refused;
            if pending.is_empty() {
                return Ok(sent);
            }
            if round.returned > 0 && !told_returned {
                // A queue of the ledger's own is missing: an operator must
                // act. Once per batch, with where it stands, never the body.
                told_returned = true;
                tracing::error!(
                    route = route.name,
                    returned = round.returned,
                    first_position = pending.iter().find_map(|m| position(m)),
                    "the broker returned messages as unroutable: the route's queue is missing; \
                     re-sending them until it is declared again"
                );
            }
            if pending.len() < before {
                // The queue took some: it is draining, come back soon.
                backoff = FIRST_BACKOFF;
            }
            if attempt.is_power_of_two() || attempt == 0 {
                tracing::warn!(
                    route = route.name,
                    refused = pending.len(),
                    attempt,
                    "the broker refused messages (a full queue nacks, a missing one returns); \
                     re-sending only those"
                );
            }
            tokio::time::sleep(backoff).await;
            backoff = (backoff * 2).min(PATIENT_MAX_BACKOFF);
        }
        unreachable!("the retry loop only ends by returning")
    }

    /// Sends `messages` and sorts the broker's answers: refused (nacked,
    /// or returned as unroutable unless `unroutable` accepts that) or taken.
    async fn round<'m>(
        &self,
        exchange: &str,
        routing_key: &str,
        messages: Vec<&'m Outgoing>,
        unroutable: Unroutable,
    ) -> Result<Round<'m>, lapin::Error> {
        let options = BasicPublishOptions {
            mandatory: true,
            ..Default::default()
        };
        let mut confirms: Vec<PublisherConfirm> = Vec::with_capacity(messages.len());
        for m in &messages {
            let confirm = self
                .channel
                .basic_publish(
                    exchange.into(),
                    routing_key.into(),
                    options,
                    &m.body,
                    self.store.stamped(&m.properties),
                )
                .await?;
            confirms.push(confirm);
        }
        let mut round = Round {
            refused: Vec::new(),
            returned: 0,
            unroutable: 0,
        };
        for (m, confirm) in messages.into_iter().zip(confirms) {
            match (confirm.await?, unroutable) {
                (Confirmation::Ack(None), _) => {}
                (Confirmation::Ack(Some(_)), Unroutable::Accept) => round.unroutable += 1,
                (Confirmation::Ack(Some(_)), Unroutable::Retry) => {
                    round.returned += 1;
                    round.refused.push(m);
                }
                (Confirmation::Nack(_), _) | (Confirmation::NotRequested, _) => {
                    round.refused.push(m)
                }
            }
        }
        Ok(round)
    }
}

/// The event position a message's headers carry, if any.
fn position(m: &Outgoing) -> Option<i64> {
    let headers = m.properties.headers().as_ref()?;
    match headers.inner().get("position")? {
        AMQPValue::LongLongInt(p) => Some(*p),
        _ => None,
    }
}
