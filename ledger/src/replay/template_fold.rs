//! Templates, their allow-lists and channels in `ledger replay --verify`,
//! pure: each row folded from its stream's events as the commands write
//! it (a template's `terms`, `rate_limit` and `eligibility` kept as the
//! event's own JSON), its budget's amounts through [`super::budgets_fold`].

use serde_json::Value;

use super::budgets_fold;
use super::event::Event;
use super::tables::{Cents, ChannelRow, Present, Tables, TemplateRow, by_name, member_digest};
use crate::domain::channel::ChannelStatus;
use crate::domain::events::TemplateCreated;
use crate::domain::ledger_event::LedgerEvent;
use crate::domain::reminder::RemindDays;
use crate::domain::template_status::TemplateStatus;
use crate::domain::terms::Terms;

/// A template's event (`payload`: its own JSON, whose `terms`,
/// `rate_limit` and `eligibility` the row keeps as they are); an error
/// names created terms that do not parse.
pub(super) fn template(
    tables: &mut Tables,
    sn: &str,
    e: &Event<'_>,
    event: LedgerEvent,
    payload: &Value,
) -> Result<(), String> {
    match &event {
        LedgerEvent::TemplateChannelAllowed(allowed) => {
            let key = (sn.to_owned(), allowed.channel_id.0);
            tables.template_channels.insert(key, Present {});
        }
        LedgerEvent::TemplateChannelRemoved(removed) => {
            let key = (sn.to_owned(), removed.channel_id.0);
            tables.template_channels.remove(&key);
        }
        _ => {}
    }
    budgets_fold::template(&mut tables.template_budgets, sn, &event);
    let row = by_name(&mut tables.templates, sn);
    row.version = e.version;
    match event {
        LedgerEvent::TemplateCreated(created) => {
            let terms = payload.get("terms").cloned().unwrap_or_default();
            create_template(row, e, *created, terms)?;
            row.rate_limit = json_field(payload, "rate_limit");
            row.eligibility = json_field(payload, "eligibility");
        }
        LedgerEvent::TemplateActivated(changed)
        | LedgerEvent::TemplateStopped(changed)
        | LedgerEvent::TemplateVoided(changed) => row.status = changed.to.as_str().to_owned(),
        LedgerEvent::TemplateQuotaRaised(raised) => row.total = raised.total,
        other => change_template(row, other, payload),
    }
    Ok(())
}

/// A template's allow-list: each event's ids join or leave it (they
/// are the ids whose membership it changed).
pub(super) fn allow_list(tables: &mut Tables, sn: &str, e: &Event<'_>, event: &LedgerEvent) {
    let (changed, sign) = match event {
        LedgerEvent::TemplateAllowListAdded(c) => (c, 1),
        LedgerEvent::TemplateAllowListRemoved(c) => (c, -1),
        _ => return,
    };
    let row = by_name(&mut tables.allow_lists, sn);
    row.version = e.version;
    let n = i64::try_from(changed.user_ids.len()).expect("a part holds few ids");
    row.members += sign * n;
    row.counted = row.members;
    for user in &changed.user_ids {
        row.digest += i128::from(sign) * member_digest(user.as_str());
    }
}

/// A channel's row: created active, its status and secret times
/// changed by its lifecycle's events (docs/design.md §15).
pub(super) fn channel(tables: &mut Tables, e: &Event<'_>, event: &LedgerEvent) {
    let id = match event {
        LedgerEvent::ChannelCreated(created) => {
            let row = ChannelRow {
                name: created.name.clone(),
                created_at: e.occurred_at,
                status: ChannelStatus::Active.as_str().to_owned(),
                secret_created_at: e.occurred_at,
                ..ChannelRow::default()
            };
            tables.channels.insert(created.channel_id.0, row);
            created.channel_id
        }
        LedgerEvent::ChannelDisabled(changed) | LedgerEvent::ChannelEnabled(changed) => {
            let row = tables.channels.entry(changed.channel_id.0).or_default();
            row.status = changed.to.as_str().to_owned();
            changed.channel_id
        }
        LedgerEvent::ChannelSecretRotated(rotated) => {
            let row = tables.channels.entry(rotated.channel_id.0).or_default();
            row.secret_created_at = rotated.rotated_at;
            row.previous_secret_valid_until = Some(rotated.previous_valid_until);
            rotated.channel_id
        }
        _ => return,
    };
    if let Some(row) = tables.channels.get_mut(&id.0) {
        row.version = e.version;
    }
}

/// What a template's later events change in its row: attributes
/// (`TemplateUpdated`) and its campaign's adjustments; `payload` is the
/// event's own JSON.
fn change_template(row: &mut TemplateRow, event: LedgerEvent, payload: &Value) {
    match event {
        LedgerEvent::TemplateUpdated(updated) => {
            row.name = updated.name.unwrap_or(std::mem::take(&mut row.name));
            if let Some(remind) = updated.remind_days_before {
                row.remind_days_before = remind.as_ref().map(RemindDays::to_db);
            }
            if updated.rate_limit.is_some() {
                row.rate_limit = json_field(payload, "rate_limit");
            }
            if updated.eligibility.is_some() {
                row.eligibility = json_field(payload, "eligibility");
            }
            if let Some(description) = updated.description {
                row.description = description;
            }
        }
        LedgerEvent::TemplateIssueWindowChanged(changed) => {
            row.issue_begin = changed.issue_window.begin;
            row.issue_end = changed.issue_window.end;
        }
        LedgerEvent::TemplatePerUserLimitRaised(raised) => {
            row.per_user_limit = raised.per_user_limit;
        }
        LedgerEvent::TemplateValidityChanged(_) => {
            // As the command writes it: the event's own JSON into `terms`.
            if let (Some(terms), Some(validity)) =
                (row.terms.as_object_mut(), payload.get("validity"))
            {
                terms.insert("validity".to_owned(), validity.clone());
            }
        }
        _ => {}
    }
}

/// The row of a new template (its `issued` counts what was replayed so far).
fn create_template(
    row: &mut TemplateRow,
    e: &Event<'_>,
    created: TemplateCreated,
    terms_json: Value,
) -> Result<(), String> {
    let terms = Terms::parse(&created.terms).map_err(|err| err.to_string())?;
    *row = TemplateRow {
        name: created.name,
        kind: terms.kind().as_str().to_owned(),
        currency: terms.currency().as_str().to_owned(),
        terms: terms_json,
        face_value: Cents(terms.face_value().cents()),
        issue_begin: created.issue_window.begin,
        issue_end: created.issue_window.end,
        total: created.total,
        issued: row.issued,
        per_user_limit: created.per_user_limit,
        refund_policy: created.refund_policy.as_str().to_owned(),
        remind_days_before: created.remind_days_before.as_ref().map(RemindDays::to_db),
        status: TemplateStatus::Draft.as_str().to_owned(),
        version: e.version,
        created_at: e.occurred_at,
        rate_limit: None,
        eligibility: None,
        shop_id: created.shop_id.map(|s| s.as_str().to_owned()),
        description: created.description,
    };
    Ok(())
}

/// A template event's `rate_limit` or `eligibility` as its JSON holds it
/// (`null`: removed), like `terms`: the command writes the column from the
/// same value, and the event decoded, so its shape is the field's type's.
pub(super) fn json_field(payload: &Value, field: &str) -> Option<Value> {
    payload.get(field).filter(|v| !v.is_null()).cloned()
}
