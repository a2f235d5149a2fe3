//! The budget guard (docs/design.md §15, "Budgets"): the statements on
//! `template_budgets`. A lock's charge is one guarded update per budgeted
//! template (what it charges fits the total and the day's cap, or nothing
//! changes), like the quota's; settling and refunding give back exactly
//! what the lock recorded. The rules are [`Counters`]'s, which the replay
//! folds; writes take the rows in template sn order.
//!
//! [`Counters`]: crate::domain::budget::Counters

use chrono::NaiveDate;
use deadpool_postgres::Transaction;
use futures_util::future::try_join_all;
use rust_decimal::Decimal;

use crate::commands::CommandError;
use crate::domain::budget::{Budget, BudgetCharges, Settle};
use crate::domain::ids::TemplateSn;
use crate::domain::money::Money;

/// A new template's budget row.
pub(crate) async fn create(
    tx: &Transaction<'_>,
    sn: &TemplateSn,
    budget: &Budget,
) -> Result<(), tokio_postgres::Error> {
    let sql = "INSERT INTO template_budgets (template_sn, total, daily) VALUES ($1, $2, $3)";
    let daily = budget.daily.map(Money::as_decimal);
    tx.execute(sql, &[&sn.as_str(), &budget.total.as_decimal(), &daily])
        .await?;
    Ok(())
}

/// The template's budget, its row locked (a raise reads then writes it).
pub(crate) async fn lock(
    tx: &Transaction<'_>,
    sn: &TemplateSn,
) -> Result<Option<Budget>, CommandError> {
    let sql = "SELECT total, daily FROM template_budgets WHERE template_sn = $1 FOR UPDATE";
    let Some(row) = tx.query_opt(sql, &[&sn.as_str()]).await? else {
        return Ok(None);
    };
    let money =
        |d: Decimal| Money::try_from_decimal(d).map_err(|e| CommandError::Internal(e.into()));
    Ok(Some(Budget {
        total: money(row.get(0))?,
        daily: row.get::<_, Option<Decimal>>(1).map(money).transpose()?,
    }))
}

/// Sets the raised amounts (the row was locked by [`lock`]).
pub(crate) async fn raise(
    tx: &Transaction<'_>,
    sn: &TemplateSn,
    budget: &Budget,
) -> Result<(), tokio_postgres::Error> {
    let sql = "UPDATE template_budgets SET total = $2, daily = $3 WHERE template_sn = $1";
    let daily = budget.daily.map(Money::as_decimal);
    tx.execute(sql, &[&sn.as_str(), &budget.total.as_decimal(), &daily])
        .await?;
    Ok(())
}

/// Charges a lock's `(template, amount)`s (sn order) on business day `day`;
/// the day they were charged to, or 409 `budget_exhausted` naming the first
/// template that has no room left (the caller's transaction then rolls
/// back whatever was charged before it).
pub(crate) async fn reserve(
    tx: &Transaction<'_>,
    charges: &[(TemplateSn, Money)],
    day: NaiveDate,
) -> Result<NaiveDate, CommandError> {
    // The day's counters start again when the lock's day is later than
    // theirs; a lock of an earlier day is charged to theirs (module docs of
    // `domain::budget`). GREATEST skips a null day.
    let guard = "UPDATE template_budgets SET
                    reserved = reserved + $2,
                    day_spent = CASE WHEN day >= $3 THEN day_spent ELSE 0 END,
                    day_reserved = CASE WHEN day >= $3 THEN day_reserved ELSE 0 END + $2,
                    day = GREATEST(day, $3)
                  WHERE template_sn = $1
                    AND spent + reserved + $2 <= total
                    AND (daily IS NULL
                         OR CASE WHEN day >= $3 THEN day_spent + day_reserved ELSE 0 END + $2 <= daily)
                  RETURNING day";
    let statement = tx.prepare_cached(guard).await?;
    let mut charged = day;
    for (sn, amount) in charges {
        let row = tx
            .query_opt(&statement, &[&sn.as_str(), &amount.as_decimal(), &day])
            .await?;
        let Some(row) = row else {
            return Err(CommandError::Conflict(
                "budget_exhausted",
                format!("template {sn}: its budget has less than {amount} left"),
            ));
        };
        charged = charged.max(row.get(0));
    }
    Ok(charged)
}

/// Settles a lock's charges the `how` way (a refund passes what it gives
/// back per template, `returned`; the others the lock's own).
pub(crate) async fn settle(
    tx: &Transaction<'_>,
    charges: &BudgetCharges,
    how: Settle,
    returned: Option<&[(TemplateSn, Money)]>,
) -> Result<(), tokio_postgres::Error> {
    let (spent, reserved) = match how {
        Settle::Keep => ("spent + $2", "reserved - $2"),
        Settle::Release => ("spent", "reserved - $2"),
        Settle::Refund => ("spent - $2", "reserved"),
    };
    let sql = format!(
        "UPDATE template_budgets SET spent = {spent}, reserved = {reserved},
                day_spent = CASE WHEN day = $3 THEN day_{spent} ELSE day_spent END,
                day_reserved = CASE WHEN day = $3 THEN day_{reserved} ELSE day_reserved END
          WHERE template_sn = $1"
    );
    let statement = tx.prepare_cached(&sql).await?;
    let own = charges.per_template();
    let amounts: Vec<(&str, Decimal)> = returned
        .unwrap_or(&own)
        .iter()
        .map(|(sn, amount)| (sn.as_str(), amount.as_decimal()))
        .collect();
    // Pipelined, in sn order.
    let updates = amounts
        .iter()
        .map(|(sn, amount)| async { tx.execute(&statement, &[sn, amount, &charges.day]).await });
    try_join_all(updates).await?;
    Ok(())
}
