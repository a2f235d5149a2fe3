//! Publishing with publisher confirms and `mandatory`: a batch is sent
//! pipelined (every message on the wire before the first confirm is
//! awaited), and whatever the broker nacks or returns is sent again.

use std::time::Duration;

use lapin::options::{BasicPublishOptions, ConfirmSelectOptions};
use lapin::{Channel, Connection};
use lapin::{Confirmation, PublisherConfirm};

use super::message::Outgoing;
use super::routes::{Route, Unroutable};

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
}

/// A channel in confirm mode.
pub struct Publisher {
    channel: Channel,
}

impl Publisher {
    pub async fn open(connection: &Connection) -> Result<Self, lapin::Error> {
        let channel = connection.create_channel().await?;
        channel
            .confirm_select(ConfirmSelectOptions::default())
            .await?;
        Ok(Self { channel })
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
                .await?;
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
    ) -> Result<(), lapin::Error> {
        let mut pending: Vec<&Outgoing> = messages.iter().collect();
        let mut backoff = FIRST_BACKOFF;
        for attempt in 0u64.. {
            let (exchange, key) = (route.exchange, route.routing_key);
            let before = pending.len();
            pending = self.round(exchange, key, pending, route.unroutable).await?;
            if pending.is_empty() {
                return Ok(());
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
                    "the broker refused messages (queue full?); re-sending only those"
                );
            }
            tokio::time::sleep(backoff).await;
            backoff = (backoff * 2).min(PATIENT_MAX_BACKOFF);
        }
        unreachable!("the retry loop only ends by returning")
    }

    /// Sends `messages` and returns those the broker refused: nacked, or
    /// returned as unroutable unless `unroutable` accepts that.
    async fn round<'m>(
        &self,
        exchange: &str,
        routing_key: &str,
        messages: Vec<&'m Outgoing>,
        unroutable: Unroutable,
    ) -> Result<Vec<&'m Outgoing>, lapin::Error> {
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
                    m.properties.clone(),
                )
                .await?;
            confirms.push(confirm);
        }
        let mut refused = Vec::new();
        for (m, confirm) in messages.into_iter().zip(confirms) {
            match (confirm.await?, unroutable) {
                (Confirmation::Ack(None), _) | (Confirmation::Ack(Some(_)), Unroutable::Accept) => {
                }
                (Confirmation::Ack(Some(_)), Unroutable::Retry)
                | (Confirmation::Nack(_), _)
                | (Confirmation::NotRequested, _) => refused.push(m),
            }
        }
        Ok(refused)
    }
}
