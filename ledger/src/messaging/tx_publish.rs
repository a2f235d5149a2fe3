//! Publishing a batch as one AMQP transaction (`tx.select` … `tx.commit`):
//! RabbitMQ routes a transaction's messages to their queues only at its
//! commit, and drops them when the channel closes before it (visibility,
//! responsibility and durability move at the commit: RabbitMQ's "Broker
//! Semantics", tx). The notification sender publishes so (docs/design.md
//! §10): a sender killed while it publishes a batch leaves none of it in
//! any queue, so the rows it had not marked sent go out once when it starts
//! again.
//!
//! What is left is the commit itself: the broker routes the batch and
//! writes it to disk before it answers (about 18 ms for 500 messages on the
//! test machine), and Postgres commits the rows after that answer, so a
//! sender killed in between cannot know whether its batch went. A mark in
//! the same transaction tells: after the batch's messages the sender
//! publishes the batch's row ids to the ledger's own queue [`PUBLISHED`],
//! and the broker commits them with the batch. Before it claims the next
//! batch, and so first of all after a restart, the sender takes the marks
//! waiting, marks their rows sent and only then removes the marks
//! ([`TxPublisher::take_marks`], [`TxPublisher::settle_marks`]): a batch
//! the broker committed is never sent again, whenever the sender died. A
//! batch refused at its commit takes its own mark back at once.
//!
//! Publishes are `mandatory`: a message no queue takes comes back at the
//! commit, and the batch counts as refused (with nothing bound to the
//! exchange, nobody got it).

use lapin::options::{
    BasicAckOptions, BasicGetOptions, BasicNackOptions, BasicPublishOptions, QueueDeclareOptions,
};
use lapin::types::FieldTable;
use lapin::{BasicProperties, Channel, Connection};
use serde::{Deserialize, Serialize};
use uuid::Uuid;

use super::message::Outgoing;
use super::publish::PublishError;
use crate::store::StoreId;

/// A channel in transaction mode, publishing for one store.
pub struct TxPublisher {
    channel: Channel,
    store: StoreId,
}

/// The ledger's own queue of published batches' marks (never bound to an
/// exchange: published to by name; nobody else reads it).
pub const PUBLISHED: &str = "couponledger.notifications.published";

/// Most marks taken at once: a sender settles its own after each batch,
/// so more wait only after a kill (one per batch it had not settled).
const MAX_MARKS: usize = 1_000;

/// The mark of one published batch: the rows it sent.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Mark {
    pub batch: Uuid,
    pub rows: Vec<i64>,
}

/// Marks taken from [`PUBLISHED`], held until settled.
pub struct Taken {
    pub marks: Vec<Mark>,
    tags: Vec<u64>,
}

impl TxPublisher {
    pub async fn open(connection: &Connection, store: StoreId) -> Result<Self, lapin::Error> {
        let channel = connection.create_channel().await?;
        let durable = QueueDeclareOptions {
            durable: true,
            ..Default::default()
        };
        channel
            .queue_declare(PUBLISHED.into(), durable, FieldTable::default())
            .await?;
        channel.tx_select().await?;
        Ok(Self { channel, store })
    }

    /// Publishes `messages` and `mark` in one transaction (see
    /// [`Self::publish_all`]); a refused batch takes its mark back.
    pub async fn publish_marked(
        &self,
        exchange: &str,
        routing_key: &str,
        messages: &[Outgoing],
        mark: &Mark,
    ) -> Result<(), PublishError> {
        let result = self
            .publish_then_commit(exchange, routing_key, messages, Some(mark))
            .await;
        if matches!(result, Err(PublishError::Returned { .. })) {
            self.take_back(mark.batch).await?;
        }
        result
    }

    /// The marks waiting (at most [`MAX_MARKS`]), held until [`Self::settle_marks`].
    pub async fn take_marks(&self) -> Result<Taken, PublishError> {
        let mut taken = Taken {
            marks: Vec::new(),
            tags: Vec::new(),
        };
        while taken.tags.len() < MAX_MARKS {
            let got = self
                .channel
                .basic_get(PUBLISHED.into(), BasicGetOptions::default())
                .await?;
            let Some(message) = got else { break };
            taken.tags.push(message.delivery.delivery_tag);
            // A mark that does not read marks nothing and is removed with
            // the others (only this code writes the queue).
            let unread = Mark {
                batch: Uuid::nil(),
                rows: Vec::new(),
            };
            let mark = serde_json::from_slice(&message.delivery.data).unwrap_or(unread);
            taken.marks.push(mark);
        }
        Ok(taken)
    }

    /// Removes taken marks from the queue (their rows are marked sent).
    pub async fn settle_marks(&self, taken: Taken) -> Result<(), PublishError> {
        for tag in taken.tags {
            self.channel
                .basic_ack(tag, BasicAckOptions::default())
                .await?;
        }
        self.channel.tx_commit().await?;
        Ok(())
    }

    /// Takes a refused batch's mark out of the queue, leaving the others.
    async fn take_back(&self, batch: Uuid) -> Result<(), PublishError> {
        let taken = self.take_marks().await?;
        for (mark, tag) in taken.marks.iter().zip(&taken.tags) {
            if mark.batch == batch {
                self.channel
                    .basic_ack(*tag, BasicAckOptions::default())
                    .await?;
            } else {
                let requeue = BasicNackOptions {
                    requeue: true,
                    ..Default::default()
                };
                self.channel.basic_nack(*tag, requeue).await?;
            }
        }
        self.channel.tx_commit().await?;
        Ok(())
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
        self.publish_then_commit(exchange, routing_key, messages, None)
            .await
    }

    /// The messages, then the mark (last: a broker that fails mid-commit
    /// is likelier to have kept the messages it had before the mark), then
    /// the commit.
    async fn publish_then_commit(
        &self,
        exchange: &str,
        routing_key: &str,
        messages: &[Outgoing],
        mark: Option<&Mark>,
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
        if let Some(mark) = mark {
            let body = serde_json::to_vec(mark).map_err(|e| PublishError::Encode(e.to_string()))?;
            let persistent = BasicProperties::default().with_delivery_mode(2);
            let to_queue = BasicPublishOptions::default();
            let _not_requested = self
                .channel
                .basic_publish("".into(), PUBLISHED.into(), to_queue, &body, persistent)
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
