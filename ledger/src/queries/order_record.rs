//! An order's record (结算单, docs/design.md §20, "An order's record"):
//! what the ledger holds for one order, for the order system to read back:
//! its status and when each step happened, the order as locked, each
//! coupon with its share of every line, the payable, and every refund.
//! Read from `orders`, `refunds`, the order's stream (the steps' times)
//! and the coupons wherever they live (hot or archived).

use std::collections::BTreeMap;

use chrono::{DateTime, Utc};
use serde::Serialize;
use tokio_postgres::GenericClient;
use utoipa::ToSchema;
use uuid::Uuid;

use crate::cold;
use crate::db::Named;
use crate::domain::allocation::Allocation;
use crate::domain::coupon_state::CouponStatus;
use crate::domain::ledger_event::EventType;
use crate::domain::money::Money;
use crate::domain::order::RawOrder;
use crate::domain::order_status::OrderStatus;
use crate::domain::stream::StreamKind;
use crate::store;
use crate::store::StoredType;
use crate::write_model::RowError;
use crate::write_model::order_answers::{LockAnswer, RefundAnswer};

/// Most events of an order's stream read for its steps' times: a lock, a
/// settlement and its refunds (an order has at most 500 lines to refund).
const MAX_STEPS: i64 = 1_000;

/// What the ledger holds for an order.
#[derive(Serialize, ToSchema)]
pub struct OrderRecord {
    pub order_id: String,
    /// Absent for an order cancelled before any lock.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub user_id: Option<String>,
    pub status: OrderStatus,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub locked_at: Option<DateTime<Utc>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub lock_expires_at: Option<DateTime<Utc>>,
    /// When it was confirmed, cancelled or released (its status says which).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub settled_at: Option<DateTime<Utc>>,
    /// The order as it was locked (lines, prices, shipping).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub order: Option<RawOrder>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub discount: Option<Money>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub payable: Option<Money>,
    pub coupons: Vec<OrderCoupon>,
    /// Every refund, oldest first, as it was answered.
    pub refunds: Vec<OrderRefund>,
}

/// One coupon of the order: its status now and its share of each line.
#[derive(Serialize, ToSchema)]
pub struct OrderCoupon {
    pub coupon_id: Uuid,
    /// Absent only if the coupon's row was purged (docs/design.md §16).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub template_sn: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub status: Option<CouponStatus>,
    /// What it took off the order: the sum of its allocations.
    pub discount: Money,
    pub allocations: Vec<LineShare>,
}

/// A coupon's part of one line's discount; `line_id` null: the shipping fee.
#[derive(Serialize, ToSchema)]
pub struct LineShare {
    pub line_id: Option<String>,
    pub amount: Money,
}

/// A refund as it was answered, and when.
#[derive(Serialize, ToSchema)]
pub struct OrderRefund {
    #[serde(flatten)]
    pub answer: RefundAnswer,
    pub refunded_at: DateTime<Utc>,
}

/// The order's record, or None for an order the ledger never saw.
pub async fn read(
    client: &impl GenericClient,
    order_id: &str,
) -> Result<Option<OrderRecord>, RowError> {
    let row = client
        .query_opt(
            "SELECT user_id, status, order_body, allocations, coupon_ids, lock_expires_at,
                    lock_response FROM orders WHERE order_id = $1",
            &[&order_id],
        )
        .await?;
    let Some(row) = row else { return Ok(None) };
    let unreadable = |e: serde_json::Error| RowError::Unreadable(format!("order {order_id}: {e}"));
    let json = |i: usize| row.get::<_, Option<serde_json::Value>>(i);
    let order: Option<RawOrder> = json(2)
        .map(serde_json::from_value)
        .transpose()
        .map_err(unreadable)?;
    let allocations: Vec<Allocation<Uuid>> = json(3)
        .map(serde_json::from_value)
        .transpose()
        .map_err(unreadable)?
        .unwrap_or_default();
    let lock: Option<LockAnswer> = json(6)
        .map(serde_json::from_value)
        .transpose()
        .map_err(unreadable)?;
    let (locked_at, settled_at) = steps(client, order_id).await?;
    Ok(Some(OrderRecord {
        order_id: order_id.to_owned(),
        user_id: row.get(0),
        status: row.try_get::<_, Named<OrderStatus>>(1)?.0,
        locked_at,
        lock_expires_at: row.get(5),
        settled_at,
        order,
        discount: lock.as_ref().map(|l| l.discount),
        payable: lock.as_ref().map(|l| l.payable),
        coupons: coupons(client, &row.get::<_, Vec<Uuid>>(4), &allocations).await?,
        refunds: refunds(client, order_id).await?,
    }))
}

/// When the order was locked and when it was settled, from its stream.
async fn steps(
    client: &impl GenericClient,
    order_id: &str,
) -> Result<(Option<DateTime<Utc>>, Option<DateTime<Utc>>), RowError> {
    let events = store::read_stream(client, &StreamKind::Order.id(order_id), 0, MAX_STEPS).await?;
    let at = |wanted: &[EventType]| {
        events
            .iter()
            .find(|e| matches!(e.event_type, StoredType::Known(t) if wanted.contains(&t)))
            .map(|e| e.occurred_at)
    };
    let settled = [
        EventType::OrderConfirmed,
        EventType::OrderCancelled,
        EventType::OrderReleased,
    ];
    Ok((at(&[EventType::OrderLocked]), at(&settled)))
}

/// The order's coupons in the order it lists them, each with its
/// allocations and its row wherever it lives.
async fn coupons(
    client: &impl GenericClient,
    ids: &[Uuid],
    allocations: &[Allocation<Uuid>],
) -> Result<Vec<OrderCoupon>, RowError> {
    let sql = format!(
        "SELECT id, template_sn, status FROM {} c WHERE id = ANY($1)",
        cold::everywhere("id, template_sn, status")
    );
    let mut rows = BTreeMap::new();
    for row in client.query(&sql, &[&ids]).await? {
        let status: CouponStatus = row.try_get::<_, Named<_>>(2)?.0;
        rows.insert(row.get::<_, Uuid>(0), (row.get::<_, String>(1), status));
    }
    ids.iter()
        .map(|id| {
            let mine: Vec<&Allocation<Uuid>> =
                allocations.iter().filter(|a| a.coupon_id == *id).collect();
            // Allocations split the order's discount: their sum is bounded by it.
            let discount = mine
                .iter()
                .try_fold(Money::ZERO, |sum, a| sum.checked_add(a.amount))
                .ok_or_else(|| RowError::Unreadable(format!("coupon {id}'s allocations")))?;
            let row = rows.remove(id);
            Ok(OrderCoupon {
                coupon_id: *id,
                template_sn: row.as_ref().map(|r| r.0.clone()),
                status: row.map(|r| r.1),
                discount,
                allocations: mine
                    .into_iter()
                    .map(|a| LineShare {
                        line_id: a.line_id.clone(),
                        amount: a.amount,
                    })
                    .collect(),
            })
        })
        .collect()
}

/// Every refund of the order, oldest first, as answered.
async fn refunds(
    client: &impl GenericClient,
    order_id: &str,
) -> Result<Vec<OrderRefund>, RowError> {
    let rows = client
        .query(
            "SELECT response, created_at FROM refunds WHERE order_id = $1 ORDER BY seq",
            &[&order_id],
        )
        .await?;
    rows.iter()
        .map(|r| {
            let answer = serde_json::from_value(r.get(0))
                .map_err(|e| RowError::Unreadable(format!("a refund of {order_id}: {e}")))?;
            Ok(OrderRefund {
                answer,
                refunded_at: r.get(1),
            })
        })
        .collect()
}
