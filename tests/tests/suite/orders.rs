//! Checkout over HTTP against real services: TCC lock/confirm/cancel,
//! queries, lock timeouts, and every touched coupon's history replaying to
//! its state. Refunds: `refunds.rs`.

use std::collections::BTreeSet;
use std::sync::Arc;

use serde_json::json;
use tests::shop::{Shop, fixed_off, order, template};

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

/// A large wallet: 995 coupons that can never apply to the order (another
/// currency, or shipping coupons for an order without shipping), issued
/// first, and 5 that do, of five templates. The quote leaves the 995 out
/// before any bound and finds the best combination among the 5.
#[tokio::test(flavor = "multi_thread")]
async fn a_quote_over_a_wallet_of_a_thousand_finds_the_five_that_apply() {
    let shop = Shop::new().await;
    let pool = tests::reminders::pool(&shop.env, 2).unwrap();
    let make = |kind: &str, currency: &str, limit: i64, amount: &str| {
        let mut body = template(kind, fixed_off("5.00", amount), "stackable", "restore");
        body["currency"] = json!(currency);
        body["per_user_limit"] = json!(limit);
        body
    };
    let wal = |n: usize| vec!["wal".to_owned(); n];
    for (kind, currency, n) in [("goods", "USD", 600), ("shipping", "CNY", 395)] {
        let t = shop.template(&make(kind, currency, 600, "1.00")).await;
        let users = wal(n);
        tests::reminders::claim_for(&pool, &t.0, &users, 200)
            .await
            .unwrap();
    }
    let mut five = BTreeSet::new();
    for amount in ["1.00", "2.00", "3.00", "4.00", "5.00"] {
        let t = shop.template(&make("goods", "CNY", 1, amount)).await;
        let users = wal(1);
        let ids = tests::reminders::claim_for(&pool, &t.0, &users, 1).await;
        five.insert(ids.unwrap()[0].to_string());
    }

    let o = order("big-wallet", "wal", &[("l1", 10, "5.00")], "0.00");
    let quote = json!({"user_id": "wal", "order": o});
    let (status, q) = shop.post("/v1/orders/quote", &quote).await;
    assert_eq!(status, 200, "{q}");
    let ids = |list: &serde_json::Value, field: &str| -> BTreeSet<String> {
        let items = list.as_array().unwrap().iter();
        items
            .map(|c| c.get(field).unwrap_or(c).as_str().unwrap().to_owned())
            .collect()
    };
    assert_eq!(
        ids(&q["coupons"], "coupon_id"),
        five,
        "only the five that can apply"
    );
    assert_eq!(ids(&q["best"]["coupon_ids"], "-"), five, "{q}");
    let (discount, truncated) = (q["best"]["discount"].as_str(), q["truncated"].as_bool());
    assert_eq!((discount, truncated), (Some("15.00"), Some(false)));
}
