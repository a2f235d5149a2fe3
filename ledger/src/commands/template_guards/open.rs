//! The template as a write that issues reads it, and the checks made on
//! that read: open for claims (status, issue window, validity) and the
//! users it admits (eligibility, allow-list; docs/design.md §15). What can
//! change concurrently is re-checked under the row's lock by
//! [`super::quota`].

use std::collections::HashSet;

use chrono::{DateTime, Utc};
use deadpool_postgres::Transaction;
use tokio_postgres::types::Json;

use crate::commands::CommandError;
use crate::db::Named;
use crate::domain::eligibility::{Eligibility, Rule, UserFacts};
use crate::domain::ids::TemplateSn;
use crate::domain::reminder::RemindDays;
use crate::domain::template_status::{self, NotIssuing, TemplateStatus};
use crate::domain::terms::{RawTerms, Terms};

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

/// The columns [`TemplateView::read`] reads, in its order: a macro, so the
/// statements that read them are `concat!`-ed once, at compile time.
macro_rules! template_view_columns {
    () => {
        "status, issue_begin, issue_end, per_user_limit, terms, remind_days_before, eligibility"
    };
}
pub(crate) use template_view_columns;

impl TemplateView {
    /// The template's columns [`template_view_columns`], from `row[at]` on.
    pub(crate) fn read(
        row: &tokio_postgres::Row,
        at: usize,
        channel_allowed: bool,
    ) -> Result<Self, CommandError> {
        Ok(Self {
            status: row.try_get::<_, Named<TemplateStatus>>(at)?.0,
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
    fn admits(&self, facts: &UserFacts) -> Result<(), Rule> {
        self.eligibility
            .as_ref()
            .map_or(Ok(()), |e| e.admits(facts))
    }

    /// Whether the template only admits users on its allow-list.
    fn needs_allow_list(&self) -> bool {
        self.eligibility.as_ref().is_some_and(|e| e.allow_list)
    }
}

/// The template-wide checks: active, inside its issue window, and its
/// coupons not already expired.
pub(crate) fn open_for_claims(view: &TemplateView, now: DateTime<Utc>) -> Result<(), CommandError> {
    let window = (view.issue_begin, view.issue_end);
    match template_status::issuing(view.status, window, now) {
        Err(NotIssuing::NotActive(status)) => return Err(not_active(status)),
        Err(NotIssuing::OutsideWindow { begin, end }) => {
            return Err(CommandError::Unprocessable(
                "outside_issue_window",
                format!(
                    "claims are open from {} to {}",
                    begin.to_rfc3339(),
                    end.to_rfc3339()
                ),
            ));
        }
        Ok(()) => {}
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

/// The answer to a write on a template that is not (or no longer) active.
pub(crate) fn not_active(status: TemplateStatus) -> CommandError {
    CommandError::Unprocessable(
        "template_not_active",
        format!("the template is {}", status.as_str()),
    )
}

/// For each of `users` (with what their channel vouches for), the first
/// rule of the template's eligibility they fail: the rules the facts
/// answer, then the allow-list, one statement for all of them.
pub(crate) async fn ineligible(
    tx: &Transaction<'_>,
    sn: &TemplateSn,
    view: &TemplateView,
    users: &[(&str, &UserFacts)],
) -> Result<Vec<Option<Rule>>, tokio_postgres::Error> {
    let mut rules: Vec<Option<Rule>> = users.iter().map(|(_, f)| view.admits(f).err()).collect();
    let standing: Vec<&str> = users
        .iter()
        .zip(&rules)
        .filter(|(_, r)| r.is_none())
        .map(|((user, _), _)| *user)
        .collect();
    if !view.needs_allow_list() || standing.is_empty() {
        return Ok(rules);
    }
    let listed = on_allow_list(tx, sn, &standing).await?;
    for ((user, _), rule) in users.iter().zip(rules.iter_mut()) {
        if rule.is_none() && !listed.contains(*user) {
            *rule = Some(Rule::AllowList);
        }
    }
    Ok(rules)
}

/// Which of `users` are on the template's allow-list (docs/design.md §15).
pub(crate) async fn on_allow_list(
    tx: &Transaction<'_>,
    sn: &TemplateSn,
    users: &[&str],
) -> Result<HashSet<String>, tokio_postgres::Error> {
    let sql = "SELECT user_id FROM template_allow_list
                WHERE template_sn = $1 AND user_id = ANY($2)";
    let rows = tx
        .query(&tx.prepare_cached(sql).await?, &[&sn, &users])
        .await?;
    Ok(rows.iter().map(|r| r.get(0)).collect())
}

/// A template's terms as stored (validated when it was created).
pub(crate) fn terms_of(json: serde_json::Value) -> Result<Terms, CommandError> {
    let raw: RawTerms =
        serde_json::from_value(json).map_err(|e| CommandError::Internal(e.into()))?;
    Terms::parse(&raw).map_err(|e| CommandError::Internal(anyhow::anyhow!("{e}")))
}

pub(crate) fn channel_refused() -> CommandError {
    CommandError::Forbidden("this channel may not issue this template".into())
}
