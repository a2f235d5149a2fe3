//! Events as an earlier build wrote them (docs/design.md "Event versions"):
//! a store that was written by the build before `CouponUsed` v2 and then
//! by this one holds both versions side by side, and this build must read
//! the old ones without rewriting them.

use chrono::{DateTime, Utc};
use ledger::domain::EventType;
use ledger::domain::coupon_state::CouponStatus;
use ledger::domain::events::{Metadata, OrderSettled};
use ledger::domain::ledger_event::LedgerEvent;
use ledger::domain::order_status::OrderStatus;
use ledger::store::{self, NewEvent};
use serde_json::{Value, json};
use uuid::Uuid;

use crate::{Env, Server};

/// Locks `coupon` of `user` on a 150.00 order (20 off: pays 130.00), as
/// `scenario::checkout` does, without settling it; returns the order id.
pub async fn lock(server: &Server, user: &str, coupon: Uuid) -> anyhow::Result<String> {
    let order_id = format!("o-{}", Uuid::now_v7());
    let body = json!({
        "order": {"order_id": order_id, "user_id": user, "currency": "CNY",
                  "lines": [{"line_id": "l1", "sku": "s1", "category": "c1",
                             "quantity": 1, "unit_price": "150.00"}],
                  "shipping_fee": "0.00"},
        "coupon_ids": [coupon], "expected_payable": "130.00"
    });
    let (status, answer) = server.service_post("/v1/orders/lock", &body).await?;
    anyhow::ensure!(status == 200, "lock: {status} {answer}");
    Ok(order_id)
}

/// The payload `CouponUsed` had at schema version 1 (the `CouponChanged`
/// of a use: the coupon and its order, nothing else).
pub fn coupon_used_v1(coupon_id: Uuid, order_id: &str) -> Value {
    json!({"coupon_id": coupon_id, "order_id": order_id})
}

/// Confirms the locked order `order_id` as the build before `CouponUsed`
/// v2 did: the order's `OrderConfirmed` and each of its coupons'
/// `CouponUsed` at schema version 1, each appended with the row it moves
/// (the order confirmed, the coupons used) through the store's row append,
/// in one transaction, as that build's confirm wrote them. Returns the
/// coupons' events' positions.
pub async fn confirm_as_v1(env: &Env, order_id: &str) -> anyhow::Result<Vec<i64>> {
    let pool = crate::reminders::pool(env, 1)?;
    let mut client = pool.get().await?;
    let tx = client.transaction().await?;
    let order = tx
        .query_one(
            "SELECT version, coupon_ids FROM orders WHERE order_id = $1 FOR UPDATE",
            &[&order_id],
        )
        .await?;
    let (order_version, coupon_ids): (i32, Vec<Uuid>) = (order.get(0), order.get(1));
    let coupons = tx
        .query(
            "SELECT id, version FROM coupons WHERE id = ANY($1) ORDER BY id FOR UPDATE",
            &[&coupon_ids],
        )
        .await?;
    let now: DateTime<Utc> = Utc::now();
    let metadata = Metadata {
        actor: "service".into(),
        correlation_id: Uuid::now_v7().to_string(),
        ..Default::default()
    };
    let settled = LedgerEvent::OrderConfirmed(OrderSettled {
        order_id: order_id.to_owned(),
        coupon_ids: coupon_ids.clone(),
        reason: None,
    });
    store::append_with_row(
        &tx,
        "UPDATE orders SET status = $2, updated_at = $3, version = version + 1
          WHERE order_id = $1 AND version = $4 RETURNING version",
        &[
            &order_id,
            &OrderStatus::Confirmed.as_str(),
            &now,
            &order_version,
        ],
        &format!("order-{order_id}"),
        order_version,
        &NewEvent::of(&settled, &metadata, now)?,
    )
    .await?;
    let mut positions = Vec::new();
    for row in &coupons {
        let (id, version): (Uuid, i32) = (row.get(0), row.get(1));
        let used = NewEvent {
            event_id: Uuid::now_v7(),
            event_type: EventType::CouponUsed,
            schema_version: 1,
            payload: coupon_used_v1(id, order_id),
            metadata: serde_json::to_value(&metadata)?,
            occurred_at: now,
        };
        let position = store::append_with_row(
            &tx,
            "UPDATE coupons SET status = $2, order_id = $3, version = version + 1, changed_at = $5
              WHERE id = $1 AND version = $4 RETURNING version",
            &[&id, &CouponStatus::Used.as_str(), &order_id, &version, &now],
            &format!("coupon-{id}"),
            version,
            &used,
        )
        .await?;
        positions.push(position);
    }
    tx.commit().await?;
    Ok(positions)
}

/// `(schema_version, payload)` of every stored `CouponUsed`, by position.
pub async fn stored_uses(env: &Env) -> anyhow::Result<Vec<(i16, Value)>> {
    let client = env.db.client().await?;
    let rows = client
        .query(
            "SELECT schema_version, payload FROM events WHERE event_type = 'CouponUsed'
              ORDER BY position",
            &[],
        )
        .await?;
    Ok(rows.iter().map(|r| (r.get(0), r.get(1))).collect())
}
