//! Budgets (docs/design.md §15, "Budgets"): what a template's coupons may
//! cost, reserved by locks, kept by confirms, given back by cancels,
//! timeouts and refunds, exact under many concurrent locks; the daily cap
//! starts again at the business day's start; quotes mark coupons a budget
//! cannot pay; every step replays with no difference.

use chrono::{DateTime, Duration, NaiveDate, TimeZone, Utc};
use futures_util::future::join_all;
use serde_json::{Value, json};
use tests::script::{self, Script, TZ};
use tests::shop::{Shop, fixed_off, order, template};
use tests::workers::assert_verifies_once_caught_up;

/// 10.00 off orders of 100.00 or more, with `budget`.
fn budgeted(budget: Value) -> Value {
    let mut body = template(
        "goods",
        fixed_off("100.00", "10.00"),
        "stackable",
        "restore",
    );
    body["budget"] = budget;
    body
}

/// One coupon each for `users`, claimed concurrently.
async fn coupons(shop: &Shop, t: &(String, tests::Channel), users: &[String]) -> Vec<String> {
    join_all(users.iter().map(|u| shop.coupon(t, u))).await
}

/// Locks `coupon` for `user` on an order of one 150.00 line (pays 140.00).
async fn lock_order(shop: &Shop, user: &str, coupon: &str) -> (u16, Value) {
    let o = order(&format!("o-{user}"), user, &[("l1", 1, "150.00")], "0.00");
    shop.lock(&o, &[coupon], "140.00").await
}

/// Confirms or cancels `user`'s order; the status.
async fn settle(shop: &Shop, user: &str, how: &str) -> u16 {
    shop.post(&format!("/v1/orders/o-{user}/{how}"), &json!({}))
        .await
        .0
}

async fn budget(shop: &Shop, sn: &str) -> Value {
    let (status, t) = shop
        .server
        .admin_get(&format!("/v1/templates/{sn}"))
        .await
        .unwrap();
    assert_eq!(status, 200, "{t}");
    t["budget"].clone()
}

async fn patch(shop: &Shop, sn: &str, body: &Value) -> (u16, Value) {
    shop.server.patch_template(sn, body).await.unwrap()
}

fn code(body: &Value) -> &str {
    body["error"]["code"].as_str().unwrap_or("")
}

#[tokio::test(flavor = "multi_thread")]
async fn three_hundred_concurrent_locks_on_a_budget_for_a_hundred_hold_exactly_a_hundred() {
    let shop = Shop::new().await;
    let t = shop.template(&budgeted(json!({"total": "1000.00"}))).await;
    let users: Vec<String> = (0..300).map(|i| format!("u{i}")).collect();
    let ids = coupons(&shop, &t, &users).await;
    let answers = join_all(users.iter().zip(&ids).map(|(u, c)| lock_order(&shop, u, c))).await;
    let held: Vec<usize> = (0..300).filter(|&i| answers[i].0 == 200).collect();
    let refused = answers
        .iter()
        .filter(|(s, b)| *s == 409 && code(b) == "budget_exhausted");
    assert_eq!((held.len(), refused.count()), (100, 200), "{answers:?}");
    let b = budget(&shop, &t.0).await;
    assert_eq!(
        (&b["reserved"], &b["spent"], &b["left"]),
        (&json!("1000.00"), &json!("0.00"), &json!("0.00"))
    );

    // A quote for a user whose lock was refused: the coupon cannot be paid.
    let out = (0..300).find(|i| !held.contains(i)).unwrap();
    let o = order("q", &users[out], &[("l1", 1, "150.00")], "0.00");
    let (status, quote) = shop
        .post(
            "/v1/orders/quote",
            &json!({"user_id": users[out], "order": o}),
        )
        .await;
    assert_eq!(status, 200, "{quote}");
    assert_eq!(quote["coupons"][0]["reason"], "budget_exhausted", "{quote}");
    assert_eq!(quote["best"]["coupon_ids"], json!([]), "{quote}");

    // 30 cancels give 30 coupons' worth back: exactly 30 more locks hold.
    let cancels = held[..30]
        .iter()
        .map(|&i| settle(&shop, &users[i], "cancel"));
    assert!(join_all(cancels).await.iter().all(|s| *s == 200));
    assert_eq!(budget(&shop, &t.0).await["left"], "300.00");
    let waiting: Vec<usize> = (0..300).filter(|i| !held.contains(i)).take(60).collect();
    let again = join_all(
        waiting
            .iter()
            .map(|&i| lock_order(&shop, &users[i], &ids[i])),
    )
    .await;
    let held_again = again.iter().filter(|(s, _)| *s == 200).count();
    assert_eq!(held_again, 30, "{again:?}");

    // The 70 still held from the first round confirmed: spent, not reserved.
    let confirms = held[30..]
        .iter()
        .map(|&i| settle(&shop, &users[i], "confirm"));
    assert!(join_all(confirms).await.iter().all(|s| *s == 200));
    let b = budget(&shop, &t.0).await;
    assert_eq!(
        (&b["spent"], &b["reserved"], &b["left"]),
        (&json!("700.00"), &json!("300.00"), &json!("0.00"))
    );
    let (_, stats) = shop
        .server
        .admin_get(&format!("/v1/templates/{}/stats", t.0))
        .await
        .unwrap();
    assert_eq!(stats["budget"], b, "stats show the same budget");
    assert_verifies_once_caught_up(&shop.env).await;
}

#[tokio::test(flavor = "multi_thread")]
async fn a_partial_refund_gives_back_exactly_the_cost_it_reverses_and_a_raise_makes_room() {
    let shop = Shop::new().await;
    let t = shop.template(&budgeted(json!({"total": "25.00"}))).await;
    let users: Vec<String> = ["ann", "bob", "cyd", "dan"].map(String::from).to_vec();
    let ids = coupons(&shop, &t, &users).await;
    // 10.00 split over two lines: 4.00 on the 60.00 line, 6.00 on the 90.00 one.
    let o = order(
        "split",
        "ann",
        &[("l1", 1, "60.00"), ("l2", 1, "90.00")],
        "0.00",
    );
    assert_eq!(shop.lock(&o, &[&ids[0]], "140.00").await.0, 200);
    assert_eq!(
        shop.post("/v1/orders/split/confirm", &json!({})).await.0,
        200
    );
    assert_eq!(budget(&shop, &t.0).await["spent"], "10.00");
    let mut spent = rust_decimal::Decimal::new(1000, 2);
    for (id, line) in [("r1", "l1"), ("r2", "l2")] {
        let body = json!({"refund_id": id, "lines": [{"line_id": line, "quantity": 1}]});
        let (status, refund) = shop.post("/v1/orders/split/refunds", &body).await;
        assert_eq!(status, 200, "{refund}");
        let reversed: rust_decimal::Decimal = refund["coupon_cost_reversed"]
            .as_str()
            .unwrap()
            .parse()
            .unwrap();
        assert!(!reversed.is_zero(), "{refund}");
        spent -= reversed;
        let b = budget(&shop, &t.0).await;
        assert_eq!(b["spent"], json!(spent.to_string()), "{refund} {b}");
    }
    assert_eq!(
        spent,
        rust_decimal::Decimal::new(0, 2),
        "two refunds reverse the whole cost"
    );

    // 25.00: two locks of 10.00 hold, a third is refused until a raise.
    assert_eq!(lock_order(&shop, "bob", &ids[1]).await.0, 200);
    assert_eq!(lock_order(&shop, "cyd", &ids[2]).await.0, 200);
    let (status, body) = lock_order(&shop, "dan", &ids[3]).await;
    assert_eq!((status, code(&body)), (409, "budget_exhausted"), "{body}");
    let (status, body) = patch(&shop, &t.0, &json!({"budget": {"total": "20.00"}})).await;
    assert_eq!((status, code(&body)), (409, "budget_not_raised"), "{body}");
    let (status, body) = patch(&shop, &t.0, &json!({"budget": {"total": "30.00"}})).await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(
        (&body["budget"]["total"], &body["budget"]["left"]),
        (&json!("30.00"), &json!("10.00"))
    );
    assert_eq!(lock_order(&shop, "dan", &ids[3]).await.0, 200);

    // A template created without a budget cannot gain one.
    let open = shop
        .template(&template(
            "goods",
            fixed_off("100.00", "10.00"),
            "stackable",
            "restore",
        ))
        .await;
    let (status, body) = patch(&shop, &open.0, &json!({"budget": {"total": "30.00"}})).await;
    assert_eq!((status, code(&body)), (409, "budget_not_raised"), "{body}");
    assert!(budget(&shop, &open.0).await.is_null());
    assert_verifies_once_caught_up(&shop.env).await;
}

/// The script's lock of `coupon` for `user` (order `o-<user>`, one 150.00 line).
async fn lock(
    s: &mut Script,
    at: DateTime<Utc>,
    user: &str,
    coupon: uuid::Uuid,
) -> anyhow::Result<()> {
    let order_id = format!("o-{user}");
    s.lock(
        at,
        &order_id,
        user,
        &[("l1", 1, "150.00")],
        coupon,
        "140.00",
    )
    .await
}

/// `hh:mm` on business day `day` (Asia/Shanghai), as an instant.
fn at(day: NaiveDate, hour: u32, minute: u32, second: u32) -> DateTime<Utc> {
    let local = day.and_hms_opt(hour, minute, second).unwrap();
    TZ.from_local_datetime(&local).unwrap().with_timezone(&Utc)
}

/// The budget row as stored: (spent, reserved, day, day_spent, day_reserved).
async fn row(shop: &Shop, sn: &str) -> (String, String, Option<NaiveDate>, String, String) {
    let client = shop.env.db.client().await.unwrap();
    let r = client
        .query_one(
            "SELECT spent::text, reserved::text, day, day_spent::text, day_reserved::text
               FROM template_budgets WHERE template_sn = $1",
            &[&sn],
        )
        .await
        .unwrap();
    (r.get(0), r.get(1), r.get(2), r.get(3), r.get(4))
}

#[tokio::test(flavor = "multi_thread")]
async fn the_daily_budget_starts_again_at_the_business_days_start() {
    let shop = Shop::new().await;
    let today = Utc::now().with_timezone(&TZ).date_naive();
    let (d1, d2) = (today - Duration::days(3), today - Duration::days(2));
    let begin = at(d1, 0, 0, 0);
    let mut body = script::template("10.00", "restore", 100, begin, 30);
    body["budget"] = json!({"total": "100.00", "daily": "20.00"});
    let sn = shop.server.activate_template(&body).await.unwrap();
    let mut s = Script::new(&shop.env).await.unwrap();
    let mut ids = Vec::new();
    for u in ["a", "b", "c", "d", "e"] {
        ids.push(s.claim(at(d1, 9, 0, 0), &sn, u, None).await.unwrap());
    }
    // Day 1, a minute before midnight: the day's 20.00 are gone after two.
    lock(&mut s, at(d1, 23, 58, 0), "a", ids[0]).await.unwrap();
    lock(&mut s, at(d1, 23, 59, 0), "b", ids[1]).await.unwrap();
    let refused = lock(&mut s, at(d1, 23, 59, 59), "c", ids[2])
        .await
        .unwrap_err();
    assert!(refused.to_string().contains("budget"), "{refused}");
    // Day 2, one second in: the day starts again from zero.
    lock(&mut s, at(d2, 0, 0, 1), "c", ids[2]).await.unwrap();
    assert_eq!(
        row(&shop, &sn).await,
        (
            "0.00".into(),
            "30.00".into(),
            Some(d2),
            "0.00".into(),
            "10.00".into()
        )
    );
    // Day 1's orders settled on day 2 change the total's counters only.
    s.confirm(at(d2, 8, 0, 0), "o-a").await.unwrap();
    s.cancel(at(d2, 8, 0, 1), "o-b").await.unwrap();
    assert_eq!(
        row(&shop, &sn).await,
        (
            "10.00".into(),
            "10.00".into(),
            Some(d2),
            "0.00".into(),
            "10.00".into()
        )
    );
    lock(&mut s, at(d2, 9, 0, 0), "d", ids[3]).await.unwrap();
    let refused = lock(&mut s, at(d2, 9, 0, 1), "e", ids[4])
        .await
        .unwrap_err();
    assert!(refused.to_string().contains("budget"), "{refused}");
    // The day's own lock confirmed, then refunded in part; another timed out.
    s.confirm(at(d2, 10, 0, 0), "o-c").await.unwrap();
    s.refund(at(d2, 11, 0, 0), "o-c", "l1", 1).await.unwrap();
    assert_eq!(
        s.release_expired(at(d2, 0, 0, 0) + Duration::days(3))
            .await
            .unwrap(),
        1
    );
    assert_eq!(
        row(&shop, &sn).await,
        (
            "10.00".into(),
            "0.00".into(),
            Some(d2),
            "0.00".into(),
            "0.00".into()
        )
    );
    // Today the cap is whole again, whatever day 2 spent.
    let b = budget(&shop, &sn).await;
    assert_eq!(
        (&b["today"]["day"], &b["today"]["left"], &b["left"]),
        (&json!(today), &json!("20.00"), &json!("20.00"))
    );
    assert_verifies_once_caught_up(&shop.env).await;

    // A counter changed by hand is named by the replay.
    let client = shop.env.db.client().await.unwrap();
    client
        .execute(
            "UPDATE template_budgets SET spent = spent + 1 WHERE template_sn = $1",
            &[&sn],
        )
        .await
        .unwrap();
    let (code, out) = tests::workers::replay_both_ways(&shop.env, &["replay", "--verify"]).await;
    assert_eq!(code, Some(1), "{out}");
    assert!(
        out.contains(&format!("template_budgets \"{sn}\" spent")),
        "{out}"
    );
}

#[tokio::test]
async fn bad_budgets_are_refused_naming_the_field() {
    let shop = Shop::new().await;
    for (budget, field) in [
        (json!({"total": "0"}), "budget.total"),
        (json!({"total": "-5.00"}), "budget.total"),
        (json!({"total": "10.001"}), "budget.total"),
        (json!({"total": 10}), "budget"),
        (json!({"total": "10.00", "daily": "11.00"}), "budget.daily"),
        (json!({"total": "10.00", "daily": "0.00"}), "budget.daily"),
        (json!({"total": "10.00", "weekly": "1.00"}), "budget"),
        (json!("lots"), "budget"),
    ] {
        let (status, body) = shop
            .server
            .admin_post("/v1/templates", &budgeted(budget.clone()))
            .await
            .unwrap();
        let message = body["error"]["message"].as_str().unwrap_or("");
        assert_eq!(status, 400, "{budget}: {body}");
        assert!(message.contains(field), "{budget}: {message}");
    }
    let t = shop
        .template(&budgeted(json!({"total": "50.00", "daily": "10.00"})))
        .await;
    for (change, status, expected) in [
        (json!({"budget": null}), 400, "budget"),
        (json!({"budget": {"total": "0"}}), 400, "budget.total"),
        (
            json!({"budget": {"total": "50.00", "daily": "5.00"}}),
            409,
            "budget.daily",
        ),
    ] {
        let (got, body) = patch(&shop, &t.0, &change).await;
        let message = body["error"]["message"].as_str().unwrap_or("");
        assert_eq!(got, status, "{change}: {body}");
        assert!(message.contains(expected), "{change}: {message}");
    }
    assert_eq!(
        budget(&shop, &t.0).await["total"],
        "50.00",
        "nothing changed"
    );
}
