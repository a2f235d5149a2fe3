//! `coupon.dead`'s queue read as an operator would: the letters as they
//! come, and the text of a header.

use std::time::Duration;

use futures_util::StreamExt;
use lapin::message::Delivery;
use lapin::options::BasicConsumeOptions;
use lapin::types::{AMQPValue, FieldTable};
use lapin::{Channel, Connection, Consumer};

use ledger::messaging::topology;

/// A consumer of the dead letters (acking each as it is read).
pub struct DeadLetters {
    _channel: Channel,
    consumer: Consumer,
}

impl DeadLetters {
    /// Declares the topology and starts consuming the dead letters.
    pub async fn watch(amqp: &Connection) -> anyhow::Result<Self> {
        let channel = amqp.create_channel().await?;
        topology::declare(&channel).await?;
        let no_ack = BasicConsumeOptions {
            no_ack: true,
            ..Default::default()
        };
        let consumer = channel
            .basic_consume(
                topology::DEAD_LETTERS_QUEUE.into(),
                "test-dead".into(),
                no_ack,
                FieldTable::default(),
            )
            .await?;
        Ok(Self {
            _channel: channel,
            consumer,
        })
    }

    /// The next letter, or none within `within`.
    pub async fn next(&mut self, within: Duration) -> anyhow::Result<Option<Delivery>> {
        match tokio::time::timeout(within, self.consumer.next()).await {
            Ok(Some(letter)) => Ok(Some(letter?)),
            Ok(None) => anyhow::bail!("the dead letters' consumer closed"),
            Err(_) => Ok(None),
        }
    }
}

/// A string header of `letter` (`x-error`, `x-consumer`, ...).
pub fn text(letter: &Delivery, key: &str) -> Option<String> {
    let headers = letter.properties.headers().as_ref()?;
    match headers.inner().get(key)? {
        AMQPValue::LongString(s) => Some(s.to_string()),
        AMQPValue::ShortString(s) => Some(s.to_string()),
        _ => None,
    }
}
