//! Checkout as TCC: lock (Try) all of an order's coupons or none, confirm
//! (use them), cancel (release them), and release locks that timed out.
//! All idempotent by order id; a cancel before any lock is recorded so that
//! a late lock is refused (no hanging lock).

use chrono::{DateTime, Duration, Utc};
use chrono_tz::Tz;
use deadpool_postgres::Transaction;
use futures_util::future::{try_join, try_join_all};
use serde::{Deserialize, Serialize};
use tokio_postgres::types::ToSql;
use utoipa::ToSchema;
use uuid::Uuid;

use super::CommandError;
use super::coupons::{self, CouponRow};
use super::template_guards::budget;
use crate::db::Named;
use crate::domain::allocation::Allocation;
use crate::domain::budget::{BudgetCharges, Settle};
use crate::domain::coupon_state::{CouponCommand, UnlockReason};
use crate::domain::events::{Metadata, OrderLocked, OrderSettled};
use crate::domain::ids::UserId;
use crate::domain::ledger_event::LedgerEvent;
use crate::domain::money::Money;
use crate::domain::order::Order;
use crate::domain::order_status::{self, OrderStatus, SettleDecision};
use crate::domain::pricing::{Pricing, price};
use crate::domain::stream::StreamKind;
use crate::domain::template_status::TemplateStatus;
use crate::store;
use crate::store::NewEvent;

/// How long a lock holds when the caller does not say.
pub const DEFAULT_LOCK_TTL: Duration = Duration::minutes(30);

pub struct LockRequest<'a> {
    pub order: &'a Order,
    pub coupon_ids: &'a [Uuid],
    pub expected_payable: Money,
    pub request_hash: [u8; 32],
    pub lock_ttl: Duration,
    pub now: DateTime<Utc>,
    /// The business time zone: a budget's day is the lock's business day.
    pub tz: Tz,
}

pub use crate::write_model::order_answers::{AllocationView, LockAnswer};

/// The answer to a confirm or cancel: the order's status and its coupons.
#[derive(Clone, Debug, Serialize, Deserialize, ToSchema)]
pub struct OrderAnswer {
    pub order_id: String,
    pub status: OrderStatus,
    pub coupon_ids: Vec<Uuid>,
}

fn stream(order_id: &str) -> String {
    StreamKind::Order.id(order_id)
}

/// The Try. Answers `{order_id, discount, payable, allocations}`; the same
/// request again gets the same answer, another request for the order a 409.
pub async fn lock(
    tx: &Transaction<'_>,
    req: &LockRequest<'_>,
    metadata: &Metadata,
) -> Result<LockAnswer, CommandError> {
    let order_id = req.order.order_id();
    // Sent together (one round trip). `try_join` polls in argument order,
    // so the order's row is taken before its coupons (in id order), as in
    // every command: none can deadlock.
    let (earlier, rows) =
        try_join(claim_order(tx, req), coupons::lock_rows(tx, req.coupon_ids)).await?;
    if let Some(answer) = earlier {
        return Ok(answer);
    }
    check_owned(&rows, req)?;
    let pricing = price_in_request_order(&rows, req)?;
    let budget = charge_budgets(tx, &rows, &pricing, req).await?;
    let locked = OrderLocked {
        order_id: order_id.to_owned(),
        // The order names its user as text; `check_owned` made it the
        // coupons' owner, whose id was parsed when they were issued.
        user_id: UserId::stored(req.order.user_id().to_owned()),
        order: req.order.to_raw(),
        coupon_ids: req.coupon_ids.to_vec(),
        discount: pricing.discount,
        payable: pricing.payable,
        allocations: pricing.allocations.clone(),
        lock_expires_at: req.now + req.lock_ttl,
        budget,
    };
    let answer = LockAnswer {
        order_id: order_id.to_owned(),
        discount: pricing.discount,
        payable: pricing.payable,
        allocations: pricing.allocations.iter().map(Into::into).collect(),
    };
    let command = CouponCommand::Lock {
        order_id: order_id.to_owned(),
    };
    let changes = rows
        .iter()
        .map(|row| coupons::change(tx, row, &command, None, metadata, req.now));
    // Pipelined: the first failure aborts the transaction, so all or none.
    try_join(
        try_join_all(changes),
        record_lock(tx, &locked, &answer, metadata, req.now),
    )
    .await?;
    Ok(answer)
}

/// Charges the discounts of the coupons whose templates have a budget
/// (docs/design.md §15, "Budgets"); 409 `budget_exhausted` when one has no
/// room left. None: no coupon's template has a budget.
async fn charge_budgets(
    tx: &Transaction<'_>,
    rows: &[CouponRow],
    pricing: &Pricing<Uuid>,
    req: &LockRequest<'_>,
) -> Result<Option<BudgetCharges>, CommandError> {
    let budgeted = |id: &Uuid| {
        rows.iter()
            .find(|r| r.id == *id && r.budgeted)
            .map(|r| r.template_sn.clone())
    };
    let day = req.now.with_timezone(&req.tz).date_naive();
    let Some(mut charges) = BudgetCharges::of(&pricing.allocations, budgeted, day) else {
        return Ok(None);
    };
    charges.day = budget::reserve(tx, &charges.per_template(), day).await?;
    Ok(Some(charges))
}

/// The order's row and `OrderLocked` event (stream version 1), in one statement.
async fn record_lock(
    tx: &Transaction<'_>,
    locked: &OrderLocked,
    answer: &LockAnswer,
    metadata: &Metadata,
    now: DateTime<Utc>,
) -> Result<(), CommandError> {
    let internal = |e: serde_json::Error| CommandError::Internal(e.into());
    let answer = serde_json::to_value(answer).map_err(internal)?;
    let order_body = serde_json::to_value(&locked.order).map_err(internal)?;
    let allocations = serde_json::to_value(&locked.allocations).map_err(internal)?;
    let charges = locked
        .budget
        .as_ref()
        .map(serde_json::to_value)
        .transpose()
        .map_err(internal)?;
    store::append_with_row(
        tx,
        "UPDATE orders SET status = $7, lock_response = $2, order_body = $3,
                allocations = $4, coupon_ids = $5, lock_expires_at = $6, version = 1,
                budget_charges = $8
          WHERE order_id = $1 AND version = 0 RETURNING version",
        &[
            &locked.order_id,
            &answer,
            &order_body,
            &allocations,
            &locked.coupon_ids,
            &locked.lock_expires_at,
            &OrderStatus::Locked.as_str(),
            &charges,
        ],
        &stream(&locked.order_id),
        0,
        &NewEvent::of(&LedgerEvent::OrderLocked(locked.clone()), metadata, now)?,
    )
    .await?;
    Ok(())
}

/// Takes the order id for this lock. Returns the earlier answer when the
/// same request was locked before; refuses a cancelled or different order.
/// The row is read `FOR UPDATE` even when it already existed (where the
/// insert takes no lock), so that the order is always locked before its
/// coupons.
async fn claim_order(
    tx: &Transaction<'_>,
    req: &LockRequest<'_>,
) -> Result<Option<LockAnswer>, CommandError> {
    let order_id = req.order.order_id();
    let insert = async {
        let statement = tx
            .prepare_cached(
                "INSERT INTO orders (order_id, user_id, status, request_hash, version, updated_at)
                 VALUES ($1, $2, $5, $3, 0, $4) ON CONFLICT DO NOTHING",
            )
            .await?;
        let params: [&(dyn ToSql + Sync); 5] = [
            &order_id,
            &req.order.user_id(),
            &req.request_hash.as_slice(),
            &req.now,
            &OrderStatus::Locking.as_str(),
        ];
        tx.execute(&statement, &params).await
    };
    let select = async {
        let statement = tx
            .prepare_cached(
                "SELECT status, request_hash, lock_response FROM orders
                  WHERE order_id = $1 FOR UPDATE",
            )
            .await?;
        tx.query_one(&statement, &[&order_id]).await
    };
    // Sent together, the insert first: the select sees the inserted row.
    let (inserted, row) = try_join(insert, select).await?;
    if inserted == 1 {
        return Ok(None);
    }
    if row.try_get::<_, Named<OrderStatus>>(0)?.0 == OrderStatus::CancelledBeforeLock {
        return Err(CommandError::Conflict(
            "order_cancelled",
            "the order was cancelled before it was locked; a late lock is refused".into(),
        ));
    }
    let same = row.get::<_, Option<&[u8]>>(1) == Some(req.request_hash.as_slice());
    match row.get::<_, Option<serde_json::Value>>(2) {
        Some(answer) if same => serde_json::from_value(answer)
            .map(Some)
            .map_err(|e| CommandError::Internal(e.into())),
        _ => Err(CommandError::Conflict(
            "order_exists",
            format!("order {order_id} was already locked with other content"),
        )),
    }
}

/// Every listed coupon must exist and belong to the order's user: another
/// user's coupon is reported exactly like a missing one.
fn check_owned(rows: &[CouponRow], req: &LockRequest<'_>) -> Result<(), CommandError> {
    let all_owned = rows.len() == req.coupon_ids.len()
        && rows
            .iter()
            .all(|r| r.user_id.as_str() == req.order.user_id());
    if !all_owned {
        let owned = |id: &&Uuid| {
            rows.iter()
                .any(|r| r.id == **id && r.user_id.as_str() == req.order.user_id())
        };
        let missing = req.coupon_ids.iter().find(|id| !owned(id));
        // None only for an id listed twice, which the API refuses before.
        let shown = missing.map_or_else(|| "(listed twice)".to_owned(), Uuid::to_string);
        return Err(CommandError::not_found("coupon", shown));
    }
    if let Some(void) = rows
        .iter()
        .find(|r| r.template_status == TemplateStatus::Void)
    {
        return Err(CommandError::Unprocessable(
            "template_void",
            format!("coupon {} belongs to a void template", void.id),
        ));
    }
    Ok(())
}

/// Prices the coupons in the order the client listed them (stacking applies
/// in that order) and checks the client's expected payable.
fn price_in_request_order(
    rows: &[CouponRow],
    req: &LockRequest<'_>,
) -> Result<Pricing<Uuid>, CommandError> {
    let mut listed = Vec::with_capacity(rows.len());
    for id in req.coupon_ids {
        let row = rows
            .iter()
            .find(|r| r.id == *id)
            .ok_or_else(|| CommandError::not_found("coupon", id))?;
        // The state machine speaks first: a locked or used coupon is a conflict.
        crate::domain::coupon_state::decide(
            &row.state(),
            &CouponCommand::Lock {
                order_id: req.order.order_id().to_owned(),
            },
            req.now,
        )?;
        listed.push(row.pricing_coupon()?);
    }
    let pricing = price(req.order, &listed, req.now).map_err(|refusal| {
        CommandError::Unprocessable(
            refusal.reason.code(),
            format!("coupon {}: {}", refusal.coupon_id, refusal.reason),
        )
    })?;
    if pricing.payable != req.expected_payable {
        return Err(CommandError::Unprocessable(
            "payable_mismatch",
            format!(
                "payable is {}, not {}",
                pricing.payable, req.expected_payable
            ),
        ));
    }
    Ok(pricing)
}

/// The order row, locked, with the coupons it holds (also locked).
struct LockedOrder {
    order_id: String,
    status: OrderStatus,
    coupon_ids: Vec<Uuid>,
    lock_expires_at: Option<DateTime<Utc>>,
    version: i32,
    coupons: Vec<CouponRow>,
    /// What its lock charged to budgets.
    budget: Option<BudgetCharges>,
    /// How its lock split the discount over its coupons (none before a lock).
    allocations: Vec<Allocation<Uuid>>,
}

const ORDER_COLUMNS: &str =
    "order_id, status, coupon_ids, lock_expires_at, version, budget_charges, allocations";

impl LockedOrder {
    /// What the lock took off with `coupon`: its allocations, summed. They
    /// split the order's discount, so the sum is bounded by it (a sum that
    /// could not be a `Money` is an error to stop at).
    fn discount_of(&self, coupon: Uuid) -> Result<Money, CommandError> {
        self.allocations
            .iter()
            .filter(|a| a.coupon_id == coupon)
            .try_fold(Money::ZERO, |sum, a| sum.checked_add(a.amount))
            .ok_or_else(|| {
                CommandError::Internal(anyhow::anyhow!(
                    "order {}: coupon {coupon}'s allocations do not add up",
                    self.order_id
                ))
            })
    }

    fn from_row(row: &tokio_postgres::Row, coupons: Vec<CouponRow>) -> Result<Self, CommandError> {
        let order = LockedOrder {
            order_id: row.get(0),
            status: row.try_get::<_, Named<OrderStatus>>(1)?.0,
            coupon_ids: row.get(2),
            lock_expires_at: row.get(3),
            version: row.get(4),
            coupons,
            budget: row
                .get::<_, Option<serde_json::Value>>(5)
                .map(serde_json::from_value)
                .transpose()
                .map_err(|e| CommandError::Internal(e.into()))?,
            allocations: row
                .get::<_, Option<serde_json::Value>>(6)
                .map(serde_json::from_value)
                .transpose()
                .map_err(|e| CommandError::Internal(e.into()))?
                .unwrap_or_default(),
        };
        debug_assert!(
            order
                .coupons
                .iter()
                .all(|c| order.coupon_ids.contains(&c.id)),
            "the coupons are the order's"
        );
        Ok(order)
    }
}

/// The order and its coupons, locked in that order, in one round trip.
async fn lock_order(
    tx: &Transaction<'_>,
    order_id: &str,
) -> Result<Option<LockedOrder>, CommandError> {
    let sql = format!("SELECT {ORDER_COLUMNS} FROM orders WHERE order_id = $1 FOR UPDATE");
    let order = async {
        let statement = tx.prepare_cached(&sql).await?;
        Ok::<_, CommandError>(tx.query_opt(&statement, &[&order_id]).await?)
    };
    let (row, coupons) = try_join(order, coupons::lock_rows_of_order(tx, order_id)).await?;
    row.map(|r| LockedOrder::from_row(&r, coupons)).transpose()
}

fn answer(order_id: &str, status: OrderStatus, coupon_ids: &[Uuid]) -> OrderAnswer {
    OrderAnswer {
        order_id: order_id.to_owned(),
        status,
        coupon_ids: coupon_ids.to_vec(),
    }
}

/// The Confirm: the locked coupons become used.
pub async fn confirm(
    tx: &Transaction<'_>,
    order_id: &str,
    metadata: &Metadata,
    now: DateTime<Utc>,
) -> Result<OrderAnswer, CommandError> {
    let order = lock_order(tx, order_id)
        .await?
        .ok_or_else(|| CommandError::not_found("order", order_id))?;
    match order_status::decide_confirm(order.status, order.lock_expires_at, now) {
        SettleDecision::Proceed => {}
        SettleDecision::AlreadyDone(status) => {
            return Ok(answer(order_id, status, &order.coupon_ids));
        }
        SettleDecision::Refused(code, message) => {
            return Err(CommandError::Conflict(code, message));
        }
    }
    let discounts = order
        .coupons
        .iter()
        .map(|c| Ok((c.id, order.discount_of(c.id)?)))
        .collect::<Result<std::collections::HashMap<_, _>, CommandError>>()?;
    let command = |coupon: &CouponRow| CouponCommand::Use {
        order_id: order_id.to_owned(),
        discount: discounts.get(&coupon.id).copied().unwrap_or(Money::ZERO),
    };
    settle(
        tx,
        &order,
        command,
        (LedgerEvent::OrderConfirmed, OrderStatus::Confirmed, None),
        metadata,
        now,
    )
    .await
}

/// The Cancel: the locked coupons return to unused. A cancel for an order
/// never locked is recorded, so its late lock is refused.
pub async fn cancel(
    tx: &Transaction<'_>,
    order_id: &str,
    metadata: &Metadata,
    now: DateTime<Utc>,
) -> Result<OrderAnswer, CommandError> {
    let Some(order) = lock_order(tx, order_id).await? else {
        return cancel_before_lock(tx, order_id, metadata, now).await;
    };
    match order_status::decide_cancel(order.status) {
        SettleDecision::Proceed => {}
        SettleDecision::AlreadyDone(status) => {
            return Ok(answer(order_id, status, &order.coupon_ids));
        }
        SettleDecision::Refused(code, message) => {
            return Err(CommandError::Conflict(code, message));
        }
    }
    let command = CouponCommand::Unlock {
        order_id: order_id.to_owned(),
        reason: UnlockReason::Cancel,
    };
    settle(
        tx,
        &order,
        |_| command.clone(),
        (
            LedgerEvent::OrderCancelled,
            OrderStatus::Cancelled,
            Some("cancel"),
        ),
        metadata,
        now,
    )
    .await
}

async fn cancel_before_lock(
    tx: &Transaction<'_>,
    order_id: &str,
    metadata: &Metadata,
    now: DateTime<Utc>,
) -> Result<OrderAnswer, CommandError> {
    let inserted = tx
        .execute(
            &tx.prepare_cached(
                "INSERT INTO orders (order_id, status, version, updated_at)
             VALUES ($1, $3, 1, $2) ON CONFLICT DO NOTHING",
            )
            .await?,
            &[&order_id, &now, &OrderStatus::CancelledBeforeLock.as_str()],
        )
        .await?;
    if inserted == 0 {
        // A lock or another cancel got there first: decide against it.
        return Box::pin(cancel(tx, order_id, metadata, now)).await;
    }
    let settled = OrderSettled {
        order_id: order_id.to_owned(),
        coupon_ids: vec![],
        reason: Some("before_lock".into()),
    };
    let event = NewEvent::of(&LedgerEvent::OrderCancelled(settled), metadata, now)?;
    store::append(tx, &stream(order_id), 0, &[event]).await?;
    Ok(answer(order_id, OrderStatus::CancelledBeforeLock, &[]))
}

/// Applies `command` to every coupon of a locked order and records the
/// order's new status with its event, all pipelined: the first failure
/// aborts the transaction, so all or none.
async fn settle(
    tx: &Transaction<'_>,
    order: &LockedOrder,
    command: impl Fn(&CouponRow) -> CouponCommand,
    (event, status, reason): (fn(OrderSettled) -> LedgerEvent, OrderStatus, Option<&str>),
    metadata: &Metadata,
    now: DateTime<Utc>,
) -> Result<OrderAnswer, CommandError> {
    let order_id = order.order_id.as_str();
    let settled = OrderSettled {
        order_id: order_id.to_owned(),
        coupon_ids: order.coupon_ids.clone(),
        reason: reason.map(str::to_owned),
    };
    let event = NewEvent::of(&event(settled), metadata, now)?;
    let changes = order
        .coupons
        .iter()
        .map(|c| (c, command(c)))
        .map(|(c, command)| async move { coupons::settle(tx, c, &command, metadata, now).await });
    let record = record_settled(tx, order, status, &event, now);
    try_join(try_join_all(changes), record).await?;
    if let Some(charges) = &order.budget {
        let how = if status == OrderStatus::Confirmed {
            Settle::Keep
        } else {
            Settle::Release
        };
        budget::settle(tx, charges, how, None).await?;
    }
    Ok(answer(order_id, status, &order.coupon_ids))
}

/// The order's new status and its event, in one statement.
async fn record_settled(
    tx: &Transaction<'_>,
    order: &LockedOrder,
    status: OrderStatus,
    event: &NewEvent,
    now: DateTime<Utc>,
) -> Result<(), CommandError> {
    store::append_with_row(
        tx,
        "UPDATE orders SET status = $2, updated_at = $3, version = version + 1
          WHERE order_id = $1 AND version = $4 RETURNING version",
        &[&order.order_id, &status.as_str(), &now, &order.version],
        &stream(&order.order_id),
        order.version,
        event,
    )
    .await?;
    Ok(())
}

/// Releases up to `batch` locks that timed out by `now`; returns how many.
/// Concurrent callers skip each other's orders (SKIP LOCKED).
pub async fn release_expired_locks(
    tx: &Transaction<'_>,
    now: DateTime<Utc>,
    batch: i64,
) -> Result<usize, CommandError> {
    // The status is written into the text, not bound, so that the partial
    // index `orders_lock_expiry` serves the prepared statement.
    let sql = format!(
        "SELECT {ORDER_COLUMNS} FROM orders
          WHERE status = '{locked}' AND lock_expires_at < $1
          ORDER BY lock_expires_at LIMIT $2 FOR UPDATE SKIP LOCKED",
        locked = OrderStatus::Locked.as_str()
    );
    let due = tx
        .query(
            &tx.prepare_cached(&sql).await?,
            &[&now, &batch.clamp(1, 10_000)],
        )
        .await?;
    let metadata = coupons::system("lock-timeout");
    for row in &due {
        let coupons = coupons::lock_rows(tx, &row.get::<_, Vec<Uuid>>(2)).await?;
        let order = LockedOrder::from_row(row, coupons)?;
        let command = CouponCommand::Unlock {
            order_id: order.order_id.clone(),
            reason: UnlockReason::Timeout,
        };
        let event: fn(OrderSettled) -> LedgerEvent = LedgerEvent::OrderReleased;
        let outcome = (event, OrderStatus::Released, Some("timeout"));
        settle(tx, &order, |_| command.clone(), outcome, &metadata, now).await?;
    }
    Ok(due.len())
}
