//! An order's record (docs/design.md §20): after a lock, a confirm, two
//! partial refunds and the coupons' archiving, `GET /v1/orders/{id}` shows
//! every step as the calls answered it; an order cancelled before its lock
//! reads as such; an unknown order is 404.

use chrono::{DateTime, Utc};
use rust_decimal::Decimal;
use serde_json::{Value, json};
use tests::shop::{Shop, fixed_off, order, template};
use tests::workers::ledger;

async fn record(shop: &Shop, id: &str) -> Value {
    let (status, body) = shop
        .server
        .service_get(&format!("/v1/orders/{id}"))
        .await
        .unwrap();
    assert_eq!(status, 200, "{body}");
    body
}

fn at(v: &Value) -> DateTime<Utc> {
    v.as_str()
        .unwrap_or_else(|| panic!("an instant: {v}"))
        .parse()
        .unwrap()
}

/// One allocation: (coupon, line, amount), comparable across answers.
type Share = (String, Value, String);

fn share(coupon: &Value, a: &Value) -> Share {
    let amount = a["amount"].as_str().unwrap().to_owned();
    (
        coupon.as_str().unwrap().to_owned(),
        a["line_id"].clone(),
        amount,
    )
}

fn sorted(mut all: Vec<Share>) -> Vec<Share> {
    all.sort_by(|a, b| (&a.0, a.1.to_string()).cmp(&(&b.0, b.1.to_string())));
    all
}

/// Each coupon's allocations as the lock answered them.
fn shares(allocations: &Value) -> Vec<Share> {
    let all = allocations.as_array().unwrap().iter();
    sorted(all.map(|a| share(&a["coupon_id"], a)).collect())
}

/// Each coupon's allocations as the order's record shows them.
fn record_shares(record: &Value) -> Vec<Share> {
    let coupons = record["coupons"].as_array().unwrap().iter();
    let all = coupons.flat_map(|c| {
        let allocations = c["allocations"].as_array().unwrap().iter();
        allocations.map(|a| share(&c["coupon_id"], a))
    });
    sorted(all.collect())
}

#[tokio::test]
async fn an_order_read_shows_every_step_through_refunds_and_archiving() {
    let shop = Shop::new().await;
    let a = shop
        .template(&template(
            "goods",
            fixed_off("50.00", "10.00"),
            "stackable",
            "restore",
        ))
        .await;
    let b = shop
        .template(&template(
            "goods",
            fixed_off("100.00", "15.00"),
            "stackable",
            "restore",
        ))
        .await;
    let (ca, cb) = (shop.coupon(&a, "ann").await, shop.coupon(&b, "ann").await);
    let o = order(
        "o-rec",
        "ann",
        &[("l1", 5, "20.00"), ("l2", 2, "50.00")],
        "0.00",
    );
    let (status, lock) = shop.lock(&o, &[&ca, &cb], "175.00").await;
    assert_eq!(status, 200, "{lock}");

    let locked = record(&shop, "o-rec").await;
    assert_eq!(locked["status"], "locked");
    assert_eq!(
        (&locked["user_id"], &locked["payable"]),
        (&json!("ann"), &json!("175.00"))
    );
    assert_eq!(locked["discount"], lock["discount"]);
    assert_eq!(record_shares(&locked), shares(&lock["allocations"]));
    assert!(at(&locked["lock_expires_at"]) > at(&locked["locked_at"]));
    assert_eq!(locked["order"]["lines"].as_array().unwrap().len(), 2);
    assert!(locked.get("settled_at").is_none(), "{locked}");
    let statuses = |r: &Value| -> Vec<Value> {
        r["coupons"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| c["status"].clone())
            .collect()
    };
    assert_eq!(statuses(&locked), [json!("locked"), json!("locked")]);
    for c in locked["coupons"].as_array().unwrap() {
        let sum: Decimal = c["allocations"]
            .as_array()
            .unwrap()
            .iter()
            .map(|a| a["amount"].as_str().unwrap().parse::<Decimal>().unwrap())
            .sum();
        assert_eq!(sum.to_string(), c["discount"].as_str().unwrap(), "{c}");
    }

    let (status, _) = shop.post("/v1/orders/o-rec/confirm", &json!({})).await;
    assert_eq!(status, 200);
    let r1 = json!({"refund_id": "r1", "lines": [{"line_id": "l1", "quantity": 2}]});
    let (status, answer1) = shop.post("/v1/orders/o-rec/refunds", &r1).await;
    assert_eq!(status, 200, "{answer1}");
    let r2 = json!({"refund_id": "r2", "lines": [{"line_id": "l2", "quantity": 1}]});
    let (status, answer2) = shop.post("/v1/orders/o-rec/refunds", &r2).await;
    assert_eq!(status, 200, "{answer2}");

    // Every coupon used and ended: the archiver may move them.
    let out = ledger(&shop.env, &["archive", "--before", "now"])
        .await
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let client = shop.env.db.client().await.unwrap();
    let hot: i64 = client
        .query_one("SELECT count(*) FROM coupons", &[])
        .await
        .unwrap()
        .get(0);
    assert_eq!(hot, 0, "both coupons archived");

    let done = record(&shop, "o-rec").await;
    assert_eq!(done["status"], "confirmed");
    assert!(at(&done["settled_at"]) >= at(&done["locked_at"]));
    assert_eq!(statuses(&done), [json!("used"), json!("used")]);
    assert_eq!(record_shares(&done), shares(&lock["allocations"]));
    let templates: Vec<&str> = done["coupons"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["template_sn"].as_str().unwrap())
        .collect();
    assert_eq!(templates, [a.0.as_str(), b.0.as_str()]);
    let refunds = done["refunds"].as_array().unwrap();
    assert_eq!(refunds.len(), 2, "{done}");
    for (shown, answered) in refunds.iter().zip([&answer1, &answer2]) {
        for field in [
            "refund_id",
            "amount",
            "lines",
            "coupon_cost_reversed",
            "coupons_returned",
        ] {
            assert_eq!(shown[field], answered[field], "{field}");
        }
        assert!(at(&shown["refunded_at"]) >= at(&done["settled_at"]));
    }
    assert!(at(&refunds[1]["refunded_at"]) >= at(&refunds[0]["refunded_at"]));
}

#[tokio::test]
async fn an_order_cancelled_before_its_lock_reads_so_and_an_unknown_one_is_404() {
    let shop = Shop::new().await;
    let (status, _) = shop.post("/v1/orders/o-early/cancel", &json!({})).await;
    assert_eq!(status, 200);
    let early = record(&shop, "o-early").await;
    assert_eq!(early["status"], "cancelled_before_lock");
    assert_eq!(early["coupons"], json!([]));
    assert!(
        early.get("user_id").is_none() && early.get("locked_at").is_none(),
        "{early}"
    );
    let (status, body) = shop.server.service_get("/v1/orders/o-never").await.unwrap();
    assert_eq!(
        (status, &body["error"]["code"]),
        (404, &json!("not_found")),
        "{body}"
    );
    // Text too long to be an order id names no order.
    let long = "x".repeat(129);
    let (status, _) = shop
        .server
        .service_get(&format!("/v1/orders/{long}"))
        .await
        .unwrap();
    assert_eq!(status, 404);
}
