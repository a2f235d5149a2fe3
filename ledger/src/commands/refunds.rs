//! Refunds of a confirmed order, partial or full (按比例退). The pricing
//! engine computes amounts and coupon-cost reversals; a coupon goes back to
//! its owner only when every line it was allocated to is fully refunded, by
//! its template's policy: `restore` (unused again) or `reissue` (this one
//! `refunded`, a new one issued with `refund_from`).

use chrono::{DateTime, Utc};
use chrono_tz::Tz;
use deadpool_postgres::Transaction;
use uuid::Uuid;

use super::CommandError;
use super::claim::{NewCoupon, issue_coupon, template_reminders};
use super::coupons::{self, CouponRow};
use super::template_guards::budget;
use crate::domain::allocation::Allocation;
use crate::domain::budget::{BudgetCharges, Settle};
use crate::domain::coupon_state::CouponCommand;
use crate::domain::events::{Metadata, OrderRefunded};
use crate::domain::ledger_event::LedgerEvent;
use crate::domain::order::{Order, RawOrder};
use crate::domain::order_status::OrderStatus;
use crate::domain::refund::{Refund, RefundLine, Settlement};
use crate::domain::stream::StreamKind;
use crate::domain::terms::RefundPolicy;
use crate::domain::validity::Validity;
use crate::store;
use crate::store::NewEvent;

/// Most lines one refund request may list.
pub const MAX_REFUND_LINES: usize = 500;

pub struct RefundRequest<'a> {
    pub order_id: &'a str,
    pub refund_id: &'a str,
    pub lines: &'a [RefundLine],
    pub request_hash: [u8; 32],
    pub now: DateTime<Utc>,
    pub tz: Tz,
}

pub use crate::write_model::order_answers::{
    NotReissued, RefundAnswer, RefundedLineView, Reissued,
};

fn internal(e: impl std::fmt::Display) -> CommandError {
    CommandError::Internal(anyhow::anyhow!("{e}"))
}

pub async fn refund(
    tx: &Transaction<'_>,
    req: &RefundRequest<'_>,
    metadata: &Metadata,
) -> Result<RefundAnswer, CommandError> {
    let row = tx
        .query_opt(
            &tx.prepare_cached(
                "SELECT status, order_body, allocations, version, budget_charges FROM orders
              WHERE order_id = $1 FOR UPDATE",
            )
            .await?,
            &[&req.order_id],
        )
        .await?
        .ok_or_else(|| CommandError::not_found("order", req.order_id))?;
    if let Some(answer) = earlier_answer(tx, req).await? {
        return Ok(answer);
    }
    if row.try_get::<_, crate::db::Named<OrderStatus>>(0)?.0 != OrderStatus::Confirmed {
        return Err(CommandError::Conflict(
            "order_not_confirmed",
            "only a confirmed order can be refunded".into(),
        ));
    }
    let raw: RawOrder = serde_json::from_value(row.get(1)).map_err(internal)?;
    let order = Order::parse(&raw).map_err(internal)?;
    let allocations: Vec<Allocation<Uuid>> =
        serde_json::from_value(row.get(2)).map_err(internal)?;
    let past = past_refunds(tx, req.order_id).await?;
    let settlement = Settlement::new(&order, &allocations).map_err(internal)?;
    let refund = settlement
        .refund(&past, req.lines)
        .map_err(|e| CommandError::Unprocessable(e.code(), e.to_string()))?;
    let returned = return_coupons(tx, req, &refund.coupons_returned, metadata).await?;
    give_back_budgets(tx, row.get(4), &refund).await?;
    let event = OrderRefunded {
        order_id: req.order_id.to_owned(),
        refund_id: req.refund_id.to_owned(),
        refund: refund.clone(),
    };
    let version: i32 = row.get(3);
    let stream = StreamKind::Order.id(req.order_id);
    let out = store::append(
        tx,
        &stream,
        version,
        &[NewEvent::of(
            &LedgerEvent::OrderRefunded(event),
            metadata,
            req.now,
        )?],
    )
    .await?;
    tx.execute(
        &tx.prepare_cached("UPDATE orders SET version = $2, updated_at = $3 WHERE order_id = $1")
            .await?,
        &[&req.order_id, &out.version, &req.now],
    )
    .await?;
    let answer = answer(req.refund_id, &refund, &returned);
    record(tx, req, &refund, &answer, past.len()).await?;
    Ok(answer)
}

/// A refund gives back to budgets the cost it reverses (docs/design.md §15,
/// "Budgets"), per template, to the day its lock was charged to.
async fn give_back_budgets(
    tx: &Transaction<'_>,
    charges: Option<serde_json::Value>,
    refund: &Refund<Uuid>,
) -> Result<(), CommandError> {
    let Some(charges) = charges else {
        return Ok(());
    };
    let charges: BudgetCharges = serde_json::from_value(charges).map_err(internal)?;
    let returned = charges.returned(&refund.coupons);
    budget::settle(tx, &charges, Settle::Refund, Some(&returned)).await?;
    Ok(())
}

/// The answer to this refund id if it was refunded before with the same
/// request; a 409 if with another.
async fn earlier_answer(
    tx: &Transaction<'_>,
    req: &RefundRequest<'_>,
) -> Result<Option<RefundAnswer>, CommandError> {
    let row = tx
        .query_opt(
            &tx.prepare_cached(
                "SELECT request_hash, response FROM refunds WHERE order_id = $1 AND refund_id = $2",
            )
            .await?,
            &[&req.order_id, &req.refund_id],
        )
        .await?;
    match row {
        None => Ok(None),
        Some(r) if r.get::<_, &[u8]>(0) == req.request_hash.as_slice() => {
            serde_json::from_value(r.get(1)).map(Some).map_err(internal)
        }
        Some(_) => Err(CommandError::Conflict(
            "refund_exists",
            format!("refund {} was made with other content", req.refund_id),
        )),
    }
}

async fn past_refunds(
    tx: &Transaction<'_>,
    order_id: &str,
) -> Result<Vec<Refund<Uuid>>, CommandError> {
    let rows = tx
        .query(
            &tx.prepare_cached("SELECT refund FROM refunds WHERE order_id = $1 ORDER BY seq")
                .await?,
            &[&order_id],
        )
        .await?;
    rows.iter()
        .map(|r| serde_json::from_value(r.get(0)).map_err(internal))
        .collect()
}

async fn record(
    tx: &Transaction<'_>,
    req: &RefundRequest<'_>,
    refund: &Refund<Uuid>,
    answer: &RefundAnswer,
    seq: usize,
) -> Result<(), CommandError> {
    tx.execute(
        &tx.prepare_cached("INSERT INTO refunds (order_id, refund_id, seq, request_hash, refund, response, created_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7)").await?,
        &[
            &req.order_id,
            &req.refund_id,
            &(seq as i32),
            &req.request_hash.as_slice(),
            &serde_json::to_value(refund).map_err(internal)?,
            &serde_json::to_value(answer).map_err(internal)?,
            &req.now,
        ],
    )
    .await?;
    Ok(())
}

fn answer(refund_id: &str, refund: &Refund<Uuid>, returned: &Returned) -> RefundAnswer {
    RefundAnswer {
        refund_id: refund_id.to_owned(),
        amount: refund.amount,
        lines: refund
            .lines
            .iter()
            .map(|l| RefundedLineView {
                line_id: l.line_id.clone(),
                quantity: l.quantity,
                amount: l.amount,
            })
            .collect(),
        shipping_amount: refund.shipping.as_ref().map(|s| s.amount),
        coupon_cost_reversed: refund.coupon_cost_reversed,
        coupons_returned: refund.coupons_returned.clone(),
        coupons_reissued: returned
            .reissued
            .iter()
            .map(|&(from, to)| Reissued { from, to })
            .collect(),
        coupons_not_reissued: returned
            .expired
            .iter()
            .map(|&coupon_id| NotReissued {
                coupon_id,
                reason: "expired".to_owned(),
            })
            .collect(),
    }
}

/// What a refund did with the `reissue` coupons it released.
#[derive(Default)]
struct Returned {
    /// (old, new) pairs.
    reissued: Vec<(Uuid, Uuid)>,
    /// Refunded without a replacement: expired before the refund.
    expired: Vec<Uuid>,
}

/// Gives released coupons back by their template's policy.
async fn return_coupons(
    tx: &Transaction<'_>,
    req: &RefundRequest<'_>,
    released: &[Uuid],
    metadata: &Metadata,
) -> Result<Returned, CommandError> {
    let mut returned = Returned::default();
    for coupon in coupons::lock_rows(tx, released).await? {
        let (order_id, refund_id) = (req.order_id.to_owned(), req.refund_id.to_owned());
        if coupon.refund_policy == RefundPolicy::Reissue {
            // A replacement keeps the old validity: an expired coupon has
            // nothing left to give (docs/design.md §15).
            let new_id = if coupon.expires_at > req.now {
                Some(reissue(tx, &coupon, req, metadata).await?)
            } else {
                None
            };
            let command = CouponCommand::MarkRefunded {
                order_id,
                refund_id,
            };
            coupons::change(tx, &coupon, &command, new_id, metadata, req.now).await?;
            match new_id {
                Some(new_id) => returned.reissued.push((coupon.id, new_id)),
                None => returned.expired.push(coupon.id),
            }
        } else {
            let command = CouponCommand::Restore {
                order_id,
                refund_id,
            };
            coupons::change(tx, &coupon, &command, None, metadata, req.now).await?;
        }
    }
    Ok(returned)
}

/// A new coupon of the same template for the same user, with the validity
/// and the channel of the one it replaces: finance files its cost where the
/// first was given. It takes no quota and no per-user count.
async fn reissue(
    tx: &Transaction<'_>,
    old: &CouponRow,
    req: &RefundRequest<'_>,
    metadata: &Metadata,
) -> Result<Uuid, CommandError> {
    let terms = old.pricing_coupon()?.terms;
    let new = NewCoupon {
        template_sn: &old.template_sn,
        user_id: &old.user_id,
        channel_id: old.channel_id,
        refund_from: Some(old.id),
        remind_days_before: template_reminders(tx, old.template_sn.as_str()).await?,
        validity: Some(Validity {
            effective_at: old.effective_at,
            expires_at: old.expires_at,
        }),
    };
    let issued = issue_coupon(tx, &new, &terms, metadata, req.now, req.tz).await?;
    Ok(issued.coupon_id)
}
