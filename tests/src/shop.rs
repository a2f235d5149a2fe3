//! Checkout test support: a template body, an order, and `Shop`, a test's
//! services with the calls the checkout and refund tests make.

use ledger::domain::coupon_state::{self, CouponChange};
use ledger::domain::ledger_event::LedgerEvent;
use serde_json::{Value, json};

use crate::{Channel, Env, Server};

/// A template body: `discount` on goods (or shipping), stackable, restore by default.
pub fn template(kind: &str, discount: Value, stacking: &str, policy: &str) -> Value {
    let mut body = crate::template_body(10_000, 100);
    body["kind"] = json!(kind);
    body["discount"] = discount;
    body["stacking"] = json!(stacking);
    body["refund_policy"] = json!(policy);
    body
}

pub fn fixed_off(threshold: &str, amount: &str) -> Value {
    json!({"type": "fixed_off", "threshold": threshold, "amount": amount})
}

pub fn order(id: &str, user: &str, lines: &[(&str, u32, &str)], shipping: &str) -> Value {
    json!({
        "order_id": id, "user_id": user, "currency": "CNY", "shipping_fee": shipping,
        "lines": lines.iter().map(|(line, qty, price)| json!({
            "line_id": line, "sku": format!("sku-{line}"), "category": "c-1",
            "quantity": qty, "unit_price": price,
        })).collect::<Vec<_>>(),
    })
}

/// A test's services and its server, with the calls checkout tests make.
pub struct Shop {
    pub env: Env,
    pub server: Server,
}

impl Shop {
    pub async fn new() -> Self {
        let env = Env::new().await.unwrap();
        let server = Server::start(&env).await.unwrap();
        Self { env, server }
    }

    /// An active template and a channel that may issue it.
    pub async fn template(&self, body: &Value) -> (String, Channel) {
        let sn = self.server.activate_template(body).await.unwrap();
        let channel = self.server.channel_for(&sn).await.unwrap();
        (sn, channel)
    }

    pub async fn coupon(&self, t: &(String, Channel), user: &str) -> String {
        let (status, body) = self.server.claim(&t.1, &t.0, user).await.unwrap();
        assert_eq!(status, 201, "{body}");
        body["id"].as_str().unwrap().to_owned()
    }

    pub async fn lock(&self, order: &Value, coupons: &[&str], payable: &str) -> (u16, Value) {
        let body = json!({"order": order, "coupon_ids": coupons, "expected_payable": payable});
        self.server
            .service_post("/v1/orders/lock", &body)
            .await
            .unwrap()
    }

    pub async fn post(&self, path: &str, body: &Value) -> (u16, Value) {
        self.server.service_post(path, body).await.unwrap()
    }

    pub async fn status(&self, coupon: &str) -> String {
        let (code, body) = self
            .server
            .service_get(&format!("/v1/coupons/{coupon}"))
            .await
            .unwrap();
        assert_eq!(code, 200, "{body}");
        body["status"].as_str().unwrap().to_owned()
    }

    /// Folding the coupon's `/events` through the domain state machine gives
    /// the status the API reports.
    pub async fn assert_history_replays(&self, coupon: &str) {
        let (code, events) = self
            .server
            .service_get(&format!("/v1/coupons/{coupon}/events"))
            .await
            .unwrap();
        assert_eq!(code, 200);
        let events = events.as_array().unwrap();
        assert_eq!(events[0]["event_type"], "CouponIssued");
        let expires_at = events[0]["payload"]["expires_at"]
            .as_str()
            .unwrap()
            .parse()
            .unwrap();
        let changes: Vec<CouponChange> = events[1..]
            .iter()
            .map(|e| {
                let event_type = e["event_type"].as_str().unwrap();
                let version = e["schema_version"].as_i64().unwrap() as i16;
                let event = LedgerEvent::decode(event_type, version, &e["payload"]).unwrap();
                event.coupon_change().unwrap()
            })
            .collect();
        let versions: Vec<i64> = events
            .iter()
            .map(|e| e["stream_version"].as_i64().unwrap())
            .collect();
        assert_eq!(versions, (1..=events.len() as i64).collect::<Vec<_>>());
        let replayed = coupon_state::replay(expires_at, &changes);
        assert_eq!(
            replayed.status.as_str(),
            self.status(coupon).await,
            "coupon {coupon}"
        );
    }
}
