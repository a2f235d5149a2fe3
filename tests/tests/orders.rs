//! Checkout over HTTP against real services: TCC lock/confirm/cancel, refunds,
//! queries, and every touched coupon's history replaying to its state.

use std::sync::Arc;

use ledger::domain::coupon_state::{self, CouponChange};
use ledger::domain::ledger_event::LedgerEvent;
use serde_json::{Value, json};
use tests::{Channel, Env, Server};

/// A template body: `discount` on goods (or shipping), stackable, restore by default.
fn template(kind: &str, discount: Value, stacking: &str, policy: &str) -> Value {
    let mut body = tests::template_body(10_000, 100);
    body["kind"] = json!(kind);
    body["discount"] = discount;
    body["stacking"] = json!(stacking);
    body["refund_policy"] = json!(policy);
    body
}

fn fixed_off(threshold: &str, amount: &str) -> Value {
    json!({"type": "fixed_off", "threshold": threshold, "amount": amount})
}

fn order(id: &str, user: &str, lines: &[(&str, u32, &str)], shipping: &str) -> Value {
    json!({
        "order_id": id, "user_id": user, "currency": "CNY", "shipping_fee": shipping,
        "lines": lines.iter().map(|(line, qty, price)| json!({
            "line_id": line, "sku": format!("sku-{line}"), "category": "c-1",
            "quantity": qty, "unit_price": price,
        })).collect::<Vec<_>>(),
    })
}

struct Shop {
    env: Env,
    server: Server,
}

impl Shop {
    async fn new() -> Self {
        let env = Env::new().await.unwrap();
        let server = Server::start(&env).await.unwrap();
        Self { env, server }
    }

    /// An active template and a channel that may issue it.
    async fn template(&self, body: &Value) -> (String, Channel) {
        let sn = self.server.activate_template(body).await.unwrap();
        let channel = self.server.channel_for(&sn).await.unwrap();
        (sn, channel)
    }

    async fn coupon(&self, t: &(String, Channel), user: &str) -> String {
        let (status, body) = self.server.claim(&t.1, &t.0, user).await.unwrap();
        assert_eq!(status, 201, "{body}");
        body["id"].as_str().unwrap().to_owned()
    }

    async fn lock(&self, order: &Value, coupons: &[&str], payable: &str) -> (u16, Value) {
        let body = json!({"order": order, "coupon_ids": coupons, "expected_payable": payable});
        self.server
            .service_post("/v1/orders/lock", &body)
            .await
            .unwrap()
    }

    async fn post(&self, path: &str, body: &Value) -> (u16, Value) {
        self.server.service_post(path, body).await.unwrap()
    }

    async fn status(&self, coupon: &str) -> String {
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
    async fn assert_history_replays(&self, coupon: &str) {
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

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn of_fifty_orders_locking_one_coupon_exactly_one_wins() {
    let shop = Arc::new(Shop::new().await);
    let t = shop
        .template(&template(
            "goods",
            fixed_off("5.00", "1.00"),
            "stackable",
            "restore",
        ))
        .await;
    let coupon = shop.coupon(&t, "alice").await;
    let tasks: Vec<_> = (0..50)
        .map(|n| {
            let (shop, coupon) = (shop.clone(), coupon.clone());
            tokio::spawn(async move {
                let o = order(&format!("race-{n}"), "alice", &[("l1", 5, "2.00")], "0.00");
                shop.lock(&o, &[&coupon], "9.00").await
            })
        })
        .collect();
    let mut wins = 0;
    for t in tasks {
        let (status, body) = t.await.unwrap();
        match status {
            200 => wins += 1,
            409 => assert_eq!(body["error"]["code"], "coupon_state", "{body}"),
            other => panic!("{other} {body}"),
        }
    }
    assert_eq!(wins, 1);
    assert_eq!(shop.status(&coupon).await, "locked");
    shop.assert_history_replays(&coupon).await;
}

/// A retried lock takes the order's row before its coupons, as confirm and
/// cancel do: racing them, no request fails (a deadlock would be a 500).
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn retried_locks_racing_confirms_and_cancels_all_answer() {
    const ORDERS: usize = 16;
    const RETRIES: usize = 4;
    let shop = Arc::new(Shop::new().await);
    let t = shop
        .template(&template(
            "goods",
            fixed_off("5.00", "1.00"),
            "stackable",
            "restore",
        ))
        .await;
    let mut orders = Vec::new();
    for n in 0..ORDERS {
        let user = format!("racer-{n}");
        let coupon = shop.coupon(&t, &user).await;
        let o = order(&format!("retry-{n}"), &user, &[("l1", 5, "2.00")], "0.00");
        assert_eq!(shop.lock(&o, &[&coupon], "9.00").await.0, 200);
        orders.push((n, o, coupon));
    }
    let mut tasks = Vec::new();
    for (n, o, coupon) in &orders {
        let settle = if n % 2 == 0 { "confirm" } else { "cancel" };
        let path = format!("/v1/orders/retry-{n}/{settle}");
        let shop_ = shop.clone();
        tasks.push(tokio::spawn(async move {
            (true, shop_.post(&path, &json!({})).await)
        }));
        for _ in 0..RETRIES {
            let (shop_, o, coupon) = (shop.clone(), o.clone(), coupon.clone());
            tasks.push(tokio::spawn(async move {
                (false, shop_.lock(&o, &[&coupon], "9.00").await)
            }));
        }
    }
    for task in tasks {
        let (settles, (status, body)) = task.await.unwrap();
        match (settles, status) {
            (true, 200) | (false, 200) => {}
            (false, 409) => assert_eq!(body["error"]["code"], "order_cancelled", "{body}"),
            other => panic!("{other:?} {body}"),
        }
    }
    for (n, _, coupon) in &orders {
        let expected = if n % 2 == 0 { "used" } else { "unused" };
        assert_eq!(shop.status(coupon).await, expected, "order retry-{n}");
        shop.assert_history_replays(coupon).await;
    }
}

#[tokio::test]
async fn lock_confirm_retry_cancel_relock_and_no_hanging_lock() {
    let shop = Shop::new().await;
    let t = shop
        .template(&template(
            "goods",
            fixed_off("5.00", "1.00"),
            "stackable",
            "restore",
        ))
        .await;
    let (c1, c2) = (shop.coupon(&t, "bob").await, shop.coupon(&t, "bob").await);
    let o1 = order("o-1", "bob", &[("l1", 5, "2.00")], "0.00");

    let (status, locked) = shop.lock(&o1, &[&c1], "9.00").await;
    assert_eq!(status, 200, "{locked}");
    assert_eq!(
        (locked["discount"].as_str(), locked["payable"].as_str()),
        (Some("1.00"), Some("9.00"))
    );
    assert_eq!(
        shop.lock(&o1, &[&c1], "9.00").await,
        (200, locked.clone()),
        "same lock, same answer"
    );
    assert_eq!(
        shop.lock(&o1, &[&c2], "9.00").await.0,
        409,
        "same order, other content"
    );
    let first = shop.post("/v1/orders/o-1/confirm", &json!({})).await;
    assert_eq!(first.0, 200);
    assert_eq!(
        shop.post("/v1/orders/o-1/confirm", &json!({})).await,
        first,
        "retried confirm"
    );
    assert_eq!(shop.status(&c1).await, "used");
    assert_eq!(
        shop.post("/v1/orders/o-1/cancel", &json!({})).await.0,
        409,
        "cancel after confirm"
    );

    let o2 = order("o-2", "bob", &[("l1", 5, "2.00")], "0.00");
    assert_eq!(shop.lock(&o2, &[&c2], "9.00").await.0, 200);
    assert_eq!(shop.post("/v1/orders/o-2/cancel", &json!({})).await.0, 200);
    assert_eq!(
        shop.post("/v1/orders/o-2/cancel", &json!({})).await.0,
        200,
        "cancel is idempotent"
    );
    assert_eq!(shop.status(&c2).await, "unused");
    assert_eq!(
        shop.post("/v1/orders/o-2/confirm", &json!({})).await.0,
        409,
        "confirm after cancel"
    );
    let o3 = order("o-3", "bob", &[("l1", 5, "2.00")], "0.00");
    assert_eq!(
        shop.lock(&o3, &[&c2], "9.00").await.0,
        200,
        "a new order locks the released coupon"
    );

    let (status, body) = shop.post("/v1/orders/o-4/cancel", &json!({})).await;
    assert_eq!(
        (status, body["status"].as_str()),
        (200, Some("cancelled_before_lock"))
    );
    let o4 = order("o-4", "bob", &[("l1", 5, "2.00")], "0.00");
    let c3 = shop.coupon(&t, "bob").await;
    let (status, body) = shop.lock(&o4, &[&c3], "9.00").await;
    assert_eq!(
        (status, body["error"]["code"].as_str()),
        (409, Some("order_cancelled"))
    );
    assert_eq!(shop.status(&c3).await, "unused");
    for c in [&c1, &c2, &c3] {
        shop.assert_history_replays(c).await;
    }
}

#[tokio::test]
async fn someone_elses_coupon_is_404_and_a_wrong_payable_is_422_and_nothing_changes() {
    let shop = Shop::new().await;
    let t = shop
        .template(&template(
            "goods",
            fixed_off("5.00", "1.00"),
            "stackable",
            "restore",
        ))
        .await;
    let carols = shop.coupon(&t, "carol").await;
    let mine = shop.coupon(&t, "dave").await;
    let o = order("o-x", "dave", &[("l1", 5, "2.00")], "0.00");
    let (status, body) = shop.lock(&o, &[&carols], "9.00").await;
    assert_eq!(
        (status, body["error"]["code"].as_str()),
        (404, Some("not_found"))
    );
    let (status, body) = shop.lock(&o, &[&mine], "9.01").await;
    assert_eq!(
        (status, body["error"]["code"].as_str()),
        (422, Some("payable_mismatch"))
    );
    let (status, body) = shop.lock(&o, &[&mine], "8.99").await;
    assert_eq!(
        (status, body["error"]["code"].as_str()),
        (422, Some("payable_mismatch"))
    );
    for c in [&carols, &mine] {
        assert_eq!(shop.status(c).await, "unused");
        let (_, events) = shop
            .server
            .service_get(&format!("/v1/coupons/{c}/events"))
            .await
            .unwrap();
        assert_eq!(events.as_array().unwrap().len(), 1, "only CouponIssued");
    }
    let client = shop.env.db.client().await.unwrap();
    let orders: i64 = client
        .query_one("SELECT count(*) FROM orders", &[])
        .await
        .unwrap()
        .get(0);
    assert_eq!(orders, 0);
    // Carol's coupon, asked for on Dave's behalf, is as missing as a random id.
    let (status, _) = shop
        .server
        .service_get(&format!("/v1/coupons/{carols}?user_id=dave"))
        .await
        .unwrap();
    assert_eq!(status, 404);
    let (status, _) = shop
        .server
        .service_get(&format!(
            "/v1/coupons/{}?user_id=dave",
            uuid::Uuid::new_v4()
        ))
        .await
        .unwrap();
    assert_eq!(status, 404);
}

async fn seed_refunds(policy: &str) {
    let shop = Shop::new().await;
    let t = shop
        .template(&template(
            "goods",
            fixed_off("5.00", "1.00"),
            "stackable",
            policy,
        ))
        .await;
    let coupon = shop.coupon(&t, "erin").await;
    let o = order("seed", "erin", &[("l1", 5, "2.00")], "0.00");
    assert_eq!(shop.lock(&o, &[&coupon], "9.00").await.0, 200);
    assert_eq!(
        shop.post("/v1/orders/seed/confirm", &json!({})).await.0,
        200
    );

    let one = json!({"refund_id": "r1", "lines": [{"line_id": "l1", "quantity": 1}]});
    let (status, r1) = shop.post("/v1/orders/seed/refunds", &one).await;
    assert_eq!(status, 200, "{r1}");
    assert_eq!(
        (r1["amount"].as_str(), r1["coupon_cost_reversed"].as_str()),
        (Some("1.80"), Some("0.20"))
    );
    assert_eq!(r1["coupons_returned"], json!([]));
    assert_eq!(shop.status(&coupon).await, "used");
    assert_eq!(
        shop.post("/v1/orders/seed/refunds", &one).await,
        (200, r1.clone()),
        "same refund id"
    );
    let other = json!({"refund_id": "r1", "lines": [{"line_id": "l1", "quantity": 2}]});
    assert_eq!(shop.post("/v1/orders/seed/refunds", &other).await.0, 409);
    let too_many = json!({"refund_id": "r9", "lines": [{"line_id": "l1", "quantity": 5}]});
    let (status, body) = shop.post("/v1/orders/seed/refunds", &too_many).await;
    assert_eq!(
        (status, body["error"]["code"].as_str()),
        (422, Some("refund_exceeds_quantity"))
    );

    let rest = json!({"refund_id": "r2", "lines": [{"line_id": "l1", "quantity": 4}]});
    let (status, r2) = shop.post("/v1/orders/seed/refunds", &rest).await;
    assert_eq!(status, 200, "{r2}");
    assert_eq!(
        (r2["amount"].as_str(), r2["coupon_cost_reversed"].as_str()),
        (Some("7.20"), Some("0.80"))
    );
    assert_eq!(r2["coupons_returned"], json!([coupon]));
    if policy == "restore" {
        assert_eq!(shop.status(&coupon).await, "unused");
    } else {
        assert_eq!(shop.status(&coupon).await, "refunded");
        let new = r2["coupons_reissued"][0]["to"].as_str().unwrap().to_owned();
        let (_, view) = shop
            .server
            .service_get(&format!("/v1/coupons/{new}"))
            .await
            .unwrap();
        assert_eq!(
            (view["status"].as_str(), view["refund_from"].as_str()),
            (Some("unused"), Some(coupon.as_str()))
        );
        assert_eq!(view["user_id"], "erin");
        shop.assert_history_replays(&new).await;
    }
    shop.assert_history_replays(&coupon).await;
}

#[tokio::test]
async fn the_seed_refund_sequence_restores_the_coupon() {
    seed_refunds("restore").await;
}

#[tokio::test]
async fn the_seed_refund_sequence_reissues_the_coupon() {
    seed_refunds("reissue").await;
}

#[tokio::test]
async fn a_stacked_order_refunds_line_by_line_to_exactly_what_was_paid() {
    let shop = Shop::new().await;
    let a = shop
        .template(&template(
            "goods",
            fixed_off("100.00", "15.00"),
            "stackable",
            "restore",
        ))
        .await;
    let b = shop
        .template(&template(
            "goods",
            json!({"type": "rate", "rate_off": "0.12", "max_off": "30.00"}),
            "stackable",
            "restore",
        ))
        .await;
    let s = shop
        .template(&template(
            "shipping",
            fixed_off("0.00", "6.00"),
            "stackable",
            "restore",
        ))
        .await;
    let (ca, cb, cs) = (
        shop.coupon(&a, "fay").await,
        shop.coupon(&b, "fay").await,
        shop.coupon(&s, "fay").await,
    );
    let lines = [("l1", 3, "33.33"), ("l2", 1, "50.00"), ("l3", 7, "1.99")];
    let o = order("multi", "fay", &lines, "8.00");

    let quote = json!({"user_id": "fay", "order": o});
    let (status, q) = shop.post("/v1/orders/quote", &quote).await;
    assert_eq!(status, 200, "{q}");
    assert_eq!(q["coupons"].as_array().unwrap().len(), 3);
    let payable = q["best"]["payable"].as_str().unwrap().to_owned();
    let best: Vec<String> = q["best"]["coupon_ids"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap().to_owned())
        .collect();
    assert_eq!(best.len(), 3, "all three stack: {q}");

    let ids: Vec<&str> = best.iter().map(String::as_str).collect();
    let (status, locked) = shop.lock(&o, &ids, &payable).await;
    assert_eq!(status, 200, "{locked}");
    let allocated: rust_decimal::Decimal = locked["allocations"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| {
            a["amount"]
                .as_str()
                .unwrap()
                .parse::<rust_decimal::Decimal>()
                .unwrap()
        })
        .sum();
    assert_eq!(allocated.to_string(), locked["discount"].as_str().unwrap());
    assert_eq!(
        shop.post("/v1/orders/multi/confirm", &json!({})).await.0,
        200
    );

    let mut refunded = rust_decimal::Decimal::ZERO;
    for (n, (line, qty, _)) in lines.iter().enumerate() {
        for unit in 0..*qty {
            let body = json!({"refund_id": format!("r-{n}-{unit}"), "lines": [{"line_id": line, "quantity": 1}]});
            let (status, r) = shop.post("/v1/orders/multi/refunds", &body).await;
            assert_eq!(status, 200, "{r}");
            refunded += r["amount"]
                .as_str()
                .unwrap()
                .parse::<rust_decimal::Decimal>()
                .unwrap();
        }
    }
    assert_eq!(
        refunded.to_string(),
        payable,
        "refunds add up to exactly what was paid"
    );
    for c in [&ca, &cb, &cs] {
        assert_eq!(shop.status(c).await, "unused", "every coupon is back");
        shop.assert_history_replays(c).await;
    }
}

#[tokio::test]
async fn a_users_coupons_are_paged_in_a_stable_order_with_a_total() {
    let shop = Shop::new().await;
    let t = shop
        .template(&template(
            "goods",
            fixed_off("5.00", "1.00"),
            "stackable",
            "restore",
        ))
        .await;
    let mut ids = Vec::new();
    for _ in 0..7 {
        ids.push(shop.coupon(&t, "gus").await);
    }
    shop.coupon(&t, "someone-else").await;
    let o = order("g-1", "gus", &[("l1", 5, "2.00")], "0.00");
    assert_eq!(shop.lock(&o, &[&ids[2]], "9.00").await.0, 200);
    let mut seen = Vec::new();
    for offset in [0, 3, 6] {
        let (status, page) = shop
            .server
            .service_get(&format!("/v1/users/gus/coupons?offset={offset}&limit=3"))
            .await
            .unwrap();
        assert_eq!(status, 200);
        assert_eq!(page["total"], 7);
        seen.extend(
            page["coupons"]
                .as_array()
                .unwrap()
                .iter()
                .map(|c| c["id"].as_str().unwrap().to_owned()),
        );
    }
    assert_eq!(seen, ids);
    let (_, locked) = shop
        .server
        .service_get("/v1/users/gus/coupons?status=locked")
        .await
        .unwrap();
    assert_eq!(
        (
            locked["total"].as_i64(),
            locked["coupons"][0]["order_id"].as_str()
        ),
        (Some(1), Some("g-1"))
    );
    for q in [
        "status=lost",
        "limit=0",
        "limit=500",
        "offset=-1",
        "limit=abc",
    ] {
        let (status, _) = shop
            .server
            .service_get(&format!("/v1/users/gus/coupons?{q}"))
            .await
            .unwrap();
        assert_eq!(status, 400, "{q}");
    }
}

#[tokio::test]
async fn timed_out_locks_are_released_and_due_coupons_expire() {
    let shop = Shop::new().await;
    let t = shop
        .template(&template(
            "goods",
            fixed_off("5.00", "1.00"),
            "stackable",
            "restore",
        ))
        .await;
    let (locked, idle, voided) = (
        shop.coupon(&t, "hal").await,
        shop.coupon(&t, "hal").await,
        shop.coupon(&t, "hal").await,
    );
    let o = order("h-1", "hal", &[("l1", 5, "2.00")], "0.00");
    assert_eq!(shop.lock(&o, &[&locked], "9.00").await.0, 200);
    let (status, body) = shop
        .server
        .admin_post(&format!("/v1/coupons/{voided}/void"), &json!({}))
        .await
        .unwrap();
    assert_eq!((status, body["status"].as_str()), (200, Some("void")));
    assert_eq!(
        shop.server
            .admin_post(&format!("/v1/coupons/{voided}/void"), &json!({}))
            .await
            .unwrap()
            .0,
        409
    );

    let mut client = shop.env.db.pool.get().await.unwrap();
    let later = chrono::Utc::now() + chrono::Duration::minutes(31);
    let tx = client.transaction().await.unwrap();
    assert_eq!(
        ledger::commands::orders::release_expired_locks(&tx, later, 100)
            .await
            .unwrap(),
        1
    );
    tx.commit().await.unwrap();
    assert_eq!(shop.status(&locked).await, "unused");
    assert_eq!(
        shop.post("/v1/orders/h-1/confirm", &json!({})).await.0,
        409,
        "confirm after timeout"
    );

    let much_later = chrono::Utc::now() + chrono::Duration::days(9);
    let tx = client.transaction().await.unwrap();
    assert_eq!(
        ledger::commands::coupons::expire_coupons(&tx, much_later, 100)
            .await
            .unwrap(),
        2
    );
    tx.commit().await.unwrap();
    for (c, status) in [(&locked, "expired"), (&idle, "expired"), (&voided, "void")] {
        assert_eq!(shop.status(c).await, status);
        shop.assert_history_replays(c).await;
    }
}
