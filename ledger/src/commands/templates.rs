//! Template commands: create, update (attributes and the campaign's
//! adjustments), change status, raise quota, allow or remove a channel.
//! Each appends to `template-<sn>` and updates the write model in one transaction.

use chrono::{DateTime, Utc};
use deadpool_postgres::Transaction;
use tokio_postgres::types::Json;
use uuid::Uuid;

use super::template_guards::budget;
use super::{CommandError, template_void};
use crate::domain::budget::{Budget, BudgetRefusal};
use crate::domain::events::{
    IssueWindow, Metadata, TemplateBudgetRaised, TemplateChannelAllowed, TemplateChannelRemoved,
    TemplateCreated, TemplateIssueWindowChanged, TemplatePerUserLimitRaised, TemplateQuotaRaised,
    TemplateStatusChanged, TemplateUpdated, TemplateValidityChanged,
};
use crate::domain::ids::ChannelId;
use crate::domain::ids::TemplateSn;
use crate::domain::ledger_event::LedgerEvent;
use crate::domain::reminder::RemindDays;
use crate::domain::template_adjust::{self, Adjusted, Adjustment};
use crate::domain::template_status::{StatusAction, TemplateStatus};
use crate::domain::terms::{RawTerms, Terms};
use crate::store::{self, NewEvent};

/// A validated template, ready to be created.
pub struct NewTemplate {
    pub created: TemplateCreated,
    pub terms: Terms,
}

pub async fn create(
    tx: &Transaction<'_>,
    template: &NewTemplate,
    metadata: &Metadata,
    now: DateTime<Utc>,
) -> Result<(), CommandError> {
    let c = &template.created;
    let terms = serde_json::to_value(&c.terms).map_err(|e| CommandError::Internal(e.into()))?;
    tx.execute(
        &tx.prepare_cached(
            "INSERT INTO templates (sn, name, kind, currency, terms, face_value, issue_begin,
             issue_end, total, per_user_limit, refund_policy, remind_days_before, status,
             version, created_at, rate_limit, eligibility, shop_id, description)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $18, 1, $13, $14,
                 $15, $16, $17)",
        )
        .await?,
        &[
            &c.sn,
            &c.name,
            &template.terms.kind().as_str(),
            &template.terms.currency().as_str(),
            &terms,
            &template.terms.face_value().as_decimal(),
            &c.issue_window.begin,
            &c.issue_window.end,
            &c.total,
            &c.per_user_limit,
            &c.refund_policy.as_str(),
            &c.remind_days_before.as_ref().map(RemindDays::to_db),
            &now,
            &c.rate_limit.as_ref().map(Json),
            &c.eligibility.as_ref().map(Json),
            &c.shop_id,
            &c.description,
            &TemplateStatus::Draft.as_str(),
        ],
    )
    .await?;
    let sn = &c.sn;
    if let Some(b) = &c.budget {
        budget::create(tx, sn, b).await?;
    }
    store::append(
        tx,
        &sn.stream_id(),
        0,
        &[NewEvent::of(
            &LedgerEvent::TemplateCreated(Box::new(c.clone())),
            metadata,
            now,
        )?],
    )
    .await?;
    Ok(())
}

/// The template row, locked for the rest of the transaction.
struct Locked {
    status: TemplateStatus,
    total: i64,
    version: i32,
}

async fn lock(tx: &Transaction<'_>, sn: &TemplateSn) -> Result<Locked, CommandError> {
    let row = tx
        .query_opt(
            &tx.prepare_cached(
                "SELECT status, total, version FROM templates WHERE sn = $1 FOR UPDATE",
            )
            .await?,
            &[&sn.as_str()],
        )
        .await?
        .ok_or_else(|| CommandError::not_found("template", sn))?;
    let crate::db::Named(status) = row.try_get(0)?;
    Ok(Locked {
        status,
        total: row.get(1),
        version: row.get(2),
    })
}

pub async fn change_status(
    tx: &Transaction<'_>,
    sn: &TemplateSn,
    action: StatusAction,
    metadata: &Metadata,
    now: DateTime<Utc>,
) -> Result<TemplateStatus, CommandError> {
    let current = lock(tx, sn).await?;
    if action == StatusAction::Activate {
        refuse_if_ended(tx, sn, now).await?;
    }
    let to = current
        .status
        .apply(action)
        .map_err(|refused| CommandError::Conflict("template_status", refused.to_string()))?;
    let change = TemplateStatusChanged {
        sn: sn.clone(),
        from: current.status,
        to,
    };
    let event = NewEvent::of(
        &LedgerEvent::template_status_changed(change, to),
        metadata,
        now,
    )?;
    let event_id = event.event_id;
    bump(tx, sn, current.version, event).await?;
    tx.execute(
        &tx.prepare_cached("UPDATE templates SET status = $2 WHERE sn = $1")
            .await?,
        &[&sn.as_str(), &to.as_str()],
    )
    .await?;
    if to == TemplateStatus::Void {
        void_coupons(tx, sn, event_id, metadata, now).await?;
    }
    Ok(to)
}

/// The template's coupons follow it: a first batch is voided now, in the
/// request (a small template is void at once); the scanner voids the rest
/// (docs/design.md §15).
async fn void_coupons(
    tx: &Transaction<'_>,
    sn: &TemplateSn,
    event_id: Uuid,
    metadata: &Metadata,
    now: DateTime<Utc>,
) -> Result<(), CommandError> {
    let cause = template_void::Cause {
        event_id: Some(event_id),
        correlation_id: Some(metadata.correlation_id.clone()),
    };
    template_void::record_cause(tx, sn, &cause).await?;
    template_void::void_batch(tx, sn, &cause, now, template_void::BATCH).await?;
    Ok(())
}

/// A template whose issue window or absolute validity has ended could only
/// ever issue nothing or expired coupons: it is not activated (422).
async fn refuse_if_ended(
    tx: &Transaction<'_>,
    sn: &TemplateSn,
    now: DateTime<Utc>,
) -> Result<(), CommandError> {
    let sql = "SELECT issue_end, terms FROM templates WHERE sn = $1";
    let row = tx
        .query_one(&tx.prepare_cached(sql).await?, &[&sn.as_str()])
        .await?;
    let issue_end: DateTime<Utc> = row.get(0);
    let raw: RawTerms =
        serde_json::from_value(row.get(1)).map_err(|e| CommandError::Internal(e.into()))?;
    let terms = Terms::parse(&raw).map_err(|e| CommandError::Internal(anyhow::anyhow!("{e}")))?;
    if issue_end < now {
        return Err(CommandError::Unprocessable(
            "issue_window_ended",
            "the template's issue window has ended".into(),
        ));
    }
    if terms.validity().ended_by(now) {
        return Err(CommandError::Unprocessable(
            "validity_ended",
            "the template's coupons would already be expired".into(),
        ));
    }
    Ok(())
}

/// What a PATCH asks (docs/design.md §15): the template's attributes (one
/// `TemplateUpdated`, when any is given) and an adjustment of its campaign.
pub struct TemplateChange {
    pub sn: TemplateSn,
    pub updated: Option<TemplateUpdated>,
    pub adjustment: Adjustment,
    /// The budget's amounts asked for: each may only rise.
    pub budget: Option<Budget>,
}

/// Changes a template's attributes and adjusts its campaign: each part that
/// changes is an event, all appended together; its discount, scope and
/// face value never change, and coupons already issued keep their validity
/// (they carry it). A void template refuses every change.
pub async fn update(
    tx: &Transaction<'_>,
    change: &TemplateChange,
    metadata: &Metadata,
    now: DateTime<Utc>,
) -> Result<(), CommandError> {
    let sn = &change.sn;
    let (current, version) = lock_campaign(tx, sn).await?;
    let adjusted = template_adjust::decide(&current, &change.adjustment, now).map_err(|r| {
        let code = r.code();
        match r.is_conflict() {
            true => CommandError::Conflict(code, r.to_string()),
            false => CommandError::Unprocessable(code, r.to_string()),
        }
    })?;
    let mut events = Vec::new();
    if let Some(updated) = &change.updated {
        events.push(LedgerEvent::TemplateUpdated(updated.clone()));
        set_attributes(tx, updated).await?;
    }
    events.extend(adjustment_events(sn, &adjusted));
    if adjusted != Adjusted::default() {
        set_campaign(tx, sn, &current, &adjusted).await?;
    }
    if let Some(asked) = change.budget {
        events.extend(raise_budget(tx, sn, asked).await?);
    }
    let events = events
        .iter()
        .map(|e| NewEvent::of(e, metadata, now))
        .collect::<Result<Vec<_>, _>>()?;
    if !events.is_empty() {
        bump_all(tx, sn, version, events).await?;
    }
    Ok(())
}

/// Raises the template's budget to `asked` (its row locked after the
/// template's, as every write takes them); the event, unless nothing changes.
async fn raise_budget(
    tx: &Transaction<'_>,
    sn: &TemplateSn,
    asked: Budget,
) -> Result<Option<LedgerEvent>, CommandError> {
    let refused = |r: BudgetRefusal| CommandError::Conflict("budget_not_raised", r.to_string());
    let current = budget::lock(tx, sn)
        .await?
        .ok_or_else(|| refused(BudgetRefusal::NotSet))?;
    let Some(raised) = current.raise(asked).map_err(refused)? else {
        return Ok(None);
    };
    budget::raise(tx, sn, &raised).await?;
    Ok(Some(LedgerEvent::TemplateBudgetRaised(
        TemplateBudgetRaised {
            sn: sn.clone(),
            from: current,
            budget: raised,
        },
    )))
}

/// The campaign's parts of the template row, locked for the rest of the
/// transaction, and its stream's version.
async fn lock_campaign(
    tx: &Transaction<'_>,
    sn: &TemplateSn,
) -> Result<(template_adjust::Current, i32), CommandError> {
    let sql = "SELECT status, issue_begin, issue_end, per_user_limit, terms, version
                 FROM templates WHERE sn = $1 FOR UPDATE";
    let row = tx
        .query_opt(&tx.prepare_cached(sql).await?, &[&sn.as_str()])
        .await?
        .ok_or_else(|| CommandError::not_found("template", sn))?;
    let terms = super::template_guards::open::terms_of(row.get(4))?;
    let current = template_adjust::Current {
        status: row.try_get::<_, crate::db::Named<TemplateStatus>>(0)?.0,
        window: IssueWindow {
            begin: row.get(1),
            end: row.get(2),
        },
        per_user_limit: row.get(3),
        validity: *terms.validity(),
    };
    Ok((current, row.get(5)))
}

/// One event per part of the campaign that changes.
fn adjustment_events(sn: &TemplateSn, adjusted: &Adjusted) -> Vec<LedgerEvent> {
    let mut events = Vec::new();
    if let Some((from, to)) = &adjusted.window {
        events.push(LedgerEvent::TemplateIssueWindowChanged(
            TemplateIssueWindowChanged {
                sn: sn.clone(),
                from: from.clone(),
                issue_window: to.clone(),
            },
        ));
    }
    if let Some((from, to)) = adjusted.per_user_limit {
        events.push(LedgerEvent::TemplatePerUserLimitRaised(
            TemplatePerUserLimitRaised {
                sn: sn.clone(),
                from,
                per_user_limit: to,
            },
        ));
    }
    if let Some((from, to)) = &adjusted.validity {
        events.push(LedgerEvent::TemplateValidityChanged(
            TemplateValidityChanged {
                sn: sn.clone(),
                from: from.to_raw(),
                validity: to.to_raw(),
            },
        ));
    }
    events
}

/// The attributes a `TemplateUpdated` names (absent: unchanged; null: cleared).
async fn set_attributes(
    tx: &Transaction<'_>,
    change: &TemplateUpdated,
) -> Result<(), CommandError> {
    let sql = "UPDATE templates SET name = coalesce($2, name),
                      remind_days_before = CASE WHEN $3 THEN $4 ELSE remind_days_before END,
                      rate_limit = CASE WHEN $5 THEN $6 ELSE rate_limit END,
                      description = CASE WHEN $7 THEN $8 ELSE description END,
                      eligibility = CASE WHEN $9 THEN $10 ELSE eligibility END
                WHERE sn = $1";
    let remind = change
        .remind_days_before
        .as_ref()
        .and_then(|r| r.as_ref().map(RemindDays::to_db));
    let description = change.description.clone().flatten();
    let eligibility = change.eligibility.clone().flatten();
    tx.execute(
        &tx.prepare_cached(sql).await?,
        &[
            &change.sn.as_str(),
            &change.name,
            &change.remind_days_before.is_some(),
            &remind,
            &change.rate_limit.is_some(),
            &change.rate_limit.flatten().map(Json),
            &change.description.is_some(),
            &description,
            &change.eligibility.is_some(),
            &eligibility.as_ref().map(Json),
        ],
    )
    .await?;
    Ok(())
}

/// The window, limit and validity as adjusted. The validity is written
/// into `terms` in the same canonical form as the event's (and as at
/// create), so claims, batches, issuance and packages, which all read
/// `terms` when they issue, fix it on the coupons issued from now on.
async fn set_campaign(
    tx: &Transaction<'_>,
    sn: &TemplateSn,
    current: &template_adjust::Current,
    adjusted: &Adjusted,
) -> Result<(), CommandError> {
    let window = adjusted.window.as_ref().map_or(&current.window, |w| &w.1);
    let limit = adjusted
        .per_user_limit
        .map_or(current.per_user_limit, |l| l.1);
    let validity = adjusted
        .validity
        .map(|(_, to)| serde_json::to_value(to.to_raw()))
        .transpose()
        .map_err(|e| CommandError::Internal(e.into()))?;
    let sql = "UPDATE templates SET issue_begin = $2, issue_end = $3, per_user_limit = $4,
                      terms = CASE WHEN $5::jsonb IS NULL THEN terms
                                   ELSE jsonb_set(terms, '{validity}', $5) END
                WHERE sn = $1";
    tx.execute(
        &tx.prepare_cached(sql).await?,
        &[&sn.as_str(), &window.begin, &window.end, &limit, &validity],
    )
    .await?;
    Ok(())
}

/// Raises the quota; lowering it is refused (coupons may be issued against it).
pub async fn raise_quota(
    tx: &Transaction<'_>,
    sn: &TemplateSn,
    total: i64,
    metadata: &Metadata,
    now: DateTime<Utc>,
) -> Result<(), CommandError> {
    let current = lock(tx, sn).await?;
    if current.status == TemplateStatus::Void {
        return Err(CommandError::Conflict(
            "template_status",
            "the template is void".into(),
        ));
    }
    if total <= current.total {
        return Err(CommandError::Conflict(
            "quota_not_raised",
            format!("total may only be raised (now {})", current.total),
        ));
    }
    let raised = TemplateQuotaRaised {
        sn: sn.clone(),
        from: current.total,
        total,
    };
    let event = LedgerEvent::TemplateQuotaRaised(raised);
    bump(
        tx,
        sn,
        current.version,
        NewEvent::of(&event, metadata, now)?,
    )
    .await?;
    tx.execute(
        &tx.prepare_cached("UPDATE templates SET total = $2 WHERE sn = $1")
            .await?,
        &[&sn.as_str(), &total],
    )
    .await?;
    Ok(())
}

/// Allows `channel_id` to issue the template; allowing it twice is a no-op.
pub async fn allow_channel(
    tx: &Transaction<'_>,
    sn: &TemplateSn,
    channel_id: ChannelId,
    metadata: &Metadata,
    now: DateTime<Utc>,
) -> Result<(), CommandError> {
    let current = lock(tx, sn).await?;
    let channel = tx
        .query_opt(
            &tx.prepare_cached("SELECT 1 FROM channels WHERE id = $1")
                .await?,
            &[&channel_id],
        )
        .await?;
    if channel.is_none() {
        return Err(CommandError::not_found("channel", channel_id));
    }
    let inserted = tx
        .execute(
            &tx.prepare_cached(
                "INSERT INTO template_channels (template_sn, channel_id) VALUES ($1, $2)
             ON CONFLICT DO NOTHING",
            )
            .await?,
            &[&sn.as_str(), &channel_id],
        )
        .await?;
    if inserted == 1 {
        let allowed = TemplateChannelAllowed {
            sn: sn.clone(),
            channel_id,
        };
        let event = LedgerEvent::TemplateChannelAllowed(allowed);
        bump(
            tx,
            sn,
            current.version,
            NewEvent::of(&event, metadata, now)?,
        )
        .await?;
    }
    Ok(())
}

/// Removes `channel_id` from the channels that may issue the template
/// (docs/design.md §15); 404 when the template, or the channel on its
/// list, is unknown.
pub async fn remove_channel(
    tx: &Transaction<'_>,
    sn: &TemplateSn,
    channel_id: ChannelId,
    metadata: &Metadata,
    now: DateTime<Utc>,
) -> Result<(), CommandError> {
    let current = lock(tx, sn).await?;
    let removed = tx
        .execute(
            &tx.prepare_cached(
                "DELETE FROM template_channels WHERE template_sn = $1 AND channel_id = $2",
            )
            .await?,
            &[&sn.as_str(), &channel_id],
        )
        .await?;
    if removed == 0 {
        let link = format!("{channel_id} on template {}", sn.as_str());
        return Err(CommandError::not_found("channel", link));
    }
    let event = LedgerEvent::TemplateChannelRemoved(TemplateChannelRemoved {
        sn: sn.clone(),
        channel_id,
    });
    let event = NewEvent::of(&event, metadata, now)?;
    bump(tx, sn, current.version, event).await
}

/// Appends one event to the template stream and records its new version.
async fn bump(
    tx: &Transaction<'_>,
    sn: &TemplateSn,
    version: i32,
    event: store::NewEvent,
) -> Result<(), CommandError> {
    bump_all(tx, sn, version, vec![event]).await
}

/// Appends events to the template stream and records its new version.
async fn bump_all(
    tx: &Transaction<'_>,
    sn: &TemplateSn,
    version: i32,
    events: Vec<store::NewEvent>,
) -> Result<(), CommandError> {
    let out = store::append(tx, &sn.stream_id(), version, &events).await?;
    tx.execute(
        &tx.prepare_cached("UPDATE templates SET version = $2 WHERE sn = $1")
            .await?,
        &[&sn.as_str(), &out.version],
    )
    .await?;
    Ok(())
}
