//! The per-user tables, bucket of users by bucket, once every pass has
//! folded its coupons: claims and balances added up from the holdings,
//! reminders rebuilt from the steps merged back into the store's order,
//! each compared with the bucket's live rows. A thread and connection of
//! their own start on the buckets while the last pass compares its
//! coupons; the first connection, its coupon map dropped, then takes
//! buckets too, each bucket compared once, by whichever comes first
//! ([`Work`]): two buckets at a time weigh about what one pass did.

use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, Mutex};

use chrono::{DateTime, Duration, Utc};
use tokio::sync::oneshot;
use tokio_postgres::Transaction;

use super::compare::Differences;
use super::holdings::Holding;
use super::notify::{self, NotifyRows};
use super::notify_steps::Step;
use super::partition::Partitions;
use super::spill::{Spill, merged};
use super::tables::{Map, Names};
use super::{ReplayError, holdings, live};

/// What the buckets are compared in and with.
pub struct Buckets {
    pub config: tokio_postgres::Config,
    /// The snapshot the passes read, exported by their transaction.
    pub snapshot: String,
    pub partitions: Partitions,
    pub spill: Arc<Spill>,
    /// When `notify_msg` is checked: now, and the retention of its rows.
    pub reminders: Option<(DateTime<Utc>, Duration)>,
}

/// What the last pass leaves the buckets: its names, and its coupons'
/// holdings by bucket (its coupon map is dropped once compared).
pub struct LastPass {
    pub names: Arc<Names>,
    pub holdings: Vec<Vec<Holding>>,
    /// By bucket: (template, user, count) that reserved claims took ahead
    /// of their coupons (`codes_fold::ahead`).
    pub claims_ahead: Vec<Vec<Ahead>>,
}

/// A user's count of a template that a reserved claim took ahead of its
/// coupons: (template, user, count).
pub type Ahead = (String, String, i32);

/// `ahead` ((bucket, template, user) → count) by bucket, `buckets` of them.
pub fn ahead_by_bucket(ahead: Map<(u32, String, String), i32>, buckets: u32) -> Vec<Vec<Ahead>> {
    let mut out = vec![Vec::new(); usize::try_from(buckets).unwrap_or(1)];
    for ((bucket, template, user), n) in ahead {
        if let Some(b) = out.get_mut(usize::try_from(bucket).unwrap_or(usize::MAX)) {
            b.push((template, user, n));
        }
    }
    out
}

/// The buckets to compare, shared by the connections that compare them:
/// each takes the next one not taken.
pub struct Work {
    buckets: Buckets,
    names: Arc<Names>,
    /// The last pass's holdings of each bucket, taken (and freed) with it.
    last: Vec<Mutex<Vec<Holding>>>,
    /// Each bucket's claims ahead of their coupons, taken with it.
    ahead: Vec<Mutex<Vec<Ahead>>>,
    next: AtomicU32,
}

impl Work {
    pub fn new(buckets: Buckets, last: LastPass) -> Arc<Self> {
        Arc::new(Work {
            buckets,
            names: last.names,
            last: last.holdings.into_iter().map(Mutex::new).collect(),
            ahead: last.claims_ahead.into_iter().map(Mutex::new).collect(),
            next: AtomicU32::new(0),
        })
    }

    /// Compares buckets on `tx` until none is left.
    pub async fn take_buckets(&self, tx: &Transaction<'_>) -> Result<Differences, ReplayError> {
        let mut out = Differences::default();
        loop {
            let bucket = self.next.fetch_add(1, Ordering::Relaxed);
            if bucket >= self.buckets.partitions.buckets() {
                return Ok(out);
            }
            self.compare_bucket(tx, bucket, &mut out).await?;
        }
    }

    async fn compare_bucket(
        &self,
        tx: &Transaction<'_>,
        bucket: u32,
        out: &mut Differences,
    ) -> Result<(), ReplayError> {
        let (buckets, names) = (&self.buckets, &*self.names);
        let filter = buckets.partitions.users(bucket);
        let last = self.last.get(usize::try_from(bucket).unwrap_or(usize::MAX));
        let last = last.map(|l| std::mem::take(&mut *l.lock().unwrap_or_else(|e| e.into_inner())));
        let spilled = buckets.spill.holdings(bucket)?;
        let mut counts = holdings::add_up(spilled, names, &last.unwrap_or_default())?;
        let ahead = self
            .ahead
            .get(usize::try_from(bucket).unwrap_or(usize::MAX));
        let ahead =
            ahead.map(|a| std::mem::take(&mut *a.lock().unwrap_or_else(|e| e.into_inner())));
        for (template, user, n) in ahead.unwrap_or_default() {
            let key = (counts.names.intern(&template), counts.names.intern(&user));
            counts.user_claims.entry(key).or_default().claimed += n;
        }
        live::compare_counts(tx, counts, filter.as_deref(), out).await?;
        let Some(reminders) = buckets.reminders else {
            return Ok(());
        };
        let mut rows = NotifyRows::new(names);
        let passes = buckets.partitions.count();
        let steps = buckets.spill.steps(passes, bucket)?;
        merged(steps, |s: &Step| s.order, |s| rows.apply(s))?;
        notify::compare(tx, rows, filter.as_deref(), reminders, out).await?;
        Ok(())
    }
}

/// Takes buckets on a thread and connection of its own, in the exported
/// snapshot.
pub fn apart(work: Arc<Work>) -> oneshot::Receiver<Result<Differences, ReplayError>> {
    let (send, receive) = oneshot::channel();
    std::thread::spawn(move || {
        let compared = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .map_err(|e| ReplayError::Apart(e.to_string()))
            .and_then(|runtime| runtime.block_on(take_apart(&work)));
        // The receiver is gone only if `verify` already failed.
        let _ = send.send(compared);
    });
    receive
}

async fn take_apart(work: &Work) -> Result<Differences, ReplayError> {
    let snapshot = &work.buckets.snapshot;
    // An id like 00000003-0000001B-1; it is written into the command.
    debug_assert!(snapshot.chars().all(|c| c.is_ascii_hexdigit() || c == '-'));
    let mut client = crate::db::connect(&work.buckets.config).await?;
    let tx = crate::db::read_only_snapshot(&mut client).await?;
    tx.batch_execute(&format!("SET TRANSACTION SNAPSHOT '{snapshot}'"))
        .await?;
    work.take_buckets(&tx).await
}
