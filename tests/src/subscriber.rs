//! A subscriber of `coupon.events` with a queue of its own, as analytics
//! would bind one; and the schema check every received message passes.

use std::collections::HashMap;
use std::path::PathBuf;
use std::time::Duration;

use anyhow::Context;
use futures_util::StreamExt;
use lapin::options::{BasicConsumeOptions, QueueDeclareOptions};
use lapin::types::{AMQPValue, FieldTable};
use serde_json::Value;
use uuid::Uuid;

use ledger::messaging::{self, topology};

use crate::Env;

/// One received message, as the subscriber sees it.
#[derive(Clone, Debug)]
pub struct Received {
    pub message_id: String,
    pub event_type: String,
    pub stream_id: String,
    pub stream_version: i32,
    pub position: i64,
    pub schema: String,
    /// The `schema_version` header: the version the event was stored with
    /// (None: a message without it, as sent before event versions).
    pub schema_version: Option<i16>,
    pub body: Value,
}

pub struct Subscriber {
    _connection: lapin::Connection,
    consumer: lapin::Consumer,
}

impl Subscriber {
    /// Declares `queue` (durable, classic), binds it to `coupon.events`
    /// unless `bind` is false, and starts consuming (auto-ack).
    pub async fn new(env: &Env, queue: &str, bind: bool) -> anyhow::Result<Self> {
        Self::with_args(env, queue, bind, FieldTable::default()).await
    }

    /// [`Subscriber::new`] with the queue declared with `args`.
    pub async fn with_args(
        env: &Env,
        queue: &str,
        bind: bool,
        args: FieldTable,
    ) -> anyhow::Result<Self> {
        let (connection, channel) = declare(env, queue, bind, args).await?;
        let no_ack = BasicConsumeOptions {
            no_ack: true,
            ..Default::default()
        };
        let consumer = channel
            .basic_consume(queue.into(), "test".into(), no_ack, FieldTable::default())
            .await?;
        Ok(Self {
            _connection: connection,
            consumer,
        })
    }

    /// Receives until `done` says so or nothing arrives for `quiet`.
    pub async fn receive_until(
        &mut self,
        quiet: Duration,
        mut done: impl FnMut(&[Received]) -> bool,
    ) -> anyhow::Result<Vec<Received>> {
        let mut got = Vec::new();
        while !done(&got) {
            let Ok(next) = tokio::time::timeout(quiet, self.consumer.next()).await else {
                break;
            };
            let delivery = next.context("consumer closed")??;
            got.push(received(&delivery)?);
        }
        Ok(got)
    }
}

fn received(d: &lapin::message::Delivery) -> anyhow::Result<Received> {
    let headers = d.properties.headers().clone().unwrap_or_default();
    let h = |k: &str| headers.inner().get(k).cloned();
    let text = |v: Option<AMQPValue>| match v {
        Some(AMQPValue::LongString(s)) => Ok(s.to_string()),
        other => anyhow::bail!("expected a string header, got {other:?}"),
    };
    let int = |v: Option<AMQPValue>| match v {
        Some(AMQPValue::LongInt(n)) => Ok(i64::from(n)),
        Some(AMQPValue::LongLongInt(n)) => Ok(n),
        other => anyhow::bail!("expected an integer header, got {other:?}"),
    };
    Ok(Received {
        message_id: d
            .properties
            .message_id()
            .as_ref()
            .context("message_id")?
            .to_string(),
        event_type: d.properties.kind().as_ref().context("type")?.to_string(),
        stream_id: text(h("stream_id"))?,
        stream_version: i32::try_from(int(h("stream_version"))?)?,
        position: int(h("position"))?,
        schema: text(h("schema"))?,
        schema_version: match h("schema_version") {
            Some(AMQPValue::ShortInt(n)) => Some(n),
            None => None,
            other => anyhow::bail!("expected a short integer schema_version, got {other:?}"),
        },
        body: serde_json::from_slice(&d.data)?,
    })
}

/// Declares `queue` with `args` and binds it to `coupon.events` if `bind`,
/// as an outsider would; nothing consumes it yet.
pub async fn declare(
    env: &Env,
    queue: &str,
    bind: bool,
    args: FieldTable,
) -> anyhow::Result<(lapin::Connection, lapin::Channel)> {
    let connection = messaging::connect(&env.vhost.amqp_url, "test-subscriber").await?;
    let channel = connection.create_channel().await?;
    topology::declare(&channel).await?;
    let durable = QueueDeclareOptions {
        durable: true,
        ..Default::default()
    };
    channel.queue_declare(queue.into(), durable, args).await?;
    if bind {
        topology::bind(&channel, queue, topology::EVENTS).await?;
    }
    Ok((connection, channel))
}

/// Queue arguments of an outsider's small queue: at most `max_length`
/// messages, and the broker refuses (nacks) the rest.
pub fn bounded(max_length: i64) -> FieldTable {
    let mut args = FieldTable::default();
    args.insert("x-max-length".into(), AMQPValue::LongLongInt(max_length));
    args.insert(
        "x-overflow".into(),
        AMQPValue::LongString("reject-publish".into()),
    );
    args
}

/// The events waiting in `queue` (runs opened), each with how many times
/// it is there, read without taking them: consumed unacked until `expected`
/// events or 5 s of quiet, then given back as the channel closes.
pub async fn peek_events(
    env: &Env,
    queue: &str,
    expected: usize,
) -> anyhow::Result<HashMap<Uuid, usize>> {
    let connection = messaging::connect(&env.vhost.amqp_url, "test-peek").await?;
    let channel = connection.create_channel().await?;
    let mut consumer = channel
        .basic_consume(
            queue.into(),
            "peek".into(),
            BasicConsumeOptions::default(),
            FieldTable::default(),
        )
        .await?;
    let (mut counts, mut seen) = (HashMap::new(), 0);
    while seen < expected {
        let next = tokio::time::timeout(Duration::from_secs(5), consumer.next()).await;
        let Ok(next) = next else { break };
        let d = next.context("consumer closed")??;
        for event in ledger::messaging::run_message::events(&d.properties, &d.data)? {
            *counts.entry(event.event_id).or_default() += 1;
            seen += 1;
        }
    }
    channel.close(200, "peeked".into()).await?;
    connection.close(200, "peeked".into()).await?;
    Ok(counts)
}

/// Messages waiting in `queue` (a passive declare).
pub async fn depth(channel: &lapin::Channel, queue: &str) -> anyhow::Result<u32> {
    let passive = QueueDeclareOptions {
        passive: true,
        ..Default::default()
    };
    let q = channel
        .queue_declare(queue.into(), passive, FieldTable::default())
        .await?;
    Ok(q.message_count())
}

/// Arguments of a quorum queue: an outsider's queue on the clusters, which
/// outlives any one node.
pub fn quorum() -> FieldTable {
    let mut args = FieldTable::default();
    args.insert(
        "x-queue-type".into(),
        AMQPValue::LongString("quorum".into()),
    );
    args
}

/// The stored events `outsider` has not received: it reads until it holds
/// them all or `quiet` passes without a new one.
pub async fn missing_events(
    env: &Env,
    outsider: &mut Subscriber,
    quiet: Duration,
) -> anyhow::Result<Vec<Uuid>> {
    let client = env.db.client().await?;
    let stored: std::collections::HashSet<Uuid> = client
        .query("SELECT event_id FROM events", &[])
        .await?
        .iter()
        .map(|r| r.get(0))
        .collect();
    // Counted, not collected, while receiving: a set of every id so far at
    // each message would cost the square of the events.
    let mut got = std::collections::HashSet::new();
    loop {
        let wanted = stored.len().saturating_sub(got.len()).max(1);
        let batch = outsider.receive_until(quiet, |r| r.len() >= wanted).await?;
        got.extend(ids(&batch));
        // A full batch of repeats (a stretch the relay sent again after a
        // fault) is no sign of the end: only `quiet` without all is.
        if stored.is_subset(&got) || batch.len() < wanted {
            break;
        }
    }
    Ok(stored.difference(&got).copied().collect())
}

/// The event ids a set of messages covers.
pub fn ids(got: &[Received]) -> std::collections::HashSet<Uuid> {
    got.iter()
        .filter_map(|r| r.message_id.parse().ok())
        .collect()
}

/// Validates messages against `schemas/<schema header>`, compiling each file once.
#[derive(Default)]
pub struct Schemas {
    compiled: HashMap<String, jsonschema::Validator>,
}

impl Schemas {
    pub fn dir() -> PathBuf {
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../schemas")
    }

    pub fn check(&mut self, r: &Received) -> anyhow::Result<()> {
        if !self.compiled.contains_key(&r.schema) {
            let path = Self::dir().join(&r.schema);
            let text = std::fs::read_to_string(&path)
                .with_context(|| format!("no schema file {}", path.display()))?;
            let validator = jsonschema::validator_for(&serde_json::from_str(&text)?)
                .map_err(|e| anyhow::anyhow!("{}: {e}", r.schema))?;
            self.compiled.insert(r.schema.clone(), validator);
        }
        let validator = &self.compiled[&r.schema];
        if let Err(e) = validator.validate(&r.body) {
            anyhow::bail!(
                "{} ({}) is not valid against {}: {e}",
                r.message_id,
                r.event_type,
                r.schema
            );
        }
        Ok(())
    }
}
