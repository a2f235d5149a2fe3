//! Flash sales (秒杀, docs/design.md §12): claims on a hot template at tens of
//! thousands a second, with Postgres still the only truth.
//!
//! - [`gate`]: the Redis gate — stock and claimers warmed from Postgres, one
//!   Lua script that refuses sold-out, at-limit and rate-limited claims or
//!   reserves a unit; reservations the database refuses are given back.
//! - [`batcher`]: group commit — one task per hot template writes the claims
//!   that arrive together in one transaction (`commands/claim_batch.rs`).
//! - [`redemptions`]: the same group commit for redemptions of one batch of
//!   a template's codes (`commands/redeem_batch.rs`).
//! - [`group_commit`]: the loop both run: collect, split, write, go idle.
//! - [`local_limit`]: the rate limits in process while Redis is down.
//! - [`used_up`]: the bitmap of used-up codes, which answers their repeats.
//! - [`reconcile`]: resets the gate from Postgres on start, periodically,
//!   when the gate finds a template cold and when it answers sold out.
//! - [`metrics`]: gate answers, batch sizes and latency, corrections.
//!
//! [`Flash`] ties them together for `POST /v1/claims`.

pub(crate) mod batcher;
pub(crate) mod gate;
pub(crate) mod group_commit;
pub(crate) mod local_limit;
pub(crate) mod metrics;
pub mod reconcile;
pub(crate) mod redemptions;
pub mod used_up;

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use chrono_tz::Tz;
use deadpool_postgres::Pool;
use tokio::sync::{mpsc, oneshot};

use crate::commands::claim_batch::BatchClaim;
use crate::domain::eligibility::{Eligibility, Rule, UserFacts};
use crate::domain::ids::{ChannelId, TemplateSn};
use crate::domain::rate_limit::RateLimit;
use crate::redis_link::RedisHandle;
use batcher::{Answer, ClaimRefused, Pending};
use gate::{Admission, Claimant};

/// How long a template's limits are cached before they are read again.
const TEMPLATE_TTL: Duration = Duration::from_secs(2);
/// Templates whose limits are cached, and hot templates with a batcher, at most.
const MAX_TEMPLATES: usize = 10_000;
/// A template's gate is reset from Postgres at most this often on demand
/// (cold keys, a sold-out answer to check).
const RESET_EVERY: Duration = Duration::from_secs(1);

/// What the gate needs of a template, cached for [`TEMPLATE_TTL`].
#[derive(Clone, Debug)]
pub struct GateInfo {
    pub active: bool,
    pub per_user_limit: i32,
    pub rate_limit: RateLimit,
    /// The channels the template lists: a claim by another channel is not
    /// admitted (it would hold a unit of stock and its user's limit until
    /// its batch refused it); Postgres answers it (docs/design.md §15).
    pub channels: Arc<[ChannelId]>,
    /// Who may claim: the rules a claim's facts answer are checked before
    /// the gate, so an ineligible user never holds a unit of stock; the
    /// allow-list is Postgres' (docs/design.md §15).
    pub eligibility: Option<Eligibility>,
}

impl GateInfo {
    /// Whether the template lists `channel` (as of this cached read).
    pub fn lists(&self, channel: ChannelId) -> bool {
        self.channels.contains(&channel)
    }

    /// The first rule the user's facts fail (as of this cached read).
    pub fn admits(&self, facts: &UserFacts) -> Result<(), Rule> {
        self.eligibility
            .as_ref()
            .map_or(Ok(()), |e| e.admits(facts))
    }
}

/// The gate's decision on one claim.
#[derive(Debug)]
pub enum Decision {
    /// Write it (through the batcher); `reserved`: Redis holds a unit for it.
    Write { reserved: bool },
    /// Refused before any database write.
    Refuse(Refused),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Refused {
    /// The nonce was spent before.
    Replay,
    SoldOut,
    AtLimit(i32),
    RateLimited(Duration),
}

pub struct Flash {
    pool: Pool,
    redis: RedisHandle,
    tz: Tz,
    pub metrics: metrics::FlashMetrics,
    /// Group commit of redemptions of a template's codes.
    pub redemptions: Arc<redemptions::Redemptions>,
    local: local_limit::LocalLimit,
    templates: Mutex<HashMap<TemplateSn, (Instant, Option<GateInfo>)>>,
    batchers: Mutex<HashMap<TemplateSn, mpsc::Sender<Pending>>>,
    resets: Mutex<HashMap<TemplateSn, Instant>>,
}

impl Flash {
    pub fn new(
        pool: Pool,
        redis: RedisHandle,
        tz: Tz,
        metrics: metrics::FlashMetrics,
    ) -> Arc<Self> {
        Arc::new(Self {
            redemptions: redemptions::Redemptions::new(
                pool.clone(),
                tz,
                metrics.redemption_batch_size.clone(),
            ),
            pool,
            redis,
            tz,
            metrics,
            local: Default::default(),
            templates: Mutex::default(),
            batchers: Mutex::default(),
            resets: Mutex::default(),
        })
    }

    /// The template's limits (cached); None when it does not exist.
    pub async fn info(&self, sn: &TemplateSn) -> Result<Option<GateInfo>, FlashError> {
        if let Some((at, info)) = lock(&self.templates).get(sn)
            && at.elapsed() < TEMPLATE_TTL
        {
            return Ok(info.clone());
        }
        let client = self.pool.get().await?;
        let info = reconcile::read_info(&**client, sn).await?;
        let mut cache = lock(&self.templates);
        if cache.len() >= MAX_TEMPLATES {
            cache.clear();
        }
        cache.insert(sn.clone(), (Instant::now(), info.clone()));
        Ok(info)
    }

    /// An admin changed the template here (status, quota, limits): forget
    /// its cached limits and reset its gate from Postgres now. Other
    /// processes follow within [`TEMPLATE_TTL`] and their next reset.
    pub async fn template_changed(&self, sn: &TemplateSn) {
        lock(&self.templates).remove(sn);
        if let Err(e) = reconcile::reset(self, sn, true).await {
            tracing::warn!(
                error = crate::logging::chain(e.as_ref()),
                template = %sn,
                "gate reset failed"
            );
        }
    }

    /// The gate: the nonce, the rate limits, then (unless `rates_only`)
    /// stock and the user's limit. Redis down: the rate limits in process,
    /// and Postgres spends the nonce with the claim.
    pub async fn admit(self: &Arc<Self>, c: &Claimant<'_>) -> Decision {
        let Some(mut conn) = self.redis.connection().await else {
            self.metrics.gate("redis_down");
            return match self.local.take(&c.rate_limit, c.sn, c.channel, c.user) {
                Some(wait) => self.refuse(Refused::RateLimited(wait)),
                None => Decision::Write { reserved: false },
            };
        };
        let admission = match gate::admit(&self.redis, &mut conn, c).await {
            Ok(a) => a,
            Err(e) => {
                tracing::warn!(error = %e, "flash gate unavailable; claims go to Postgres");
                self.redis.report_failure();
                self.metrics.gate("redis_down");
                return Decision::Write { reserved: false };
            }
        };
        match admission {
            Admission::Reserved => {
                self.metrics.gate("reserved");
                Decision::Write { reserved: true }
            }
            Admission::WithinRates => Decision::Write { reserved: false },
            Admission::Cold => {
                self.metrics.gate("cold");
                self.reset_soon(c.sn, true);
                Decision::Write { reserved: false }
            }
            Admission::SoldOut => {
                // Redis may be short after a lost reservation: check it.
                self.reset_soon(c.sn, false);
                self.refuse(Refused::SoldOut)
            }
            Admission::AtLimit => self.refuse(Refused::AtLimit(c.per_user_limit)),
            Admission::Replay => self.refuse(Refused::Replay),
            Admission::RateLimited { wait_ms } => {
                self.refuse(Refused::RateLimited(Duration::from_millis(wait_ms)))
            }
        }
    }

    fn refuse(&self, r: Refused) -> Decision {
        self.metrics.gate(match r {
            Refused::Replay => "replay",
            Refused::SoldOut => "sold_out",
            Refused::AtLimit(_) => "at_limit",
            Refused::RateLimited(_) => "rate_limited",
        });
        Decision::Refuse(r)
    }

    /// Queues a claim for its template's next batch and waits for its answer.
    /// None when the template's queue is full (the caller answers 429).
    pub async fn submit(
        self: &Arc<Self>,
        sn: &TemplateSn,
        claim: BatchClaim,
        reserved: bool,
    ) -> Option<Answer> {
        let (reply, answer) = oneshot::channel();
        let pending = Pending {
            claim,
            reserved,
            reply,
        };
        if let Err(refused) = self.queue(sn).try_send(pending) {
            let user = match &refused {
                mpsc::error::TrySendError::Full(p) | mpsc::error::TrySendError::Closed(p) => {
                    p.claim.user_id.clone()
                }
            };
            self.metrics.gate("queue_full");
            if reserved {
                let back = gate::GiveBack {
                    units: 1,
                    users: vec![user.as_str()],
                };
                self.release(sn, &back).await;
            }
            return None;
        }
        Some(answer.await.unwrap_or(Err(ClaimRefused::Failed)))
    }

    /// The template's batcher queue, starting its task when there is none.
    fn queue(self: &Arc<Self>, sn: &TemplateSn) -> mpsc::Sender<Pending> {
        let mut batchers = lock(&self.batchers);
        if let Some(tx) = batchers.get(sn).filter(|tx| !tx.is_closed()) {
            return tx.clone();
        }
        let (tx, rx) = mpsc::channel(batcher::MAX_QUEUE);
        batchers.insert(sn.clone(), tx.clone());
        tokio::spawn(batcher::run(self.clone(), sn.clone(), tx.clone(), rx));
        tx
    }

    /// A batcher that went idle leaves the map (unless a new one replaced it).
    fn batcher_done(&self, sn: &TemplateSn, me: &mpsc::Sender<Pending>) {
        let mut batchers = lock(&self.batchers);
        if batchers.get(sn).is_some_and(|tx| tx.same_channel(me)) {
            batchers.remove(sn);
        }
    }

    /// Whether a new hot template may get a batcher (bounded).
    pub fn has_room(&self, sn: &TemplateSn) -> bool {
        let batchers = lock(&self.batchers);
        batchers.contains_key(sn) || batchers.len() < MAX_TEMPLATES
    }

    /// Gives back reservations; a failure is logged (the reconciler repairs).
    pub async fn release(&self, sn: &TemplateSn, back: &gate::GiveBack<'_>) {
        if back.is_empty() {
            return;
        }
        let Some(mut conn) = self.redis.connection().await else {
            return;
        };
        if let Err(e) = gate::release(&self.redis, &mut conn, sn, back).await {
            tracing::warn!(error = %e, template = %sn, "cannot give reservations back");
            self.redis.report_failure();
        }
    }

    /// Resets the template's gate from Postgres on a task of its own, at
    /// most once per [`RESET_EVERY`].
    pub fn reset_soon(self: &Arc<Self>, sn: &TemplateSn, claimers: bool) {
        {
            let mut resets = lock(&self.resets);
            if resets.get(sn).is_some_and(|at| at.elapsed() < RESET_EVERY) {
                return;
            }
            if resets.len() >= MAX_TEMPLATES {
                resets.clear();
            }
            resets.insert(sn.clone(), Instant::now());
        }
        let (flash, sn) = (self.clone(), sn.clone());
        tokio::spawn(async move {
            if let Err(e) = reconcile::reset(&flash, &sn, claimers).await {
                tracing::warn!(
                    error = crate::logging::chain(e.as_ref()),
                    template = %sn,
                    "gate reset failed"
                );
            }
        });
    }
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// Reading a template's limits failed.
#[derive(Debug, thiserror::Error)]
pub enum FlashError {
    #[error(transparent)]
    Pool(#[from] deadpool_postgres::PoolError),
    #[error(transparent)]
    Db(#[from] tokio_postgres::Error),
}
