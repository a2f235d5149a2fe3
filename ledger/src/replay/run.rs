//! The passes of one verification, in order, on its first connection:
//! each folds and compares its coupons and orders; the last hands its
//! coupons to the buckets of users (started on their own thread) while it
//! compares them; then the tables every pass added to are compared, this
//! connection helps with the buckets left, and their differences are joined.

use std::sync::Arc;
use std::time::{Duration, Instant};

use tokio::sync::oneshot;
use tokio_postgres::Transaction;

use super::compare::Differences;
use super::partition::{Partitions, StoreSize};
use super::spill::Spill;
use super::tables::Tables;
use super::{Progress, ReplayError, codes_live, estimated_rows, fold, live, pass, users};
use crate::projections::notify::NotifyClock;

/// The passes to make (`reminders`: whether they are checked too), and
/// how many coupons each sizes its map for: counted in the snapshot when
/// the count is to be chosen, else Postgres' estimate.
pub async fn plan(
    tx: &Transaction<'_>,
    partitions: Option<Partitions>,
    reminders: bool,
) -> Result<(Partitions, usize), ReplayError> {
    let (partitions, coupons) = match partitions {
        // Every coupon is replayed, the archived ones too (docs/design.md §16).
        Some(p) => {
            let hot = estimated_rows(tx, "coupons").await?;
            (p, hot + estimated_rows(tx, "coupons_archive").await?)
        }
        None => {
            let size = StoreSize::count(tx).await?;
            (Partitions::for_store(size, reminders), size.coupons)
        }
    };
    // A pass holds about its share; a tenth more spares a regrowth.
    let share = coupons / u64::from(partitions.count());
    let presize = usize::try_from(share + share / 10).unwrap_or(fold::MAX_PRESIZE);
    Ok((partitions, presize.min(fold::MAX_PRESIZE)))
}

/// What the passes folded and found.
pub struct Folded {
    /// Events folded, each once.
    pub events: u64,
    pub fold: Duration,
    pub differences: Differences,
}

type Compared = oneshot::Receiver<Result<Differences, ReplayError>>;

/// The passes of one verification.
pub struct Passes<'t> {
    tx: &'t Transaction<'t>,
    partitions: Partitions,
    replay: fold::Replay,
    spill: Arc<Spill>,
}

impl<'t> Passes<'t> {
    pub fn new(
        tx: &'t Transaction<'t>,
        partitions: Partitions,
        clock: Option<NotifyClock>,
        spill: Arc<Spill>,
    ) -> Self {
        Passes {
            tx,
            partitions,
            replay: fold::Replay::new(clock),
            spill,
        }
    }

    /// Every pass, then the tables they added to, then the buckets of users.
    pub async fn all(
        &mut self,
        presize: usize,
        buckets: users::Buckets,
        progress: &mut impl FnMut(Progress),
    ) -> Result<Folded, ReplayError> {
        let mut folded = Folded {
            events: 0,
            fold: Duration::ZERO,
            differences: Differences::default(),
        };
        let last = self.partitions.count() - 1;
        for part in 0..last {
            let at = self.fold(part, presize, &mut folded, progress).await?;
            let out = &mut folded.differences;
            pass::finish(self.tx, &at, &mut self.replay, &self.spill, out).await?;
        }
        let at = self.fold(last, presize, &mut folded, progress).await?;
        let mut work = None;
        let mut compared: Option<Compared> = None;
        let start = |pass| {
            let shared = users::Work::new(buckets, pass);
            compared = Some(users::apart(Arc::clone(&shared)));
            work = Some(shared);
        };
        let out = &mut folded.differences;
        pass::finish_last(self.tx, &at, &mut self.replay, start, out).await?;
        compare_tables(self.tx, &mut self.replay.tables, &mut folded.differences).await?;
        let (Some(work), Some(compared)) = (work, compared) else {
            return Err(ReplayError::Apart("never started".into()));
        };
        // Done with its own tables, this connection takes buckets too.
        let here = work.take_buckets(self.tx).await?;
        let there = compared
            .await
            .map_err(|_| ReplayError::Apart("the thread stopped".into()))??;
        folded.differences.merge(here);
        folded.differences.merge(there);
        folded.differences.listed.sort();
        Ok(folded)
    }

    /// Folds pass `part`, counting its events and time into `folded`.
    async fn fold(
        &mut self,
        part: u32,
        presize: usize,
        folded: &mut Folded,
        progress: &mut impl FnMut(Progress),
    ) -> Result<pass::At, ReplayError> {
        let at = pass::At {
            part,
            partitions: self.partitions,
            events_before: folded.events,
        };
        let started = Instant::now();
        self.replay.start_pass(presize);
        folded.events += pass::fold(self.tx, &at, &mut self.replay, &self.spill, progress).await?;
        folded.fold += started.elapsed();
        Ok(at)
    }
}

/// Compares the tables every pass added to (`t`, which it empties): the
/// templates' and channels', the codes' and packages', then the template
/// stats, in the order their differences have always been listed (only
/// the first `compare::MAX_REPORTED` are).
async fn compare_tables(
    tx: &Transaction<'_>,
    t: &mut Tables,
    out: &mut Differences,
) -> Result<(), tokio_postgres::Error> {
    live::compare_templates(tx, t, out).await?;
    codes_live::compare(tx, t, out).await?;
    live::compare_template_stats(tx, t, out).await
}
