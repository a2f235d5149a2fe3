//! Group commit of redemptions (docs/design.md §13): redemptions of one batch of a
//! template's codes that arrive together are written by one transaction
//! ([`redeem_batch`]), so the template's hot row is taken once per batch,
//! as for claims. One task per code batch and process; a batch holds each
//! user and each code once (the rest wait for the next one).

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use chrono_tz::Tz;
use deadpool_postgres::Pool;
use prometheus_client::metrics::histogram::Histogram;
use tokio::sync::{mpsc, oneshot};
use uuid::Uuid;

use super::batcher::{ClaimRefused, MAX_QUEUE};
use super::group_commit;
use crate::commands::claim_batch::MAX_BATCH;
use crate::commands::redeem_batch::{self, BatchRedemption};
use crate::domain::claim_batch::one_per_key;
use crate::domain::events::CouponIssued;
use crate::domain::ids::TemplateSn;
use crate::write_model::code_batch_row::Batch;

/// Code batches with a task at once, per process; beyond it a redemption is
/// written alone.
const MAX_BATCHES: usize = 1_000;

/// A granted redemption's coupon and the code's uses after it, or why not.
pub type Answer = Result<(CouponIssued, i32), ClaimRefused>;

/// A redemption waiting for its batch, with its code batch as the request
/// read it (the newest read decides whether the batch is stopped).
pub struct Pending {
    pub batch: Batch,
    pub item: BatchRedemption,
    pub reply: oneshot::Sender<Answer>,
}

pub struct Redemptions {
    pool: Pool,
    tz: Tz,
    tasks: Mutex<HashMap<Uuid, mpsc::Sender<Pending>>>,
    batch_size: Histogram,
}

impl Redemptions {
    pub fn new(pool: Pool, tz: Tz, batch_size: Histogram) -> Arc<Self> {
        Arc::new(Self {
            pool,
            tz,
            tasks: Mutex::default(),
            batch_size,
        })
    }

    /// Whether `batch` may be group-committed: a template's codes, and room
    /// for its task.
    pub fn takes(&self, batch: &Batch) -> bool {
        let tasks = lock(&self.tasks);
        batch.template_sn.is_some() && (tasks.contains_key(&batch.id) || tasks.len() < MAX_BATCHES)
    }

    /// Queues a redemption for its batch and waits for the answer; None when
    /// the queue is full (the caller answers 429).
    pub async fn submit(self: &Arc<Self>, batch: Batch, item: BatchRedemption) -> Option<Answer> {
        let (reply, answer) = oneshot::channel();
        let queue = self.queue(batch.id);
        let pending = Pending { batch, item, reply };
        queue.try_send(pending).ok()?;
        Some(answer.await.unwrap_or(Err(ClaimRefused::Failed)))
    }

    fn queue(self: &Arc<Self>, id: Uuid) -> mpsc::Sender<Pending> {
        let mut tasks = lock(&self.tasks);
        if let Some(tx) = tasks.get(&id).filter(|tx| !tx.is_closed()) {
            return tx.clone();
        }
        let (tx, rx) = mpsc::channel(MAX_QUEUE);
        tasks.insert(id, tx.clone());
        tokio::spawn(run(self.clone(), id, tx.clone(), rx));
        tx
    }
}

async fn run(
    all: Arc<Redemptions>,
    id: Uuid,
    me: mpsc::Sender<Pending>,
    rx: mpsc::Receiver<Pending>,
) {
    let split: group_commit::Split<Pending> = |arrivals| {
        let (by_user, later) = one_per_key(arrivals, |p| p.item.claim.user_id.clone());
        let (batch, same_code) = one_per_key(by_user, |p| p.item.serial);
        (batch, later.into_iter().chain(same_code).collect())
    };
    let leave = || {
        let mut tasks = lock(&all.tasks);
        if tasks.get(&id).is_some_and(|tx| tx.same_channel(&me)) {
            tasks.remove(&id);
        }
        drop(me);
    };
    group_commit::run(rx, MAX_BATCH, split, |batch| write(&all, batch), leave).await;
}

/// Writes one batch and answers each of its requests.
async fn write(all: &Redemptions, pending: Vec<Pending>) {
    let Some(batch) = pending.last().map(|p| p.batch.clone()) else {
        return;
    };
    let (mut items, replies): (Vec<BatchRedemption>, Vec<_>) =
        pending.into_iter().map(|p| (p.item, p.reply)).unzip();
    all.batch_size.observe(items.len() as f64);
    let written = group_commit::transaction(&all.pool, async |tx, now| {
        redeem_batch::redeem_batch(tx, &batch, &mut items, now, all.tz).await
    })
    .await;
    let answers: Vec<Answer> = match written {
        Ok((outcomes, limit)) => outcomes
            .into_iter()
            .map(|o| o.map_err(|r| ClaimRefused::from_refusal(r, limit)))
            .collect(),
        Err(e) => {
            let sn = batch.template_sn.as_ref().map_or("", TemplateSn::as_str);
            vec![Err(ClaimRefused::from_batch_error(&e, sn, "redemption")); items.len()]
        }
    };
    for (reply, answer) in replies.into_iter().zip(answers) {
        // A request whose client went away is still written.
        let _ = reply.send(answer);
    }
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}
