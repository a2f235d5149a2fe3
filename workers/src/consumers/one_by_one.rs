//! The consumer runtime every worker uses (docs/design.md §5):
//!
//! - bounded prefetch; one message at a time per worker, so a stream's
//!   events are applied in the order they arrive;
//! - the effect and the inbox row (consumer, message id) commit in one
//!   transaction, and the ack follows the commit: a redelivery is a no-op;
//! - a failure is retried (nack + requeue after a backoff), and after
//!   [`Spec::max_attempts`] failures the message goes to `coupon.dead` with
//!   its error in the `x-error` header, and the worker goes on; Postgres
//!   going away is waited out with the message held, and counts against
//!   nothing ([`super::retries`]);
//! - the connection is re-established after a broker restart;
//! - on shutdown the consumer is cancelled after the in-flight message.
//!
//! [`super::batched`] is the same discipline applied to batches of
//! messages, one transaction each (the `notify` projection uses it).

use std::future::Future;

use deadpool_postgres::{Pool, Transaction};
use lapin::message::Delivery;
use lapin::options::{BasicAckOptions, BasicNackOptions};
use lapin::types::{AMQPValue, FieldTable};

use ledger::db::StatsKeeper;
use ledger::messaging::message::Outgoing;
use ledger::messaging::publish::Publisher;
use ledger::messaging::topology;
use ledger::store::identity::Origin;

use super::retries::{self, MAX_DELIVERIES, Retries};
use super::session::ConsumerSession;
use super::spec::{Inbox, Spec};
use crate::shutdown::{Shutdown, backoff};

/// What a worker does with one message, inside the transaction that also
/// records it in the inbox, and then (with what `handle` returned) once
/// that transaction committed.
pub trait Handler: Send + Sync {
    /// What `handle` leaves for after the commit (`()`: nothing).
    type Committed: Send;

    fn handle(
        &self,
        tx: &Transaction<'_>,
        delivery: &Delivery,
    ) -> impl Future<Output = anyhow::Result<Self::Committed>> + Send;

    /// Runs after the commit, before the ack: only what may be lost (a
    /// Redis hint), since a crash here leaves the message done.
    fn committed(&self, _done: Self::Committed) -> impl Future<Output = ()> + Send {
        async {}
    }
}

pub async fn run<H: Handler>(
    spec: Spec,
    pool: Pool,
    handler: H,
    mut shutdown: Shutdown,
) -> anyhow::Result<()> {
    let retries = Retries::default();
    let worker = Worker {
        spec: &spec,
        pool: &pool,
        handler: &handler,
        retries: &retries,
    };
    crate::session::reconnecting(spec.name, &mut shutdown, |mut shutdown| async move {
        session(worker, &mut shutdown).await
    })
    .await
}

/// What every message of a worker is handled with.
pub(crate) struct Worker<'a, H> {
    pub spec: &'a Spec,
    pub pool: &'a Pool,
    pub handler: &'a H,
    /// Failures of the messages still being tried, kept across sessions.
    pub retries: &'a Retries,
}

impl<H> Clone for Worker<'_, H> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<H> Copy for Worker<'_, H> {}

async fn session<H: Handler>(worker: Worker<'_, H>, shutdown: &mut Shutdown) -> anyhow::Result<()> {
    let (spec, pool) = (worker.spec, worker.pool);
    let mut session = ConsumerSession::open(spec).await?;
    tracing::info!(worker = spec.name, queue = spec.queue, "consuming");
    let mut stats = StatsKeeper::new(spec.analyze);
    while let Some(delivery) = session.next(shutdown).await? {
        process(worker, &session.dead, delivery, shutdown).await?;
        keep_stats(&mut stats, pool).await?;
    }
    session.close().await;
    Ok(())
}

/// Analyses the worker's bulk-loaded tables when due; a failure here is
/// the database's, and ends the session like any other.
pub(crate) async fn keep_stats(stats: &mut StatsKeeper, pool: &Pool) -> anyhow::Result<()> {
    if stats.due() {
        stats.check(&**pool.get().await?).await?;
    }
    Ok(())
}

/// Handles one delivery to the end: acked, requeued, or dead-lettered;
/// left unacked (the broker gives it back) if shutdown comes while
/// Postgres is away. (The batch mode sends a message that failed inside a
/// batch here.)
pub(crate) async fn process<H: Handler>(
    worker: Worker<'_, H>,
    dead: &Publisher,
    delivery: Delivery,
    shutdown: &mut Shutdown,
) -> anyhow::Result<()> {
    let spec = worker.spec;
    if let Some(foreign) = foreign(spec, &delivery)? {
        return dead_letter_now(spec, dead, delivery, &foreign).await;
    }
    let deliveries = delivery_count(&delivery) + 1;
    if deliveries > MAX_DELIVERIES {
        let why = format!(
            "delivered {deliveries} times without an outcome (it may bring its worker down)"
        );
        return dead_letter_now(spec, dead, delivery, &why).await;
    }
    let id = message_id(&delivery)?;
    let Some(result) = handle_while_postgres_away(worker, &delivery, shutdown).await else {
        return Ok(());
    };
    let Err(e) = result else {
        worker.retries.done(&id);
        delivery.ack(BasicAckOptions::default()).await?;
        return Ok(());
    };
    let error = ledger::logging::chain(e.as_ref());
    let failures = worker.retries.failed(&id);
    if failures >= spec.max_attempts {
        tracing::error!(
            worker = spec.name,
            failures,
            error,
            "dead-lettering a message"
        );
        let letter = dead_letter(spec, &delivery, &error, failures);
        dead.publish_all(topology::DEAD, "", &[letter]).await?;
        worker.retries.done(&id);
        delivery.ack(BasicAckOptions::default()).await?;
        return Ok(());
    }
    tracing::warn!(
        worker = spec.name,
        failures,
        error,
        "message failed; will retry"
    );
    tokio::time::sleep(retries::delay(failures)).await;
    let requeue = BasicNackOptions {
        requeue: true,
        ..Default::default()
    };
    delivery.nack(requeue).await?;
    Ok(())
}

/// Handles the message, trying again for as long as Postgres is away
/// (a failover, a cut link): the message keeps its place and its attempts.
/// None if shutdown came meanwhile.
async fn handle_while_postgres_away<H: Handler>(
    worker: Worker<'_, H>,
    delivery: &Delivery,
    shutdown: &mut Shutdown,
) -> Option<anyhow::Result<()>> {
    let mut waits = 0;
    loop {
        let result = handle_once(worker.spec, worker.pool, worker.handler, delivery).await;
        match result {
            Err(e) if retries::postgres_away(&e) => {
                if waits % 20 == 0 {
                    let error = ledger::logging::chain(e.as_ref());
                    tracing::warn!(
                        worker = worker.spec.name,
                        error,
                        "postgres is away; holding the message until it is back"
                    );
                }
                waits += 1;
                if shutdown.sleep(backoff(waits)).await {
                    return None;
                }
            }
            result => return Some(result),
        }
    }
}

/// Why `delivery` must not be applied, if it was published by another
/// store (what a store that ran on this vhost before left in the queues,
/// or a forgery).
pub(crate) fn foreign(spec: &Spec, delivery: &Delivery) -> anyhow::Result<Option<String>> {
    let ours = spec.store.require()?;
    Ok(match ours.origin(delivery.properties.headers().as_ref()) {
        Origin::Ours | Origin::Unstamped => None,
        Origin::Foreign(theirs) => Some(format!(
            "published by ledger store {theirs}, not this one ({ours}): \
             never applied (one ledger per vhost)"
        )),
    })
}

/// Dead-letters a message that retries cannot help, at once.
async fn dead_letter_now(
    spec: &Spec,
    dead: &Publisher,
    delivery: Delivery,
    reason: &str,
) -> anyhow::Result<()> {
    tracing::error!(worker = spec.name, reason, "dead-lettering a message");
    let letter = dead_letter(spec, &delivery, reason, delivery_count(&delivery) + 1);
    dead.publish_all(topology::DEAD, "", &[letter]).await?;
    delivery.ack(BasicAckOptions::default()).await?;
    Ok(())
}

/// Applies the message and records it in the inbox, in one transaction;
/// a message the inbox has seen is skipped, unless the handler skips what
/// it has seen by itself ([`Inbox::Receipt`]).
async fn handle_once<H: Handler>(
    spec: &Spec,
    pool: &Pool,
    handler: &H,
    delivery: &Delivery,
) -> anyhow::Result<()> {
    let message_id = message_id(delivery)?;
    let mut client = pool.get().await?;
    let tx = client.transaction().await?;
    let mut done = None;
    let first_time = ledger::exactly_once::inbox::claim(&tx, spec.name, &message_id).await?;
    if first_time || spec.inbox == Inbox::Receipt {
        done = Some(handler.handle(&tx, delivery).await?);
    }
    tx.commit().await?;
    if let Some(done) = done {
        handler.committed(done).await;
    }
    Ok(())
}

/// The message id the inbox records.
pub(crate) fn message_id(delivery: &Delivery) -> anyhow::Result<String> {
    let id = delivery.properties.message_id().as_ref();
    Ok(id
        .ok_or_else(|| anyhow::anyhow!("the message has no message_id"))?
        .to_string())
}

/// Earlier deliveries of this message, as the quorum queue counts them
/// (every return to the queue: failures, kills, broker restarts).
pub(crate) fn delivery_count(delivery: &Delivery) -> u32 {
    let headers = delivery.properties.headers().as_ref();
    let count = headers.and_then(|h| h.inner().get("x-delivery-count"));
    match count {
        Some(AMQPValue::LongLongInt(n)) => u32::try_from(*n).unwrap_or(u32::MAX),
        Some(AMQPValue::LongInt(n)) => u32::try_from(*n).unwrap_or(u32::MAX),
        Some(AMQPValue::ShortInt(n)) => u32::try_from(*n).unwrap_or(u32::MAX),
        _ => 0,
    }
}

/// The failed message as it was, plus where it came from and why it failed.
fn dead_letter(spec: &Spec, delivery: &Delivery, error: &str, attempts: u32) -> Outgoing {
    let mut headers = delivery.properties.headers().clone().unwrap_or_default();
    why_dead(&mut headers, spec, error, attempts);
    Outgoing {
        body: delivery.data.clone(),
        properties: delivery.properties.clone().with_headers(headers),
    }
}

/// The headers a dead letter carries on top of its own: why it failed,
/// who gave up on it, from which queue, after how many attempts.
pub(crate) fn why_dead(headers: &mut FieldTable, spec: &Spec, error: &str, attempts: u32) {
    for (key, value) in [
        ("x-error", error),
        ("x-consumer", spec.name),
        ("x-original-queue", spec.queue),
    ] {
        headers.insert(key.into(), AMQPValue::LongString(value.into()));
    }
    headers.insert(
        "x-attempts".into(),
        AMQPValue::LongLongInt(i64::from(attempts)),
    );
}
