//! Publishing with publisher confirms and `mandatory`: a batch is sent
//! pipelined (every message on the wire before the first confirm is
//! awaited), and whatever the broker nacks or returns is sent again.

use std::time::Duration;

use lapin::options::{BasicPublishOptions, ConfirmSelectOptions};
use lapin::{Channel, Connection};
use lapin::{Confirmation, PublisherConfirm};

use super::message::Outgoing;

/// Rounds of re-sending what was nacked or returned before giving up.
pub const MAX_ROUNDS: u32 = 8;
const FIRST_BACKOFF: Duration = Duration::from_millis(50);
const MAX_BACKOFF: Duration = Duration::from_secs(2);

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
            pending = self.round(exchange, routing_key, pending).await?;
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

    /// Sends `messages` and returns those the broker refused.
    async fn round<'m>(
        &self,
        exchange: &str,
        routing_key: &str,
        messages: Vec<&'m Outgoing>,
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
            match confirm.await? {
                Confirmation::Ack(None) => {}
                Confirmation::Ack(Some(_)) | Confirmation::Nack(_) | Confirmation::NotRequested => {
                    refused.push(m)
                }
            }
        }
        Ok(refused)
    }
}
