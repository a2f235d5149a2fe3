//! The consumer runtime's batch mode: the same discipline as
//! [`crate::consumer`] (inbox row and effect in one transaction, ack after
//! the commit, retries, dead letters, reconnects), but messages are applied
//! in batches — up to [`BatchSpec::max_messages`] or [`BatchSpec::max_wait`]
//! — in ONE transaction, and acked with one `multiple` ack.
//!
//! The inbox rows of a batch are claimed in one statement, and a
//! [`BatchHandler`] applies the batch's new messages at once (the notify
//! projection inserts a run of `CouponIssued` with a few statements).
//!
//! A message that fails inside a batch is isolated: the messages before it
//! are applied again without it (they did not depend on it: each stream's
//! order is kept, and a later version of its stream would catch it up from
//! the store), then it goes through the single-message path alone (retried
//! with backoff, dead-lettered at the bound), then the rest of the batch
//! follows as a new batch.

use std::future::Future;
use std::time::Duration;

use deadpool_postgres::{Pool, Transaction};
use lapin::message::Delivery;
use lapin::options::BasicAckOptions;

use ledger::db::StatsKeeper;
use ledger::messaging::publish::Publisher;

use crate::consumer::{Handler, Spec, Worker, keep_stats, process};
use crate::consumer_session::ConsumerSession;
use crate::retries::Retries;
use crate::shutdown::Shutdown;

/// A handler that can apply a whole batch at once (set-based SQL); the
/// runtime has already claimed the inbox for every message it passes.
pub trait BatchHandler: Handler {
    /// Applies `deliveries` in order inside `tx`; on failure, the position
    /// (in `deliveries`) of the message to blame.
    fn handle_batch(
        &self,
        tx: &Transaction<'_>,
        deliveries: &[&Delivery],
    ) -> impl Future<Output = Result<(), (usize, anyhow::Error)>> + Send;
}

/// The most messages one batch may hold (and the prefetch is kept above it).
pub const MAX_BATCH: usize = 2_000;

/// How a batch consumer batches.
#[derive(Clone, Debug)]
pub struct BatchSpec {
    pub spec: Spec,
    /// Messages per batch (1..=[`MAX_BATCH`]).
    pub max_messages: usize,
    /// How long a batch waits to fill once it has a first message.
    pub max_wait: Duration,
}

impl BatchSpec {
    /// 1,000 messages or 20 ms, prefetch twice the batch so the next batch
    /// is arriving while one commits.
    pub fn new(mut spec: Spec) -> Self {
        let max_messages = 1_000;
        spec.prefetch = u16::try_from(max_messages * 2).unwrap_or(u16::MAX);
        Self {
            spec,
            max_messages,
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
    let max = batch.max_messages.clamp(1, MAX_BATCH);
    let mut stats = StatsKeeper::new(spec.analyze);
    while let Some(first) = session.next(shutdown).await? {
        let mut deliveries = vec![first];
        let deadline = tokio::time::Instant::now() + batch.max_wait;
        while deliveries.len() < max {
            match session.next_by(deadline).await? {
                Some(next) => deliveries.push(next),
                None => break,
            }
        }
        apply_all(worker, &session.dead, deliveries, shutdown).await?;
        keep_stats(&mut stats, pool).await?;
    }
    session.close().await;
    Ok(())
}

/// Applies `deliveries` in as few transactions as their failures allow.
async fn apply_all<H: BatchHandler>(
    worker: Worker<'_, H>,
    dead: &Publisher,
    mut deliveries: Vec<Delivery>,
    shutdown: &mut Shutdown,
) -> anyhow::Result<()> {
    let (spec, pool, handler) = (worker.spec, worker.pool, worker.handler);
    if ledger::planted::active(ledger::planted::Bug::AckBeforeCommit) {
        ack_up_to(deliveries.last()).await?;
    }
    while !deliveries.is_empty() {
        // A message held through a Postgres outage when shutdown came is
        // unacked: acking a later batch (`multiple`) would ack it too.
        if shutdown.is_set() {
            return Ok(());
        }
        match apply_batch(spec, pool, handler, &deliveries).await {
            Ok(()) => {
                ack_up_to(deliveries.last()).await?;
                return Ok(());
            }
            Err(Failed { index, error }) => {
                let rest = deliveries.split_off(index + 1);
                let failed = deliveries.pop().expect("index is within the batch");
                tracing::warn!(
                    worker = spec.name,
                    error = ledger::logging::chain(error.as_ref()),
                    before = deliveries.len(),
                    "a message failed inside a batch; isolating it"
                );
                // The messages before it, again, without it.
                if !deliveries.is_empty() {
                    Box::pin(apply_all(worker, dead, deliveries, shutdown)).await?;
                }
                process(worker, dead, failed, shutdown).await?;
                deliveries = rest;
            }
        }
    }
    Ok(())
}

/// Which message of a batch failed, and why.
struct Failed {
    index: usize,
    error: anyhow::Error,
}

/// One transaction: the inbox rows of the batch (one statement), then the
/// effects of the messages seen for the first time.
async fn apply_batch<H: BatchHandler>(
    spec: &Spec,
    pool: &Pool,
    handler: &H,
    deliveries: &[Delivery],
) -> Result<(), Failed> {
    // A failure outside any one message (the pool, BEGIN, the inbox,
    // COMMIT) is blamed on the first, which the single path then retries
    // with backoff.
    let whole = |error: anyhow::Error| Failed { index: 0, error };
    let mut ids = Vec::with_capacity(deliveries.len());
    for (index, d) in deliveries.iter().enumerate() {
        let failed = |error| Failed { index, error };
        // Another store's message goes alone to the single path, which
        // dead-letters it.
        if let Some(why) = crate::consumer::foreign(spec, d).map_err(failed)? {
            return Err(failed(anyhow::anyhow!(why)));
        }
        ids.push(crate::consumer::message_id(d).map_err(failed)?);
    }
    let mut client = pool.get().await.map_err(|e| whole(e.into()))?;
    let tx = client.transaction().await.map_err(|e| whole(e.into()))?;
    let id_refs: Vec<&str> = ids.iter().map(String::as_str).collect();
    let fresh = ledger::inbox::claim_all(&tx, spec.name, &id_refs)
        .await
        .map_err(|e| whole(e.into()))?;
    let (positions, todo): (Vec<usize>, Vec<&Delivery>) = deliveries
        .iter()
        .enumerate()
        .filter(|(i, _)| fresh[*i])
        .unzip();
    if let Err((at, error)) = handler.handle_batch(&tx, &todo).await {
        let index = positions.get(at).copied().unwrap_or(0);
        return Err(Failed { index, error });
    }
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
