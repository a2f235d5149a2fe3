//! Shop coupons (店铺专属券, docs/design.md §15) over HTTP against real
//! services: a marketplace order with lines of two shops and of the
//! platform; each shop's coupon discounts its own shop's lines only (the
//! quote and the lock agree, the allocations say so), another shop's coupon
//! is not offered; the liability report by shop (CLI and API) equals the
//! table worked out by hand; replay finds no difference. Bad shops are
//! refused with a 400 naming the field.

use reqwest::Method;
use serde_json::{Value, json};
use tests::shop::{Shop, fixed_off, template};
use tests::workers::{assert_verifies_once_caught_up, ledger};

/// A goods template of `shop` (None: the platform's), fixed `amount` off
/// `threshold`, stackable.
fn of_shop(shop: Option<&str>, threshold: &str, amount: &str) -> Value {
    let mut body = template(
        "goods",
        fixed_off(threshold, amount),
        "stackable",
        "restore",
    );
    if let Some(shop) = shop {
        body["shop_id"] = json!(shop);
    }
    body
}

/// An order of `(shop, quantity, unit price)` lines `l1, l2, …`.
fn marketplace(id: &str, user: &str, lines: &[(Option<&str>, u32, &str)]) -> Value {
    let lines: Vec<Value> = lines
        .iter()
        .enumerate()
        .map(|(i, (shop, quantity, price))| {
            let mut line = json!({"line_id": format!("l{}", i + 1), "sku": format!("sku-{i}"),
                "category": "c-1", "quantity": quantity, "unit_price": price});
            if let Some(shop) = shop {
                line["shop_id"] = json!(shop);
            }
            line
        })
        .collect();
    json!({"order_id": id, "user_id": user, "currency": "CNY", "lines": lines,
        "shipping_fee": "0.00"})
}

/// `(coupon, line, amount)` of a lock's answer, in its order.
fn allocations(locked: &Value) -> Vec<(String, String, String)> {
    locked["allocations"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| {
            let s = |k: &str| a[k].as_str().unwrap().to_owned();
            (s("coupon_id"), s("line_id"), s("amount"))
        })
        .collect()
}

/// The report's rows by group: issued, unused, used, outstanding, cost.
type Row = (i64, i64, i64, String, String);

fn rows(body: &Value) -> Vec<(String, Row)> {
    body["rows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            let n = |k: &str| r[k].as_i64().unwrap();
            let s = |k: &str| r[k].as_str().unwrap().to_owned();
            let row = (
                n("issued"),
                n("unused"),
                n("used"),
                s("face_value_outstanding"),
                s("cost"),
            );
            (s("group"), row)
        })
        .collect()
}

fn row(issued: i64, unused: i64, used: i64, outstanding: &str, cost: &str) -> Row {
    (issued, unused, used, outstanding.into(), cost.into())
}

#[tokio::test(flavor = "multi_thread")]
async fn a_shop_coupon_discounts_only_its_shop_lines_and_liability_groups_by_shop() {
    let shop = Shop::new().await;
    // Shop A: 15 off 100 of A's lines; shop B: 10 off 50 of B's; shop C:
    // 8 off anything of C's; the platform: 5 off anything.
    let a = shop
        .template(&of_shop(Some("shop-a"), "100.00", "15.00"))
        .await;
    let b = shop
        .template(&of_shop(Some("shop-b"), "50.00", "10.00"))
        .await;
    let c = shop
        .template(&of_shop(Some("shop-c"), "0.00", "8.00"))
        .await;
    let p = shop.template(&of_shop(None, "0.00", "5.00")).await;
    let read = shop
        .server
        .admin(Method::GET, &format!("/v1/templates/{}", a.0))
        .send()
        .await
        .unwrap();
    assert_eq!(read.status().as_u16(), 200);
    let read: Value = read.json().await.unwrap();
    assert_eq!(read["shop_id"], "shop-a", "{read}");
    assert_eq!(
        read["use_scope"],
        json!([{"kind": "shop", "values": ["shop-a"]}]),
        "{read}"
    );
    let (ca, cb, cc, cp) = (
        shop.coupon(&a, "u1").await,
        shop.coupon(&b, "u1").await,
        shop.coupon(&c, "u1").await,
        shop.coupon(&p, "u1").await,
    );

    // Shop A sells 60.00 + 2 × 20.00, shop B 30.00, the platform 50.00:
    // 180.00 in all, of which A's 100.00 meets A's threshold and B's 30.00
    // misses B's 50.00 (the order's 180.00 would not).
    let o1 = marketplace(
        "o-1",
        "u1",
        &[
            (Some("shop-a"), 1, "60.00"),
            (Some("shop-a"), 2, "20.00"),
            (Some("shop-b"), 1, "30.00"),
            (None, 1, "50.00"),
        ],
    );
    let (status, quote) = shop
        .post("/v1/orders/quote", &json!({"user_id": "u1", "order": o1}))
        .await;
    assert_eq!(status, 200, "{quote}");
    let offered: Vec<(String, bool, String)> = quote["coupons"]
        .as_array()
        .unwrap()
        .iter()
        .map(|q| {
            let reason = q["reason"].as_str().unwrap_or("").to_owned();
            let id = q["coupon_id"].as_str().unwrap().to_owned();
            let discount = q["discount"].as_str().unwrap().to_owned();
            (
                id,
                q["usable"].as_bool().unwrap(),
                format!("{discount} {reason}"),
            )
        })
        .collect();
    let find = |id: &str| {
        offered
            .iter()
            .find(|q| q.0 == id)
            .map(|q| (q.1, q.2.trim()))
    };
    assert_eq!(find(&ca), Some((true, "15.00")), "{quote}");
    assert_eq!(find(&cb), Some((false, "0.00 below_threshold")), "{quote}");
    assert_eq!(find(&cp), Some((true, "5.00")), "{quote}");
    // No line of shop C: its coupon is not even a candidate.
    assert_eq!(find(&cc), None, "{quote}");
    assert_eq!(
        (
            quote["best"]["discount"].as_str(),
            quote["best"]["payable"].as_str()
        ),
        (Some("20.00"), Some("160.00")),
        "{quote}"
    );

    let (status, locked) = shop.lock(&o1, &[&ca, &cp], "160.00").await;
    assert_eq!(status, 200, "{locked}");
    let part = |coupon: &str, line: &str, amount: &str| {
        (coupon.to_owned(), line.to_owned(), amount.to_owned())
    };
    assert_eq!(
        allocations(&locked),
        vec![
            // A's 15.00 over A's 60.00 and 40.00 only.
            part(&ca, "l1", "9.00"),
            part(&ca, "l2", "6.00"),
            // The platform's 5.00 over what is left of every line (51.00,
            // 34.00, 30.00, 50.00 of 165.00): 1.545, 1.030, 0.909, 1.515,
            // the two cents left to the largest remainders (l3, l1).
            part(&cp, "l1", "1.55"),
            part(&cp, "l2", "1.03"),
            part(&cp, "l3", "0.91"),
            part(&cp, "l4", "1.51"),
        ]
    );
    let confirmed = shop.post("/v1/orders/o-1/confirm", &json!({})).await;
    assert_eq!(confirmed.0, 200, "{}", confirmed.1);

    // Another user's B coupon on B's 60.00 and A's 10.00: 10 off B's line.
    let b2 = shop.coupon(&b, "u2").await;
    let o2 = marketplace(
        "o-2",
        "u2",
        &[(Some("shop-b"), 1, "60.00"), (Some("shop-a"), 1, "10.00")],
    );
    let (status, locked) = shop.lock(&o2, &[&b2], "60.00").await;
    assert_eq!(status, 200, "{locked}");
    assert_eq!(allocations(&locked), vec![part(&b2, "l1", "10.00")]);
    let confirmed = shop.post("/v1/orders/o-2/confirm", &json!({})).await;
    assert_eq!(confirmed.0, 200, "{}", confirmed.1);

    // By hand: A's coupon used (cost 15.00); B's two, one unused (10.00
    // owed), one used (cost 10.00); C's unused (8.00 owed); the platform's
    // used (cost 5.00).
    let expected = vec![
        ("(platform)".to_owned(), row(1, 0, 1, "0.00", "5.00")),
        ("shop-a".to_owned(), row(1, 0, 1, "0.00", "15.00")),
        ("shop-b".to_owned(), row(2, 1, 1, "10.00", "10.00")),
        ("shop-c".to_owned(), row(1, 1, 0, "8.00", "0.00")),
        ("total".to_owned(), row(5, 2, 3, "18.00", "30.00")),
    ];
    let out = ledger(
        &shop.env,
        &[
            "report",
            "liability",
            "--as-of",
            "now",
            "--by",
            "shop",
            "--format",
            "json",
        ],
    )
    .await
    .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let cli: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(cli["by"], "shop");
    assert_eq!(rows(&cli), expected, "{cli}");

    let api = shop
        .server
        .admin(Method::GET, "/v1/reports/liability?as_of=now&by=shop")
        .send()
        .await
        .unwrap();
    assert_eq!(api.status().as_u16(), 200);
    let api: Value = api.json().await.unwrap();
    assert_eq!((api["by"].as_str(), rows(&api)), (Some("shop"), expected));
    let csv = shop
        .server
        .admin(
            Method::GET,
            "/v1/reports/liability?as_of=now&by=shop&format=csv",
        )
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    assert!(
        csv.contains("\nshop-b,2,1,0,1,0,0,0,10.00,10.00\n"),
        "{csv}"
    );

    assert_verifies_once_caught_up(&shop.env).await;
}

#[tokio::test]
async fn bad_shops_are_refused_naming_the_field() {
    let shop = Shop::new().await;
    let refused = |status: u16, body: &Value, field: &str| {
        assert_eq!(status, 400, "{body}");
        let message = body["error"]["message"].as_str().unwrap();
        assert!(
            message.starts_with(&format!("{field}: ")),
            "{field}: {body}"
        );
    };
    for bad in ["", "two words", "(platform)", "total", &"x".repeat(65)] {
        let (status, body) = shop
            .server
            .admin_post("/v1/templates", &of_shop(Some(bad), "0.00", "1.00"))
            .await
            .unwrap();
        refused(status, &body, "shop_id");
    }
    // A shop's template may list its own shop, no other.
    let mut body = of_shop(Some("shop-a"), "0.00", "1.00");
    body["use_scope"] = json!([{"kind": "shop", "values": ["shop-a", "shop-b"]}]);
    let (status, answer) = shop
        .server
        .admin_post("/v1/templates", &body)
        .await
        .unwrap();
    refused(status, &answer, "use_scope");
    body["use_scope"] = json!([{"kind": "shop", "values": ["shop-a"]},
        {"kind": "category", "values": ["c-1"]}]);
    let (status, answer) = shop
        .server
        .admin_post("/v1/templates", &body)
        .await
        .unwrap();
    assert_eq!(status, 201, "{answer}");
    let sn = answer["sn"].as_str().unwrap().to_owned();
    let mut body = of_shop(None, "0.00", "1.00");
    body["use_scope"] = json!([{"kind": "shop", "values": ["ok", "not ok"]}]);
    let (status, answer) = shop
        .server
        .admin_post("/v1/templates", &body)
        .await
        .unwrap();
    refused(status, &answer, "use_scope[0].values[1]");
    // A template's shop is fixed once it is created.
    let patch = shop
        .server
        .admin(Method::PATCH, &format!("/v1/templates/{sn}"))
        .json(&json!({"shop_id": "shop-b"}))
        .send()
        .await
        .unwrap();
    assert_eq!(patch.status().as_u16(), 409);

    let mut order = marketplace(
        "o-bad",
        "u1",
        &[(Some("shop-a"), 1, "1.00"), (None, 1, "1.00")],
    );
    for bad in [json!("two words"), json!(""), json!(7)] {
        order["lines"][1]["shop_id"] = bad.clone();
        let (status, body) = shop
            .post(
                "/v1/orders/quote",
                &json!({"user_id": "u1", "order": order}),
            )
            .await;
        if bad.is_string() {
            refused(status, &body, "order.lines[1].shop_id");
        } else {
            // Not a string at all: the JSON's shape is refused, still a 400.
            assert_eq!(status, 400, "{body}");
        }
    }
}
