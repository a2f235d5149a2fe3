//! Refunds over HTTP against real services: the seed documents' refund
//! sequence under both policies, and a stacked order refunded line by line
//! to exactly what was paid.

use serde_json::json;
use tests::shop::{Shop, fixed_off, order, template};

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

/// A reissue replaces a refunded coupon as it was: its validity and its
/// channel (finance files the new coupon's cost where the first was given).
/// One that expired before the refund is refunded, not replaced, and the
/// answer says so.
#[tokio::test]
async fn a_reissued_coupon_keeps_its_validity_and_channel_and_an_expired_one_is_not_reissued() {
    let shop = Shop::new().await;
    let now = chrono::Utc::now();
    let lapse_at = now + chrono::Duration::seconds(8);
    let mut body = template("goods", fixed_off("5.00", "1.00"), "stackable", "reissue");
    body["validity"] = json!({"type": "absolute",
        "begin": now - chrono::Duration::hours(1), "end": lapse_at});
    let t = shop.template(&body).await;
    let keeps = shop.coupon(&t, "kim").await;
    let lapses = shop.coupon(&t, "lee").await;
    for (coupon, user) in [(&keeps, "kim"), (&lapses, "lee")] {
        let o = order(user, user, &[("l1", 5, "2.00")], "0.00");
        assert_eq!(shop.lock(&o, &[coupon], "9.00").await.0, 200);
        let confirm = format!("/v1/orders/{user}/confirm");
        assert_eq!(shop.post(&confirm, &json!({})).await.0, 200);
    }
    let all = json!({"refund_id": "r1", "lines": [{"line_id": "l1", "quantity": 5}]});
    let (status, answer) = shop.post("/v1/orders/kim/refunds", &all).await;
    assert_eq!(status, 200, "{answer}");
    assert_eq!(answer["coupons_not_reissued"], json!([]));
    let new = answer["coupons_reissued"][0]["to"].as_str().unwrap();
    let server = &shop.server;
    let view = |id: String| async move {
        server
            .service_get(&format!("/v1/coupons/{id}"))
            .await
            .unwrap()
            .1
    };
    let (old, new) = (view(keeps.clone()).await, view(new.to_owned()).await);
    for field in ["effective_at", "expires_at", "channel_id"] {
        assert_eq!(new[field], old[field], "{field}: {new}");
    }
    assert_eq!(new["channel_id"], json!(t.1.id));
    // Finance files the replacement under the channel that gave the first:
    // three coupons issued there (kim's, lee's, kim's replacement), kim's
    // refunded and its cost reversed, lee's used (1.00), the replacement
    // outstanding at its face value.
    let path = "/v1/reports/liability?as_of=now&by=channel";
    let r = server
        .admin(reqwest::Method::GET, path)
        .send()
        .await
        .unwrap();
    let report: serde_json::Value = r.json().await.unwrap();
    let rows = report["rows"].as_array().unwrap();
    let row = rows.iter().find(|r| r["group"] == json!(t.1.id)).unwrap();
    let counts = ["issued", "unused", "used", "refunded"].map(|k| row[k].as_i64().unwrap());
    assert_eq!(counts, [3, 1, 1, 1], "{row}");
    assert_eq!(
        (row["face_value_outstanding"].as_str(), row["cost"].as_str()),
        (Some("1.00"), Some("1.00")),
        "{row}"
    );

    tokio::time::sleep((lapse_at - chrono::Utc::now()).to_std().unwrap_or_default()).await;
    tokio::time::sleep(std::time::Duration::from_millis(500)).await;
    let (status, answer) = shop.post("/v1/orders/lee/refunds", &all).await;
    assert_eq!(status, 200, "{answer}");
    assert_eq!(answer["coupons_reissued"], json!([]));
    assert_eq!(
        answer["coupons_not_reissued"],
        json!([{"coupon_id": lapses, "reason": "expired"}])
    );
    assert_eq!(shop.status(&lapses).await, "refunded");
    shop.assert_history_replays(&lapses).await;
}
