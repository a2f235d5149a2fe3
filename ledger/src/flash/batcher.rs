//! Group commit: claims for one template that arrive together are written by
//! one transaction ([`claim_batch`]). One task per template and process
//! collects up to [`MAX_BATCH`] claims or waits
//! [`group_commit::MAX_WAIT`] after the first, writes them, answers each request, and gives back the Redis
//! reservations of those the database refused or failed.

use std::sync::Arc;
use std::time::Instant;

use tokio::sync::{mpsc, oneshot};

use super::gate::GiveBack;
use super::{Flash, group_commit};
use crate::commands::claim_batch::{self, BatchClaim, MAX_BATCH};
pub use crate::commands::refusal::ClaimRefused;
use crate::domain::claim_batch::one_per_user;
use crate::domain::events::CouponIssued;
use crate::domain::ids::TemplateSn;

/// Claims waiting per template and process; beyond it: 429.
pub const MAX_QUEUE: usize = 4_096;

/// What one request gets back from its batch.
pub type Answer = Result<CouponIssued, ClaimRefused>;

/// A claim waiting for its batch.
pub struct Pending {
    pub claim: BatchClaim,
    /// The gate reserved a unit for it in Redis.
    pub reserved: bool,
    pub reply: oneshot::Sender<Answer>,
}

/// Runs one template's batches until it has been idle.
pub async fn run(
    flash: Arc<Flash>,
    sn: TemplateSn,
    me: mpsc::Sender<Pending>,
    rx: mpsc::Receiver<Pending>,
) {
    let split: group_commit::Split<Pending> =
        |arrivals| one_per_user(arrivals, |p| p.claim.user_id.as_str());
    let leave = || {
        flash.batcher_done(&sn, &me);
        drop(me);
    };
    group_commit::run(
        rx,
        MAX_BATCH,
        split,
        |batch| write(&flash, &sn, batch),
        leave,
    )
    .await;
}

/// Writes one batch and answers every request of it.
async fn write(flash: &Arc<Flash>, sn: &TemplateSn, batch: Vec<Pending>) {
    let started = Instant::now();
    let (claims, waiting): (Vec<BatchClaim>, Vec<_>) = batch
        .into_iter()
        .map(|p| (p.claim, (p.reserved, p.reply)))
        .unzip();
    let result = group_commit::transaction(&flash.pool, async |tx, now| {
        claim_batch::claim_batch(tx, sn, &claims, now, flash.tz).await
    })
    .await;
    flash.metrics.batch_size.observe(claims.len() as f64);
    let seconds = started.elapsed().as_secs_f64();
    flash.metrics.batch_seconds.observe(seconds);
    let answers: Vec<Answer> = match result {
        Ok((outcomes, limit)) => outcomes
            .into_iter()
            .map(|o| o.map_err(|r| ClaimRefused::from_refusal(r, limit)))
            .collect(),
        Err(e) => vec![Err(ClaimRefused::from_batch_error(&e, sn.as_str(), "claim")); claims.len()],
    };
    let mut back = GiveBack::default();
    for ((c, (reserved, _)), answer) in claims.iter().zip(&waiting).zip(&answers) {
        match answer {
            Ok(_) => {}
            _ if !*reserved => {}
            // The database has no stock left: the unit stays taken (a
            // reset brings Redis to the truth), the user's claim goes back.
            Err(ClaimRefused::SoldOut) => back.users.push(c.user_id.as_str()),
            // The user does hold the limit: the claim stays counted.
            Err(ClaimRefused::AtLimit(_)) => back.units += 1,
            Err(_) => {
                back.units += 1;
                back.users.push(c.user_id.as_str());
            }
        }
    }
    if answers
        .iter()
        .any(|a| matches!(a, Err(ClaimRefused::SoldOut)))
    {
        flash.reset_soon(sn, false);
    }
    flash.release(sn, &back).await;
    for ((_, reply), answer) in waiting.into_iter().zip(answers) {
        // A request whose client went away is still written: only its
        // answer is lost, as with any request.
        let _ = reply.send(answer);
    }
}
