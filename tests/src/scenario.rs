//! Building event histories quickly: claims straight through the ledger's
//! commands (the same SQL guards and events as the API), orders over HTTP.

use std::str::FromStr;

use serde_json::json;
use uuid::Uuid;

use crate::{Env, Server};

/// Claims one coupon of `sn` for each of `users` ("u<i>"), `per_tx` claims
/// per transaction; returns the coupon ids.
pub async fn claim_many(
    env: &Env,
    sn: &str,
    users: std::ops::Range<usize>,
    per_tx: usize,
) -> anyhow::Result<Vec<Uuid>> {
    let config = tokio_postgres::Config::from_str(&env.db.url())?;
    let pool = ledger::db::pool(&config, 2);
    let names: Vec<String> = users.map(|i| format!("u{i}")).collect();
    crate::reminders::claim_for(&pool, sn, &names, per_tx).await
}

/// Claims one coupon of `sn` for each entry of `users` (a user named
/// again claims again, up to the template's per-user limit), `per_tx`
/// claims per transaction; returns the coupon ids.
pub async fn claim_many_for(
    env: &Env,
    sn: &str,
    users: &[&str],
    per_tx: usize,
) -> anyhow::Result<Vec<Uuid>> {
    let config = tokio_postgres::Config::from_str(&env.db.url())?;
    let pool = ledger::db::pool(&config, 2);
    let names: Vec<String> = users.iter().map(|u| (*u).to_owned()).collect();
    crate::reminders::claim_for(&pool, sn, &names, per_tx).await
}

/// Locks `coupon` of `user` on a 150.00 order (20 off 100: pays 130.00) and,
/// if `confirm`, confirms it; returns the order id.
pub async fn checkout(
    server: &Server,
    user: &str,
    coupon: Uuid,
    confirm: bool,
) -> anyhow::Result<String> {
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
    let action = if confirm { "confirm" } else { "cancel" };
    let path = format!("/v1/orders/{order_id}/{action}");
    let (status, answer) = server.service_post(&path, &json!({})).await?;
    anyhow::ensure!(status == 200, "{action}: {status} {answer}");
    Ok(order_id)
}

/// Claims one coupon, then appends `(event_type, schema_version)` as the
/// coupon's second event; returns the new event's position. Written by SQL:
/// this build's store appends only the event types it knows.
pub async fn append_unknown(env: &Env, event_type: &str, schema_version: i16) -> i64 {
    let server = Server::start(env).await.unwrap();
    let sn = server.active_template(10, 1).await.unwrap();
    let coupon = claim_many(env, &sn, 0..1, 1).await.unwrap()[0];
    let stream = format!("coupon-{coupon}");
    let client = env.db.client().await.unwrap();
    let row = client
        .query_one(
            "INSERT INTO events (event_id, stream_id, stream_version, event_type, schema_version,
                                 payload, metadata, occurred_at)
             VALUES ($1, $2, 2, $3, $4, $5, $6, $7)
             RETURNING position",
            &[
                &Uuid::now_v7(),
                &stream,
                &event_type,
                &schema_version,
                &json!({"coupon_id": coupon}),
                &json!({"actor": "test", "correlation_id": "t"}),
                &chrono::Utc::now(),
            ],
        )
        .await
        .unwrap();
    row.get(0)
}

/// How many coupons of `sn` each user holds.
pub async fn holders(env: &Env, sn: &str) -> std::collections::HashMap<String, i64> {
    let client = env.db.client().await.unwrap();
    let rows = client
        .query(
            "SELECT user_id, count(*) FROM coupons WHERE template_sn = $1 GROUP BY user_id",
            &[&sn],
        )
        .await
        .unwrap();
    rows.iter().map(|r| (r.get(0), r.get(1))).collect()
}
