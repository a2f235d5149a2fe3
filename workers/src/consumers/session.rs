//! A consumer's session with the broker, opened and closed the same way by
//! both runtimes ([`super::one_by_one`], one message at a time, and
//! [`super::batched`], in batches): one connection named after the
//! worker, the topology declared, the prefetch set, the worker's queue
//! consumed, and a publisher for its dead letters on the same connection.

use futures_util::StreamExt;
use lapin::message::Delivery;
use lapin::options::{BasicConsumeOptions, BasicQosOptions};
use lapin::types::FieldTable;
use lapin::{Channel, Connection, Consumer};
use tokio::time::Instant;

use ledger::messaging::publish::Publisher;
use ledger::messaging::{self, topology};

use super::spec::Spec;
use crate::shutdown::Shutdown;

/// A worker consuming its queue. The fields drop in this order (consumer
/// first, connection last) when a session fails and is dropped.
pub struct ConsumerSession {
    consumer: Consumer,
    /// Where a message goes that must not or cannot be applied (`coupon.dead`).
    pub dead: Publisher,
    channel: Channel,
    connection: Connection,
}

impl ConsumerSession {
    /// Connects as `couponledger-<name>` (also the consumer's tag),
    /// declares the topology, sets the prefetch and starts consuming.
    pub async fn open(spec: &Spec) -> anyhow::Result<Self> {
        let name = format!("couponledger-{}", spec.name);
        let connection = messaging::connect(&spec.amqp_url, &name).await?;
        let channel = connection.create_channel().await?;
        topology::declare(&channel).await?;
        channel
            .basic_qos(spec.prefetch, BasicQosOptions::default())
            .await?;
        let dead = Publisher::open(&connection, spec.store.require()?).await?;
        let consumer = channel
            .basic_consume(
                spec.queue.into(),
                name.as_str().into(),
                BasicConsumeOptions::default(),
                FieldTable::default(),
            )
            .await?;
        Ok(Self {
            consumer,
            dead,
            channel,
            connection,
        })
    }

    /// The next delivery, or none once shutdown is asked for (awaited only
    /// between messages, so the one in flight is finished first).
    pub async fn next(&mut self, shutdown: &mut Shutdown) -> anyhow::Result<Option<Delivery>> {
        let next = tokio::select! {
            next = self.consumer.next() => next,
            _ = shutdown.wait() => return Ok(None),
        };
        Ok(Some(next.ok_or_else(closed)??))
    }

    /// The next delivery if one comes by `deadline` (a batch filling up).
    pub async fn next_by(&mut self, deadline: Instant) -> anyhow::Result<Option<Delivery>> {
        match tokio::time::timeout_at(deadline, self.consumer.next()).await {
            Ok(Some(next)) => Ok(Some(next?)),
            Ok(None) => Err(closed()),
            Err(_) => Ok(None),
        }
    }

    /// Ends a session on shutdown. Unacked prefetched messages go back to
    /// the queue with the channel; a failure to close is ignored, since
    /// the worker is stopping either way.
    pub async fn close(self) {
        let _ = self.channel.close(200, "shutdown".into()).await;
        let _ = self.connection.close(200, "shutdown".into()).await;
    }
}

/// The consumer's stream ended: the session is over, and is opened again.
fn closed() -> anyhow::Error {
    anyhow::anyhow!("the broker closed the consumer")
}
