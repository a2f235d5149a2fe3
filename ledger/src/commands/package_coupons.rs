//! A package claim's coupons (docs/design.md §13), each template's share at once:
//! the same guards as one claim per coupon ([`super::claim`]), each taken
//! once for the template's whole share, so a claim of thousands of coupons
//! is a few statements per template and two COPYs.
//!
//! In order: every item's template must issue now (404, 422, in item
//! order), then the user's count of each template (`claimed + n <=
//! per_user_limit`, 409), the coupons and their `CouponIssued` events by
//! COPY, and last each template's quota (`issued + n <= total`, 410): the
//! hot rows are locked at the end, for the commit only, as a claim does.
//! Templates' rows are taken in sn order ([`package::shares`]). A refusal
//! is an error: the caller's transaction (or savepoint) keeps nothing.
//! Each coupon records the channel that gave the package out, as a claim's
//! coupon does; the package's own list decided whether it may (`packages`).

use std::collections::HashMap;

use chrono::{DateTime, Utc};
use chrono_tz::Tz;
use deadpool_postgres::Transaction;

use super::CommandError;
use super::template_guards::open::{self, TemplateView, template_view_columns};
use super::template_guards::{quota, user_limits};
use crate::db::Named;
use crate::domain::eligibility::UserFacts;
use crate::domain::events::{CouponIssued, Metadata, PackageItem};
use crate::domain::ids::ChannelId;
use crate::domain::ids::{CouponId, TemplateSn, UserId};
use crate::domain::ledger_event::LedgerEvent;
use crate::domain::new_coupon::{Issue, Origin};
use crate::domain::package;
use crate::domain::quota::Take;
use crate::domain::template_status::TemplateStatus;
use crate::store::{self, NewEvent, StreamEvent};

/// Issues every item's coupons to `user`, in item order, or nothing; each
/// records `channel` (None: no channel gave it, the service's code). Every
/// item's template must admit the user (`facts`, its allow-list: 403
/// `not_eligible`, docs/design.md §15).
pub async fn issue(
    tx: &Transaction<'_>,
    items: &[PackageItem],
    (user, facts, channel): (&UserId, &UserFacts, Option<ChannelId>),
    (now, tz): (DateTime<Utc>, Tz),
    metadata: &Metadata,
) -> Result<Vec<CouponIssued>, CommandError> {
    let templates = read_templates(tx, items, now).await?;
    eligible(tx, items, &templates, (user, facts)).await?;
    let shares = package::shares(items);
    for &(sn, n) in &shares {
        limit_user(tx, sn, user, n, templates[sn].per_user_limit).await?;
    }
    let coupons = build(items, &templates, (user, channel), (now, tz))?;
    write(tx, &coupons, metadata, now).await?;
    for &(sn, n) in &shares {
        take_quota(tx, sn, n).await?;
    }
    Ok(coupons)
}

/// Takes, for a large package's claim in its request, every count its
/// coupons will need: each item's template open and admitting the user,
/// the user's count of each template and each template's quota, by the
/// same guards as [`issue`]. Its job then writes the coupons with
/// [`issue_reserved`] and cannot run out (docs/design.md §13, "Large
/// packages keep their promise").
pub async fn reserve(
    tx: &Transaction<'_>,
    items: &[PackageItem],
    (user, facts): (&UserId, &UserFacts),
    now: DateTime<Utc>,
) -> Result<(), CommandError> {
    let templates = read_templates(tx, items, now).await?;
    eligible(tx, items, &templates, (user, facts)).await?;
    let shares = package::shares(items);
    for &(sn, n) in &shares {
        limit_user(tx, sn, user, n, templates[sn].per_user_limit).await?;
    }
    for &(sn, n) in &shares {
        take_quota(tx, sn, n).await?;
    }
    Ok(())
}

/// A template of a reserved claim left `active` after its request: the
/// job cannot keep the claim (docs/design.md §13).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Withdrawn {
    pub template_sn: TemplateSn,
    pub status: TemplateStatus,
}

impl Withdrawn {
    /// The job's answer: 422 `template_not_active`, naming the template.
    pub fn refusal(&self) -> CommandError {
        let why = format!(
            "template {} is {} since the claim was accepted: its counts were given back",
            self.template_sn,
            self.status.as_str()
        );
        CommandError::Unprocessable(WITHDRAWN, why)
    }
}

/// The error code of a [`Withdrawn`] claim (that of a claim refused at
/// once for a template not active).
pub const WITHDRAWN: &str = "template_not_active";

/// Whether a job's refusal is a [`Withdrawn`] template's.
pub fn is_withdrawn(e: &CommandError) -> bool {
    matches!(e, CommandError::Unprocessable(code, _) if *code == WITHDRAWN)
}

/// Writes a claim [`reserve`] counted: every item's coupons, with no
/// count taken again. The caller then checks the templates ([`withdrawn`]).
pub async fn write_reserved(
    tx: &Transaction<'_>,
    items: &[PackageItem],
    (user, channel): (&UserId, Option<ChannelId>),
    (now, tz): (DateTime<Utc>, Tz),
    metadata: &Metadata,
) -> Result<Vec<CouponIssued>, CommandError> {
    let templates = read_views(tx, items).await?;
    let coupons = build(items, &templates, (user, channel), (now, tz))?;
    write(tx, &coupons, metadata, now).await?;
    Ok(coupons)
}

/// The first of the items' templates (in sn order) that left `active`,
/// their rows locked for the commit only, as the quota guard locks them:
/// a void or a stop waits for the commit, or the job sees it.
pub async fn withdrawn(
    tx: &Transaction<'_>,
    items: &[PackageItem],
) -> Result<Option<Withdrawn>, CommandError> {
    let shares = package::shares(items);
    let sns: Vec<&str> = shares.into_iter().map(|(sn, _)| sn.as_str()).collect();
    let sql = "SELECT sn, status FROM templates WHERE sn = ANY($1) ORDER BY sn
                 FOR NO KEY UPDATE";
    for row in tx.query(&tx.prepare_cached(sql).await?, &[&sns]).await? {
        let Named(status) = row.try_get::<_, Named<TemplateStatus>>(1)?;
        if status != TemplateStatus::Active {
            let template_sn = row.get(0);
            return Ok(Some(Withdrawn {
                template_sn,
                status,
            }));
        }
    }
    Ok(None)
}

/// Gives back what [`reserve`] took: the user's count of each template,
/// then each template's quota, in the order [`reserve`] took them.
pub async fn give_back(
    tx: &Transaction<'_>,
    items: &[PackageItem],
    user: &UserId,
) -> Result<(), CommandError> {
    let shares = package::shares(items);
    for &(sn, n) in &shares {
        let count = i32::try_from(n).map_err(|e| CommandError::Internal(e.into()))?;
        user_limits::lower(tx, sn.as_str(), user.as_str(), count).await?;
    }
    for &(sn, n) in &shares {
        quota::give_back(tx, sn.as_str(), n).await?;
    }
    Ok(())
}

/// The items' templates, each checked open for claims, in item order.
async fn read_templates(
    tx: &Transaction<'_>,
    items: &[PackageItem],
    now: DateTime<Utc>,
) -> Result<HashMap<TemplateSn, TemplateView>, CommandError> {
    let templates = read_views(tx, items).await?;
    for sn in items.iter().map(|i| &i.template_sn) {
        open::open_for_claims(&templates[sn], now)?;
    }
    Ok(templates)
}

/// The items' templates as they read now (404 for one that does not exist).
async fn read_views(
    tx: &Transaction<'_>,
    items: &[PackageItem],
) -> Result<HashMap<TemplateSn, TemplateView>, CommandError> {
    let sns: Vec<&str> = items.iter().map(|i| i.template_sn.as_str()).collect();
    const SQL: &str = concat!(
        "SELECT sn, ",
        template_view_columns!(),
        " FROM templates WHERE sn = ANY($1)"
    );
    let rows = tx.query(&tx.prepare_cached(SQL).await?, &[&sns]).await?;
    let mut templates = HashMap::with_capacity(rows.len());
    for row in rows {
        // The package's channel list decided (`packages::take`), not each
        // template's: a package is allowed to channels as a whole.
        let view = TemplateView::read(&row, 1, true)?;
        templates.insert(row.get(0), view);
    }
    if let Some(sn) = items
        .iter()
        .map(|i| &i.template_sn)
        .find(|sn| !templates.contains_key(*sn))
    {
        return Err(CommandError::not_found("template", sn));
    }
    Ok(templates)
}

/// Each item's template, in item order, admits the user: the rules its
/// facts answer, then the allow-list.
async fn eligible(
    tx: &Transaction<'_>,
    items: &[PackageItem],
    templates: &HashMap<TemplateSn, TemplateView>,
    (user, facts): (&UserId, &UserFacts),
) -> Result<(), CommandError> {
    for sn in items.iter().map(|i| &i.template_sn) {
        let rules = open::ineligible(tx, sn, &templates[sn], &[(user.as_str(), facts)]).await?;
        if let Some(rule) = rules.into_iter().flatten().next() {
            return Err(CommandError::NotEligible(rule));
        }
    }
    Ok(())
}

/// The user's count of the template, raised by `n` unless that passes the
/// template's per-user limit (409).
async fn limit_user(
    tx: &Transaction<'_>,
    sn: &TemplateSn,
    user: &UserId,
    n: i64,
    limit: i32,
) -> Result<(), CommandError> {
    let n = i32::try_from(n).map_err(|e| CommandError::Internal(e.into()))?;
    let admitted = user_limits::raise(tx, sn.as_str(), &[user.as_str()], &[n], limit).await?;
    if admitted.is_empty() {
        return Err(user_limits::at_limit(limit));
    }
    Ok(())
}

/// Takes `n` of the template's quota, or refuses the claim: 410 when fewer
/// are left, 422 when the template left `active` since it was read.
async fn take_quota(tx: &Transaction<'_>, sn: &TemplateSn, n: i64) -> Result<(), CommandError> {
    quota::take(tx, sn.as_str(), n, Take::All)
        .await?
        .map_err(quota::refused)?;
    Ok(())
}

/// Every item's coupons, validity fixed now from each template's terms.
fn build(
    items: &[PackageItem],
    templates: &HashMap<TemplateSn, TemplateView>,
    (user, channel_id): (&UserId, Option<ChannelId>),
    (now, tz): (DateTime<Utc>, Tz),
) -> Result<Vec<CouponIssued>, CommandError> {
    let mut coupons = Vec::with_capacity(usize::try_from(package::coupons(items)).unwrap_or(0));
    for item in items {
        let view = &templates[&item.template_sn];
        let remind = view.remind_days_before.clone();
        let sn = &item.template_sn;
        let issue = Issue::at(sn, &view.terms, remind, (now, tz))?;
        let origin = Origin {
            channel_id,
            ..Origin::default()
        };
        for _ in 0..item.count {
            coupons.push(issue.coupon(user, origin));
        }
    }
    Ok(coupons)
}

/// The coupons' rows and their `CouponIssued` events, each by one COPY.
async fn write(
    tx: &Transaction<'_>,
    coupons: &[CouponIssued],
    metadata: &Metadata,
    now: DateTime<Utc>,
) -> Result<(), CommandError> {
    super::coupon_rows::copy(tx, coupons).await?;
    let events = coupons
        .iter()
        .map(|c| {
            let event = LedgerEvent::CouponIssued(c.clone());
            Ok(StreamEvent {
                stream_id: CouponId(c.coupon_id).stream_id(),
                stream_version: 1,
                event: NewEvent::of(&event, metadata, now)?,
            })
        })
        .collect::<Result<Vec<_>, CommandError>>()?;
    store::copy_events(tx, &events).await?;
    Ok(())
}
