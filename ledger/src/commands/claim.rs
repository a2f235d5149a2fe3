//! Claiming one coupon (领券): the template's guards ([`super::template_guards`])
//! in the same transaction as the `CouponIssued` event — never
//! read-then-write — so no number of concurrent claims can over-issue.

use chrono::{DateTime, SubsecRound, Utc};
use chrono_tz::Tz;
use deadpool_postgres::Transaction;
use uuid::Uuid;

use super::CommandError;
use super::template_guards::open::{self, TemplateView, template_view_columns};
use super::template_guards::{quota, user_limits};
use crate::domain::eligibility::UserFacts;
use crate::domain::events::{CouponIssued, Metadata};
use crate::domain::ids::ChannelId;
use crate::domain::ids::{CouponId, TemplateSn, UserId};
use crate::domain::ledger_event::LedgerEvent;
use crate::domain::new_coupon::{Issue, Origin};
use crate::domain::quota::Take;
use crate::domain::reminder::RemindDays;
use crate::domain::terms::Terms;
use crate::domain::validity::Validity;
use crate::store;
use crate::store::NewEvent;

pub struct ClaimRequest<'a> {
    pub template_sn: &'a TemplateSn,
    pub user_id: &'a UserId,
    /// What the channel vouches for about the user (docs/design.md §15).
    pub facts: &'a UserFacts,
    /// The channel that asks; None for operators and internal services.
    pub channel_id: Option<ChannelId>,
    pub now: DateTime<Utc>,
    pub tz: Tz,
}

pub async fn claim(
    tx: &Transaction<'_>,
    req: &ClaimRequest<'_>,
    metadata: &Metadata,
) -> Result<CouponIssued, CommandError> {
    let view = read_template(tx, req).await?;
    if !view.channel_allowed {
        return Err(open::channel_refused());
    }
    open::open_for_claims(&view, req.now)?;
    let user = req.user_id.as_str();
    let rule = open::ineligible(tx, req.template_sn, &view, &[(user, req.facts)]).await?;
    if let Some(rule) = rule.into_iter().flatten().next() {
        return Err(CommandError::NotEligible(rule));
    }
    let sn = req.template_sn.as_str();
    let limit = view.per_user_limit;
    let admitted = !user_limits::raise(tx, sn, &[user], &[1], limit)
        .await?
        .is_empty();
    let guarded = !crate::planted::active(crate::planted::Bug::DropQuotaGuard);
    if !admitted && guarded {
        return Err(user_limits::at_limit(limit));
    }
    // The coupon row and its event first; the hot row last, so its lock is
    // held through the commit only. A refusal here rolls the coupon back
    // with the whole transaction (every caller's answer is then an error).
    let coupon = issue(tx, req, &view, metadata).await?;
    quota::take(tx, sn, 1, Take::All)
        .await?
        .map_err(quota::refused)?;
    Ok(coupon)
}

async fn read_template(
    tx: &Transaction<'_>,
    req: &ClaimRequest<'_>,
) -> Result<TemplateView, CommandError> {
    const SQL: &str = concat!(
        "SELECT ",
        template_view_columns!(),
        ", $2::uuid IS NULL OR EXISTS (SELECT 1 FROM template_channels
               WHERE template_sn = $1 AND channel_id = $2)
           FROM templates WHERE sn = $1"
    );
    let row = tx
        .query_opt(
            &tx.prepare_cached(SQL).await?,
            &[&req.template_sn.as_str(), &req.channel_id],
        )
        .await?
        .ok_or_else(|| CommandError::not_found("template", req.template_sn))?;
    TemplateView::read(&row, 0, row.get(7))
}

/// A template's reminder offsets as they stand in this transaction.
pub async fn template_reminders(
    tx: &Transaction<'_>,
    template_sn: &str,
) -> Result<Option<RemindDays>, tokio_postgres::Error> {
    let sql = "SELECT remind_days_before FROM templates WHERE sn = $1";
    let row = tx
        .query_opt(&tx.prepare_cached(sql).await?, &[&template_sn])
        .await?;
    Ok(row.and_then(|r| RemindDays::from_db(r.get(0))))
}

/// Writes the coupon row and its `CouponIssued` event.
async fn issue(
    tx: &Transaction<'_>,
    req: &ClaimRequest<'_>,
    view: &TemplateView,
    metadata: &Metadata,
) -> Result<CouponIssued, CommandError> {
    let new = NewCoupon {
        template_sn: req.template_sn,
        user_id: req.user_id,
        channel_id: req.channel_id,
        refund_from: None,
        remind_days_before: view.remind_days_before.clone(),
        validity: None,
    };
    issue_coupon(tx, &new, &view.terms, metadata, req.now, req.tz).await
}

/// Who gets a new coupon, and why.
pub struct NewCoupon<'a> {
    pub template_sn: &'a TemplateSn,
    pub user_id: &'a UserId,
    pub channel_id: Option<ChannelId>,
    /// Set when the coupon replaces a refunded one (`reissue` policy).
    pub refund_from: Option<Uuid>,
    /// The template's reminder offsets now (carried by the event, so that a
    /// later PATCH leaves this coupon's reminders as they were).
    pub remind_days_before: Option<RemindDays>,
    /// The validity of the coupon a reissue replaces; None: fixed now from
    /// the template's terms.
    pub validity: Option<Validity>,
}

/// Issues one coupon: validity fixed now from the template's terms, the row,
/// and its `CouponIssued` event. Quota and per-user guards are the caller's.
pub async fn issue_coupon(
    tx: &Transaction<'_>,
    new: &NewCoupon<'_>,
    terms: &Terms,
    metadata: &Metadata,
    now: DateTime<Utc>,
    tz: Tz,
) -> Result<CouponIssued, CommandError> {
    debug_assert_eq!(
        now,
        now.trunc_subsecs(6),
        "instants are stored to the microsecond"
    );
    let remind = new.remind_days_before.clone();
    let issue = match new.validity {
        Some(kept) => Issue::within(new.template_sn, terms, remind, now, kept),
        None => Issue::at(new.template_sn, terms, remind, (now, tz))?,
    };
    let origin = Origin {
        channel_id: new.channel_id,
        refund_from: new.refund_from,
        ..Origin::default()
    };
    let event = issue.coupon(new.user_id, origin);
    let id = CouponId(event.coupon_id);
    super::coupon_rows::insert(tx, &event).await?;
    let new = NewEvent::of(&LedgerEvent::CouponIssued(event.clone()), metadata, now)?;
    store::append(tx, &id.stream_id(), 0, &[new]).await?;
    Ok(event)
}
