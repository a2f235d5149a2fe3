//! Publishing a batch as one AMQP transaction (`tx.select` … `tx.commit`):
//! RabbitMQ routes a transaction's messages to their queues only at its
//! commit, and drops them when the channel closes before it (visibility,
//! responsibility and durability move at the commit: RabbitMQ's "Broker
//! Semantics", tx). The notification sender publishes so (docs/design.md
//! §10): a sender killed while it publishes a batch leaves none of it in
//! any queue, so the rows it had not marked sent go out once, not twice,
//! when it starts again. What is left is the commit itself: the broker
//! routes the batch, then writes it to disk before it answers (about 18 ms
//! for 500 messages on the test machine), and Postgres commits the rows
//! after that answer; a sender killed in between sends that one batch
//! again when it restarts, under the same message ids (no sender can tell
//! whether a commit it never heard back from took place).
//!
//! Publishes are `mandatory`: a message no queue takes comes back at the
//! commit, and the batch counts as refused (with nothing bound to the
//! exchange, nobody got it).

use lapin::options::BasicPublishOptions;
use lapin::{Channel, Connection};

use super::message::Outgoing;
use super::publish::PublishError;
use crate::store::StoreId;

/// A channel in transaction mode, publishing for one store.
pub struct TxPublisher {
    channel: Channel,
    store: StoreId,
}

impl TxPublisher {
    pub async fn open(connection: &Connection, store: StoreId) -> Result<Self, lapin::Error> {
        let channel = connection.create_channel().await?;
        channel.tx_select().await?;
        Ok(Self { channel, store })
    }

    /// Publishes every message to `exchange` and commits: once this returns
    /// Ok, each is in every queue bound to it. A message returned as
    /// unroutable is [`PublishError::Returned`] (the others of the batch
    /// were committed all the same).
    pub async fn publish_all(
        &self,
        exchange: &str,
        routing_key: &str,
        messages: &[Outgoing],
    ) -> Result<(), PublishError> {
        let options = BasicPublishOptions {
            mandatory: true,
            ..Default::default()
        };
        for m in messages {
            // Outside confirm mode the broker answers nothing per message.
            let _not_requested = self
                .channel
                .basic_publish(
                    exchange.into(),
                    routing_key.into(),
                    options,
                    &m.body,
                    self.store.stamped(&m.properties),
                )
                .await?;
        }
        self.channel.tx_commit().await?;
        // The returns of the commit came before its commit-ok; with no
        // confirms pending this only collects them.
        let returned = self.channel.wait_for_confirms().await?.len();
        if returned > 0 {
            return Err(PublishError::Returned {
                returned,
                total: messages.len(),
            });
        }
        Ok(())
    }
}
