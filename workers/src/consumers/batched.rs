//! The consumer runtime's batch mode, for the event queues the relay feeds
//! (the projections): the same discipline as [`super::one_by_one`] (the
//! effect and an inbox row in one transaction, ack after the commit,
//! retries, dead letters, reconnects), but the events of many messages,
//! single events or runs ([`super::event_batch`]), are applied in ONE
//! transaction, up to [`BatchSpec::max_events`] or [`BatchSpec::max_wait`],
//! and acked with one `multiple` ack.
//!
//! Its handlers skip what they have seen by their own rows (each stream's
//! version, docs/design.md §5), so a repeat of an event is a no-op however
//! the runs that carry it were cut. The inbox keeps one receipt per
//! message ([`Inbox::Receipt`]): one row per run of up to 1,000 events
//! instead of one per event, which was a third of Postgres' work for the
//! projections.
//!
//! An event that fails inside a batch is isolated: the events before it
//! are applied again without it (they did not depend on it: each stream's
//! order is kept, and a later version of its stream would catch it up
//! from the store), then it is tried alone (with backoff, Postgres' absence
//! waited out) and dead-lettered alone, with its position, once it used
//! its attempts; then the rest of the batch follows as a new batch. So a
//! poison event inside a run costs only itself.

use std::collections::BTreeMap;
use std::future::Future;
use std::time::Duration;

use deadpool_postgres::{Pool, Transaction};
use lapin::message::Delivery;
use lapin::options::BasicAckOptions;

use ledger::db::StatsKeeper;
use ledger::exactly_once::inbox::{self, Receipt};
use ledger::messaging::message::{self, Outgoing};
use ledger::messaging::publish::Publisher;
use ledger::messaging::{run_message, topology};
use ledger::store::RecordedEvent;

use super::event_batch::{EventBatch, Events};
use super::one_by_one::{Handler, Worker, keep_stats, message_id, process, why_dead};
use super::retries::{self, Retries};
use super::session::ConsumerSession;
use super::spec::{Inbox, Spec};
use crate::shutdown::{Shutdown, backoff};

/// A handler that can apply many events at once (set-based SQL), and that
/// skips an event it has applied before (the runtime applies every
/// delivery, repeats included).
pub trait BatchHandler: Handler {
    /// Applies `events` in order inside `tx`; on failure, the index (in
    /// `events`) of the event to blame.
    fn handle_batch(
        &self,
        tx: &Transaction<'_>,
        events: &[RecordedEvent],
    ) -> impl Future<Output = Result<(), (usize, anyhow::Error)>> + Send;
}

/// The most events one batch may hold: a batch stops taking messages at
/// [`BatchSpec::max_events`], and one more run adds at most a run's bound.
pub const MAX_BATCH: usize = 1_000 + run_message::MAX_RUN;

/// Unacked messages a batch consumer holds at once. A run is up to 1,000
/// events (about 1 MB), so this bounds a worker's prefetched bytes to
/// about 100 MB; single event messages (a backfill, an older relay) still
/// fill batches of 100.
const PREFETCH: u16 = 100;

/// How a batch consumer batches.
#[derive(Clone, Debug)]
pub struct BatchSpec {
    pub spec: Spec,
    /// Events after which a batch takes no more messages (1..=1,000).
    pub max_events: usize,
    /// How long a batch waits to fill once it has a first message.
    pub max_wait: Duration,
}

impl BatchSpec {
    /// 1,000 events or 20 ms; the inbox as receipts (see the module docs).
    pub fn new(mut spec: Spec) -> Self {
        spec.prefetch = PREFETCH;
        spec.inbox = Inbox::Receipt;
        Self {
            spec,
            max_events: 1_000,
            max_wait: Duration::from_millis(20),
        }
    }
}

pub async fn run<H: BatchHandler>(
    batch: BatchSpec,
    pool: Pool,
    handler: H,
    mut shutdown: Shutdown,
) -> anyhow::Result<()> {
    let retries = Retries::default();
    let worker = Worker {
        spec: &batch.spec,
        pool: &pool,
        handler: &handler,
        retries: &retries,
    };
    let batch = &batch;
    crate::session::reconnecting(batch.spec.name, &mut shutdown, |mut shutdown| async move {
        session(batch, worker, &mut shutdown).await
    })
    .await
}

async fn session<H: BatchHandler>(
    batch: &BatchSpec,
    worker: Worker<'_, H>,
    shutdown: &mut Shutdown,
) -> anyhow::Result<()> {
    let (spec, pool) = (&batch.spec, worker.pool);
    let mut session = ConsumerSession::open(spec).await?;
    tracing::info!(
        worker = spec.name,
        queue = spec.queue,
        "consuming in batches"
    );
    let max = batch.max_events.clamp(1, 1_000);
    let mut stats = StatsKeeper::new(spec.analyze);
    while let Some(first) = session.next(shutdown).await? {
        let mut events = EventBatch::default();
        events.add(spec, first)?;
        let deadline = tokio::time::Instant::now() + batch.max_wait;
        while events.events.len() < max {
            match session.next_by(deadline).await? {
                Some(next) => events.add(spec, next)?,
                None => break,
            }
        }
        debug_assert!(events.events.len() <= MAX_BATCH);
        apply_all(worker, &session.dead, events, shutdown).await?;
        keep_stats(&mut stats, pool).await?;
    }
    session.close().await;
    Ok(())
}

/// Applies a batch, then the deliveries set aside one by one, then acks
/// the rest with one `multiple` ack. Nothing is acked if shutdown came
/// while an event or message was held through a Postgres outage: a
/// `multiple` ack would cover it; the broker gives them all back, and the
/// handler skips what was applied.
async fn apply_all<H: BatchHandler>(
    worker: Worker<'_, H>,
    dead: &Publisher,
    batch: EventBatch,
    shutdown: &mut Shutdown,
) -> anyhow::Result<()> {
    let EventBatch {
        deliveries,
        events,
        set_aside,
    } = batch;
    if ledger::planted::active(ledger::planted::Bug::AckBeforeCommit) {
        ack_up_to(deliveries.last()).await?;
    }
    if !apply_events(worker, dead, &deliveries, events, shutdown).await? {
        return Ok(());
    }
    let mut slots: Vec<Option<Delivery>> = deliveries.into_iter().map(Some).collect();
    for i in set_aside {
        let delivery = slots[i].take().expect("set aside once");
        process(worker, dead, delivery, shutdown).await?;
        if shutdown.is_set() {
            return Ok(());
        }
    }
    // The single path settled what it took; the rest is acked up to the last.
    ack_up_to(slots.iter().rev().flatten().next()).await
}

/// Applies `events` in as few transactions as their failures allow;
/// false if shutdown came while one was held.
async fn apply_events<H: BatchHandler>(
    worker: Worker<'_, H>,
    dead: &Publisher,
    deliveries: &[Delivery],
    mut events: Events,
    shutdown: &mut Shutdown,
) -> anyhow::Result<bool> {
    while !events.is_empty() {
        if shutdown.is_set() {
            return Ok(false);
        }
        let Err(Failed { index, error }) = apply_batch(worker, deliveries, &events).await else {
            return Ok(true);
        };
        let rest = events.split_off(index + 1);
        let (failed, from) = events.pop().expect("index is within the batch");
        tracing::warn!(
            worker = worker.spec.name,
            error = ledger::logging::chain(error.as_ref()),
            before = events.len(),
            position = failed.position,
            "an event failed inside a batch; isolating it"
        );
        // The events before it, again, without it.
        if !events.is_empty()
            && !Box::pin(apply_events(worker, dead, deliveries, events, shutdown)).await?
        {
            return Ok(false);
        }
        if !alone(worker, dead, &deliveries[from], failed, shutdown).await? {
            return Ok(false);
        }
        events = rest;
    }
    Ok(true)
}

/// Tries one event by itself until it applies or used its attempts, then
/// dead-letters it alone; Postgres' absence is waited out and spends
/// nothing. False if shutdown came meanwhile.
async fn alone<H: BatchHandler>(
    worker: Worker<'_, H>,
    dead: &Publisher,
    delivery: &Delivery,
    event: RecordedEvent,
    shutdown: &mut Shutdown,
) -> anyhow::Result<bool> {
    let spec = worker.spec;
    let one = Events::one(event, 0);
    let (mut failures, mut waits) = (0, 0);
    loop {
        let from = std::slice::from_ref(delivery);
        let Err(Failed { error, .. }) = apply_batch(worker, from, &one).await else {
            return Ok(true);
        };
        let slept = if retries::postgres_away(&error) {
            waits += 1;
            shutdown.sleep(backoff(waits)).await
        } else {
            failures += 1;
            let error = ledger::logging::chain(error.as_ref());
            if failures >= spec.max_attempts {
                tracing::error!(
                    worker = spec.name,
                    failures,
                    error,
                    "dead-lettering an event"
                );
                let letter = dead_letter(spec, delivery, &one.events[0], &error, failures);
                dead.publish_all(topology::DEAD, "", &[letter]).await?;
                return Ok(true);
            }
            tracing::warn!(
                worker = spec.name,
                failures,
                error,
                "event failed; will retry"
            );
            shutdown.sleep(retries::delay(failures)).await
        };
        if slept {
            return Ok(false);
        }
    }
}

/// The failed event as a message of its own (wherever it arrived, alone or
/// in a run: its position in the `position` header), with where it came
/// from and why it failed.
fn dead_letter(
    spec: &Spec,
    delivery: &Delivery,
    event: &RecordedEvent,
    error: &str,
    attempts: u32,
) -> Outgoing {
    let mut letter = message::encode(event);
    let mut headers = letter.properties.headers().clone().unwrap_or_default();
    let arrived = delivery.properties.headers().clone().unwrap_or_default();
    for key in ["store_id", "run_first", "run_last"] {
        if let Some(value) = arrived.inner().get(key) {
            headers.insert(key.into(), value.clone());
        }
    }
    why_dead(&mut headers, spec, error, attempts);
    letter.properties = letter.properties.with_headers(headers);
    letter
}

/// Which event of a batch failed, and why.
struct Failed {
    index: usize,
    error: anyhow::Error,
}

/// The receipts of `events`: each message's id with the positions of its
/// events among them. A delivery without an id (the relay always sets
/// one) gets none.
fn receipts(deliveries: &[Delivery], events: &Events) -> Vec<Receipt> {
    let mut by_id: BTreeMap<String, Vec<i64>> = BTreeMap::new();
    for (event, &from) in events.events.iter().zip(&events.from) {
        if let Ok(id) = message_id(&deliveries[from]) {
            by_id.entry(id).or_default().push(event.position);
        }
    }
    by_id
        .into_iter()
        .map(|(message_id, positions)| Receipt {
            message_id,
            positions,
        })
        .collect()
}

/// One transaction: the receipts of the messages (one statement), then
/// the events, those seen before skipped by the handler. `events.from`
/// indexes `deliveries`.
async fn apply_batch<H: BatchHandler>(
    worker: Worker<'_, H>,
    deliveries: &[Delivery],
    events: &Events,
) -> Result<(), Failed> {
    // A failure outside any one event (the pool, BEGIN, the receipts,
    // COMMIT) is blamed on the first, which is then tried alone.
    let whole = |error: anyhow::Error| Failed { index: 0, error };
    let receipts = receipts(deliveries, events);
    let mut client = worker.pool.get().await.map_err(|e| whole(e.into()))?;
    let tx = client.transaction().await.map_err(|e| whole(e.into()))?;
    inbox::record_all(&tx, worker.spec.name, &receipts)
        .await
        .map_err(|e| whole(e.into()))?;
    let applied = worker.handler.handle_batch(&tx, &events.events).await;
    applied.map_err(|(index, error)| Failed { index, error })?;
    tx.commit().await.map_err(|e| whole(e.into()))?;
    Ok(())
}

/// Acks every delivery of the channel up to and including `last`.
async fn ack_up_to(last: Option<&Delivery>) -> anyhow::Result<()> {
    if let Some(last) = last {
        last.ack(BasicAckOptions { multiple: true }).await?;
    }
    Ok(())
}
