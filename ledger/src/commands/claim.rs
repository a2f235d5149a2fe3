//! Claiming one coupon (领券): the quota and per-user limit are guarded by SQL
//! conditions in the same transaction as the `CouponIssued` event — never
//! read-then-write — so no number of concurrent claims can over-issue.

use chrono::{DateTime, SubsecRound, Utc};
use chrono_tz::Tz;
use deadpool_postgres::Transaction;
use tokio_postgres::types::Json;
use uuid::Uuid;

use super::CommandError;
use crate::domain::eligibility::{Eligibility, Rule, UserFacts};
use crate::domain::events::{CouponIssued, Metadata};
use crate::domain::ids::ChannelId;
use crate::domain::ids::{CouponId, TemplateSn, UserId};
use crate::domain::ledger_event::LedgerEvent;
use crate::domain::new_coupon::{Issue, Origin};
use crate::domain::reminder::RemindDays;
use crate::domain::template_status::TemplateStatus;
use crate::domain::terms::{RawTerms, Terms};
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

/// What the pre-checks read; the guards re-check what can change concurrently.
pub(crate) struct TemplateView {
    pub status: TemplateStatus,
    pub issue_begin: DateTime<Utc>,
    pub issue_end: DateTime<Utc>,
    pub per_user_limit: i32,
    pub terms: Terms,
    pub channel_allowed: bool,
    pub remind_days_before: Option<RemindDays>,
    /// Who may claim; None: anyone a listed channel names.
    pub eligibility: Option<Eligibility>,
}

impl TemplateView {
    /// The template's columns [`template_view_columns`], from `row[at]` on.
    pub(crate) fn read(
        row: &tokio_postgres::Row,
        at: usize,
        channel_allowed: bool,
    ) -> Result<Self, CommandError> {
        Ok(Self {
            status: status_of(row.get(at))?,
            issue_begin: row.get(at + 1),
            issue_end: row.get(at + 2),
            per_user_limit: row.get(at + 3),
            terms: terms_of(row.get(at + 4))?,
            channel_allowed,
            remind_days_before: RemindDays::from_db(row.get(at + 5)),
            eligibility: row
                .try_get::<_, Option<Json<Eligibility>>>(at + 6)?
                .map(|j| j.0),
        })
    }

    /// The first rule of the template's eligibility the user's facts fail
    /// (the allow-list is read by [`on_allow_list`]).
    pub(crate) fn admits(&self, facts: &UserFacts) -> Result<(), Rule> {
        self.eligibility
            .as_ref()
            .map_or(Ok(()), |e| e.admits(facts))
    }

    /// Whether the template only admits users on its allow-list.
    pub(crate) fn needs_allow_list(&self) -> bool {
        self.eligibility.as_ref().is_some_and(|e| e.allow_list)
    }
}

/// Which of `users` are on the template's allow-list (docs/design.md §15).
pub(crate) async fn on_allow_list(
    tx: &Transaction<'_>,
    sn: &TemplateSn,
    users: &[&str],
) -> Result<std::collections::HashSet<String>, tokio_postgres::Error> {
    let sql = "SELECT user_id FROM template_allow_list
                WHERE template_sn = $1 AND user_id = ANY($2)";
    let rows = tx
        .query(&tx.prepare_cached(sql).await?, &[&sn, &users])
        .await?;
    Ok(rows.iter().map(|r| r.get(0)).collect())
}

/// The columns [`TemplateView::read`] reads, in its order: a macro, so the
/// statements that read them are `concat!`-ed once, at compile time.
macro_rules! template_view_columns {
    () => {
        "status, issue_begin, issue_end, per_user_limit, terms, remind_days_before, eligibility"
    };
}
pub(crate) use template_view_columns;

pub async fn claim(
    tx: &Transaction<'_>,
    req: &ClaimRequest<'_>,
    metadata: &Metadata,
) -> Result<CouponIssued, CommandError> {
    let view = read_template(tx, req).await?;
    precheck(&view, req)?;
    eligible(tx, &view, req).await?;
    let limit_ok = tx
        .query_opt(
            &tx.prepare_cached(
                "INSERT INTO user_claims AS c (template_sn, user_id, claimed) VALUES ($1, $2, 1)
             ON CONFLICT (template_sn, user_id)
             DO UPDATE SET claimed = c.claimed + 1 WHERE c.claimed < $3
             RETURNING claimed",
            )
            .await?,
            &[
                &req.template_sn.as_str(),
                &req.user_id.as_str(),
                &view.per_user_limit,
            ],
        )
        .await?;
    let guarded = !crate::planted::active(crate::planted::Bug::DropQuotaGuard);
    if limit_ok.is_none() && guarded {
        return Err(at_limit(view.per_user_limit));
    }
    // The coupon row and its event first; the hot row last, so its lock is
    // held through the commit only. A refusal here rolls the coupon back
    // with the whole transaction (every caller's answer is then an error).
    let coupon = issue(tx, req, &view, metadata).await?;
    let issued = tx
        .query_opt(
            &tx.prepare_cached(
                "UPDATE templates SET issued = issued + 1
              WHERE sn = $1 AND status = 'active' AND issued < total RETURNING issued",
            )
            .await?,
            &[&req.template_sn.as_str()],
        )
        .await?;
    if issued.is_none() {
        return Err(sold_out());
    }
    Ok(coupon)
}

pub(crate) fn at_limit(per_user_limit: i32) -> CommandError {
    CommandError::Conflict(
        "per_user_limit",
        format!("user already holds the limit of {per_user_limit} from this template"),
    )
}

pub(crate) fn sold_out() -> CommandError {
    CommandError::SoldOut("the template's quota is exhausted".into())
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

/// The user may claim: the rules the channel's facts answer, then the
/// allow-list.
async fn eligible(
    tx: &Transaction<'_>,
    view: &TemplateView,
    req: &ClaimRequest<'_>,
) -> Result<(), CommandError> {
    view.admits(req.facts).map_err(CommandError::NotEligible)?;
    if view.needs_allow_list() {
        let user = req.user_id.as_str();
        if on_allow_list(tx, req.template_sn, &[user])
            .await?
            .is_empty()
        {
            return Err(CommandError::NotEligible(Rule::AllowList));
        }
    }
    Ok(())
}

/// A template's terms as stored (validated when it was created).
pub(crate) fn terms_of(json: serde_json::Value) -> Result<Terms, CommandError> {
    let raw: RawTerms =
        serde_json::from_value(json).map_err(|e| CommandError::Internal(e.into()))?;
    Terms::parse(&raw).map_err(|e| CommandError::Internal(anyhow::anyhow!("{e}")))
}

pub(crate) fn status_of(text: &str) -> Result<TemplateStatus, CommandError> {
    TemplateStatus::parse(text)
        .ok_or_else(|| CommandError::Internal(anyhow::anyhow!("unknown template status {text:?}")))
}

pub(crate) fn channel_refused() -> CommandError {
    CommandError::Forbidden("this channel may not issue this template".into())
}

fn precheck(view: &TemplateView, req: &ClaimRequest<'_>) -> Result<(), CommandError> {
    if !view.channel_allowed {
        return Err(channel_refused());
    }
    open_for_claims(view, req.now)
}

/// The template-wide checks: active, inside its issue window, and its
/// coupons not already expired.
pub(crate) fn open_for_claims(view: &TemplateView, now: DateTime<Utc>) -> Result<(), CommandError> {
    if view.status != TemplateStatus::Active {
        return Err(CommandError::Unprocessable(
            "template_not_active",
            format!("the template is {}", view.status.as_str()),
        ));
    }
    if now < view.issue_begin || now > view.issue_end {
        return Err(CommandError::Unprocessable(
            "outside_issue_window",
            format!(
                "claims are open from {} to {}",
                view.issue_begin.to_rfc3339(),
                view.issue_end.to_rfc3339()
            ),
        ));
    }
    // A coupon that is expired the moment it is issued is no coupon.
    if view.terms.validity().ended_by(now) {
        return Err(CommandError::Unprocessable(
            "validity_ended",
            "the template's coupons have already expired".into(),
        ));
    }
    Ok(())
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
        job: None,
    };
    let event = issue.coupon(new.user_id, origin);
    let id = CouponId(event.coupon_id);
    insert_coupon(tx, &event).await?;
    let new = NewEvent::of(&LedgerEvent::CouponIssued(event.clone()), metadata, now)?;
    store::append(tx, &id.stream_id(), 0, &[new]).await?;
    Ok(event)
}

pub async fn insert_coupon(
    tx: &Transaction<'_>,
    c: &CouponIssued,
) -> Result<(), tokio_postgres::Error> {
    tx.execute(
        &tx.prepare_cached(
            "INSERT INTO coupons (id, template_sn, user_id, status, issued_at, effective_at,
             expires_at, channel_id, refund_from, version)
         VALUES ($1, $2, $3, 'unused', $4, $5, $6, $7, $8, 1)",
        )
        .await?,
        &[
            &c.coupon_id,
            &c.template_sn,
            &c.user_id,
            &c.issued_at,
            &c.effective_at,
            &c.expires_at,
            &c.channel_id,
            &c.refund_from,
        ],
    )
    .await?;
    Ok(())
}
