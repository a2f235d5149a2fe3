//! Claims on one template written together (group commit, docs/design.md §12): one
//! transaction for the batch, each guard one statement over all its
//! requests, the hot template row locked once, late and briefly.
//!
//! The guards are the single claim's ([`super::template_guards`]), each
//! over the whole batch: the nonces of the batch, then the users' limits
//! (one unit each: the batcher puts a user at most once in a batch), then
//! the quota (partial when fewer are left), then the coupon rows and their
//! events by COPY. Refusals are per request; a failure fails the whole batch.

use chrono::{DateTime, Utc};
use chrono_tz::Tz;
use deadpool_postgres::Transaction;

use super::CommandError;
use super::template_guards::open::{self, TemplateView, template_view_columns};
use super::template_guards::{quota, user_limits};
use crate::domain::claim_batch::{self, Refusal};
use crate::domain::eligibility::UserFacts;
use crate::domain::events::{CouponIssued, Metadata};
use crate::domain::ids::ChannelId;
use crate::domain::ids::{CouponId, TemplateSn, UserId};
use crate::domain::ledger_event::LedgerEvent;
use crate::domain::new_coupon::{Issue, Origin};
use crate::domain::quota::{QuotaRefused, Take};
use crate::store::{self, NewEvent, StreamEvent};

/// The most claims one batch writes.
pub const MAX_BATCH: usize = 200;

/// One request of a batch.
#[derive(Clone)]
pub struct BatchClaim {
    pub user_id: UserId,
    /// What the channel vouches for about the user (docs/design.md §15).
    pub facts: UserFacts,
    pub channel_id: Option<ChannelId>,
    /// The signed request's nonce, spent in the batch's transaction.
    pub nonce: Option<String>,
    pub metadata: Metadata,
    /// The request's collector of appended event ids (for its log line):
    /// the batch runs on another task, so it adds the claim's id itself.
    pub appended: Option<store::appended::Appended>,
}

/// Each request's outcome, in the batch's order.
pub type Outcomes = Vec<Result<CouponIssued, Refusal>>;

pub async fn claim_batch(
    tx: &Transaction<'_>,
    sn: &TemplateSn,
    claims: &[BatchClaim],
    now: DateTime<Utc>,
    tz: Tz,
) -> Result<(Outcomes, i32), CommandError> {
    debug_assert!(!claims.is_empty() && claims.len() <= MAX_BATCH);
    let (view, allowed) = read_template(tx, sn, claims).await?;
    open::open_for_claims(&view, now)?;
    let mut refused: Vec<Option<Refusal>> = claims
        .iter()
        .map(|c| {
            let ok = c.channel_id.is_none_or(|id| allowed.contains(&id));
            (!ok).then_some(Refusal::Channel)
        })
        .collect();
    spend_nonces(tx, claims, &mut refused).await?;
    let (issued, events) = claim_standing(tx, sn, claims, refused, &view, (now, tz)).await?;
    store::copy_events(tx, &events).await?;
    Ok((issued, view.per_user_limit))
}

/// The template's guards over the requests still standing after the
/// caller's (`refused`): the users' limits, the quota, then the coupons,
/// written. Their `CouponIssued` events are returned for the caller to
/// append, so that a redemption appends them with its own in one COPY
/// while the template's row is locked (docs/design.md §12).
pub(crate) async fn claim_standing(
    tx: &Transaction<'_>,
    sn: &TemplateSn,
    claims: &[BatchClaim],
    mut refused: Vec<Option<Refusal>>,
    view: &TemplateView,
    (now, tz): (DateTime<Utc>, Tz),
) -> Result<(Outcomes, Vec<StreamEvent>), CommandError> {
    debug_assert_eq!(claims.len(), refused.len());
    refuse_ineligible(tx, sn, claims, view, &mut refused).await?;
    limit_users(tx, sn, claims, view.per_user_limit, &mut refused).await?;
    let standing = refused.iter().filter(|r| r.is_none()).count();
    let granted = take_quota(tx, sn, standing).await?;
    let outcomes = claim_batch::settle(&refused, granted);
    give_back_limits(tx, sn, claims, &refused, &outcomes).await?;
    write_coupons(tx, sn, claims, &outcomes, view, now, tz).await
}

pub(crate) async fn read_template(
    tx: &Transaction<'_>,
    sn: &TemplateSn,
    claims: &[BatchClaim],
) -> Result<(TemplateView, Vec<ChannelId>), CommandError> {
    let channels: Vec<ChannelId> = claims.iter().filter_map(|c| c.channel_id).collect();
    const SQL: &str = concat!(
        "SELECT ",
        template_view_columns!(),
        ", ARRAY(SELECT channel_id FROM template_channels
                  WHERE template_sn = $1 AND channel_id = ANY($2))
           FROM templates WHERE sn = $1"
    );
    let row = tx
        .query_opt(&tx.prepare_cached(SQL).await?, &[&sn, &channels])
        .await?
        .ok_or_else(|| CommandError::not_found("template", sn))?;
    let view = TemplateView::read(&row, 0, true)?;
    Ok((view, row.get(7)))
}

/// The requests whose user the template does not admit (docs/design.md §15).
async fn refuse_ineligible(
    tx: &Transaction<'_>,
    sn: &TemplateSn,
    claims: &[BatchClaim],
    view: &TemplateView,
    refused: &mut [Option<Refusal>],
) -> Result<(), CommandError> {
    let (idx, users): (Vec<usize>, Vec<(&str, &UserFacts)>) = claims
        .iter()
        .enumerate()
        .filter(|(i, _)| refused[*i].is_none())
        .map(|(i, c)| (i, (c.user_id.as_str(), &c.facts)))
        .unzip();
    let rules = open::ineligible(tx, sn, view, &users).await?;
    for (i, rule) in idx.into_iter().zip(rules) {
        refused[i] = rule.map(Refusal::NotEligible);
    }
    Ok(())
}

/// Spends the batch's nonces in one statement; a nonce spent before (or
/// twice in the batch) refuses its request as a replay.
async fn spend_nonces(
    tx: &Transaction<'_>,
    claims: &[BatchClaim],
    refused: &mut [Option<Refusal>],
) -> Result<(), CommandError> {
    let (idx, channels, nonces): (Vec<usize>, Vec<ChannelId>, Vec<&str>) = claims
        .iter()
        .enumerate()
        .filter(|(i, _)| refused[*i].is_none())
        .filter_map(|(i, c)| Some((i, c.channel_id?, c.nonce.as_deref()?)))
        .fold(Default::default(), |(mut a, mut b, mut c), (i, ch, n)| {
            a.push(i);
            b.push(ch);
            c.push(n);
            (a, b, c)
        });
    if idx.is_empty() {
        return Ok(());
    }
    let sql = "INSERT INTO channel_nonces (channel_id, nonce)
               SELECT * FROM unnest($1::uuid[], $2::text[])
               ON CONFLICT DO NOTHING RETURNING channel_id, nonce";
    let rows = tx
        .query(&tx.prepare_cached(sql).await?, &[&channels, &nonces])
        .await?;
    let mut spent: std::collections::HashSet<(ChannelId, String)> =
        rows.iter().map(|r| (r.get(0), r.get(1))).collect();
    for (k, i) in idx.into_iter().enumerate() {
        if !spent.remove(&(channels[k], nonces[k].to_owned())) {
            refused[i] = Some(Refusal::Replay);
        }
    }
    Ok(())
}

/// One unit per standing user, in one statement; users at their limit are
/// refused.
async fn limit_users(
    tx: &Transaction<'_>,
    sn: &TemplateSn,
    claims: &[BatchClaim],
    limit: i32,
    refused: &mut [Option<Refusal>],
) -> Result<(), CommandError> {
    let users = standing_users(claims, refused);
    let ones = vec![1; users.len()];
    let admitted = user_limits::raise(tx, sn.as_str(), &users, &ones, limit).await?;
    for (c, r) in claims.iter().zip(refused.iter_mut()) {
        if r.is_none() && !admitted.contains(c.user_id.as_str()) {
            *r = Some(Refusal::AtLimit);
        }
    }
    Ok(())
}

fn standing_users<'a>(claims: &'a [BatchClaim], refused: &[Option<Refusal>]) -> Vec<&'a str> {
    claims
        .iter()
        .zip(refused)
        .filter(|(_, r)| r.is_none())
        .map(|(c, _)| c.user_id.as_str())
        .collect()
}

/// Takes up to `n` units of the quota: how many it got. 422 when the
/// template left `active` since the batch read it.
async fn take_quota(
    tx: &Transaction<'_>,
    sn: &TemplateSn,
    n: usize,
) -> Result<usize, CommandError> {
    let wanted = i64::try_from(n).map_err(|e| CommandError::Internal(e.into()))?;
    match quota::take(tx, sn.as_str(), wanted, Take::UpTo).await? {
        Ok(granted) => Ok(usize::try_from(granted).expect("granted is in 0..=n")),
        Err(QuotaRefused::SoldOut) => Ok(0),
        Err(QuotaRefused::NotActive(status)) => Err(open::not_active(status)),
    }
}

/// The users whose unit the quota could not give take their limit back.
async fn give_back_limits(
    tx: &Transaction<'_>,
    sn: &TemplateSn,
    claims: &[BatchClaim],
    before: &[Option<Refusal>],
    after: &[Option<Refusal>],
) -> Result<(), CommandError> {
    let users: Vec<&str> = claims
        .iter()
        .zip(before.iter().zip(after))
        .filter(|(_, (b, a))| b.is_none() && **a == Some(Refusal::SoldOut))
        .map(|(c, _)| c.user_id.as_str())
        .collect();
    user_limits::give_back(tx, sn.as_str(), &users).await?;
    Ok(())
}

/// The granted requests' coupons: rows and `CouponIssued` events by COPY.
async fn write_coupons(
    tx: &Transaction<'_>,
    sn: &TemplateSn,
    claims: &[BatchClaim],
    outcomes: &[Option<Refusal>],
    view: &TemplateView,
    now: DateTime<Utc>,
    tz: Tz,
) -> Result<(Outcomes, Vec<StreamEvent>), CommandError> {
    let remind = view.remind_days_before.clone();
    let issue = Issue::at(sn, &view.terms, remind, (now, tz))?;
    let mut results = Vec::with_capacity(claims.len());
    let (mut coupons, mut events) = (Vec::new(), Vec::new());
    for (c, outcome) in claims.iter().zip(outcomes) {
        if let Some(refusal) = outcome {
            results.push(Err(*refusal));
            continue;
        }
        let origin = Origin {
            channel_id: c.channel_id,
            ..Origin::default()
        };
        let coupon = issue.coupon(&c.user_id, origin);
        let event = LedgerEvent::CouponIssued(coupon.clone());
        let new = NewEvent::of(&event, &c.metadata, now)?;
        if let Some(appended) = &c.appended {
            appended.extend([new.event_id]);
        }
        events.push(StreamEvent {
            stream_id: CouponId(coupon.coupon_id).stream_id(),
            stream_version: 1,
            event: new,
        });
        coupons.push(coupon.clone());
        results.push(Ok(coupon));
    }
    if !coupons.is_empty() {
        super::coupon_rows::copy(tx, &coupons).await?;
    }
    Ok((results, events))
}
