//! Wallets as apps list them (docs/design.md §20, "Wallets"): sorted by
//! issue, expiry or face value either way, keyset-paged so that every coupon
//! shows once in order; filtered to what is usable at an instant or expires
//! soon; `locked_at` and `used_at` on the coupons they apply to; and the
//! balance's `expiring_soon`, each checked against SQL over `coupons`.

use std::collections::HashSet;

use chrono::{DateTime, Duration, Utc};
use serde_json::{Value, json};
use tests::scenario::{checkout, claim_many_for};
use tests::{Env, Server, template_body};
use uuid::Uuid;

const USER: &str = "w1";

/// Ten templates (face values 5 to 20, so values tie across templates;
/// validity 1 to 10 days) of 100 coupons each for `USER`: 1,000 coupons.
async fn wallet_of_a_thousand(env: &Env, server: &Server) -> Vec<String> {
    let mut sns = vec![];
    for i in 0..10 {
        let mut body = template_body(100, 100);
        let amount = format!("{}.00", (i % 4 + 1) * 5);
        body["discount"] = json!({"type": "fixed_off", "threshold": "100.00", "amount": amount});
        body["validity"] = json!({"type": "relative", "begin_days": 0, "end_days": i + 1});
        let sn = server.activate_template(&body).await.unwrap();
        claim_many_for(env, &sn, &[USER; 100], 100).await.unwrap();
        sns.push(sn);
    }
    sns
}

/// Every page of `query`, following `next_after`; the coupons in page order.
async fn every_page(server: &Server, query: &str) -> Vec<Value> {
    let mut coupons: Vec<Value> = vec![];
    let mut after: Option<String> = None;
    for _ in 0..100 {
        let cursor = after
            .as_ref()
            .map_or(String::new(), |a| format!("&after={a}"));
        let path = format!("/v1/users/{USER}/coupons?{query}&limit=37{cursor}");
        let (status, page) = server.service_get(&path).await.unwrap();
        assert_eq!(status, 200, "{page}");
        coupons.extend(page["coupons"].as_array().unwrap().iter().cloned());
        match page["next_after"].as_str() {
            Some(next) => after = Some(next.to_owned()),
            None => return coupons,
        }
    }
    panic!("more than 100 pages of 37");
}

fn ids(coupons: &[Value]) -> Vec<Uuid> {
    coupons
        .iter()
        .map(|c| c["id"].as_str().unwrap().parse().unwrap())
        .collect()
}

/// The user's coupon ids as SQL orders them.
async fn sql_order(env: &Env, order_by: &str) -> Vec<Uuid> {
    let sql = format!(
        "SELECT c.id FROM coupons c JOIN templates t ON t.sn = c.template_sn
          WHERE c.user_id = $1 ORDER BY {order_by}"
    );
    let client = env.db.client().await.unwrap();
    let rows = client.query(&sql, &[&USER]).await.unwrap();
    rows.iter().map(|r| r.get(0)).collect()
}

#[tokio::test]
async fn a_wallet_of_a_thousand_pages_through_every_coupon_once_in_each_order() {
    let env = Env::new().await.unwrap();
    let server = Server::start(&env).await.unwrap();
    wallet_of_a_thousand(&env, &server).await;
    let orders = [
        ("sort=expires_at", "c.expires_at, c.id"),
        ("sort=expires_at&order=desc", "c.expires_at DESC, c.id DESC"),
        ("sort=face_value&order=desc", "t.face_value DESC, c.id DESC"),
        ("sort=face_value", "t.face_value, c.id"),
        ("order=desc", "c.issued_at DESC, c.id DESC"),
    ];
    for (query, order_by) in orders {
        let shown = ids(&every_page(&server, query).await);
        assert_eq!(shown.len(), 1_000, "{query}");
        assert_eq!(
            shown.iter().collect::<HashSet<_>>().len(),
            1_000,
            "{query}: a coupon twice"
        );
        assert_eq!(shown, sql_order(&env, order_by).await, "{query}");
    }
    // The expiries as served are in order too (not only the ids).
    let by_expiry = every_page(&server, "sort=expires_at").await;
    let at = |c: &Value| {
        c["expires_at"]
            .as_str()
            .unwrap()
            .parse::<DateTime<Utc>>()
            .unwrap()
    };
    assert!(by_expiry.windows(2).all(|w| at(&w[0]) <= at(&w[1])));
}

#[tokio::test]
async fn a_cursor_keeps_its_place_while_the_wallet_grows() {
    let env = Env::new().await.unwrap();
    let server = Server::start(&env).await.unwrap();
    let sn = server.active_template(1_000, 100).await.unwrap();
    claim_many_for(&env, &sn, &[USER; 30], 30).await.unwrap();
    let path = format!("/v1/users/{USER}/coupons?limit=10");
    let (_, first) = server.service_get(&path).await.unwrap();
    assert_eq!(first["total"], 30, "{first}");
    let after = first["next_after"].as_str().unwrap().to_owned();
    // Newer coupons arrive meanwhile: they sort after the page, by issue.
    claim_many_for(&env, &sn, &[USER; 5], 5).await.unwrap();
    let rest = every_page(&server, &format!("after={after}")).await;
    let mut seen: Vec<Uuid> = ids(first["coupons"].as_array().unwrap());
    seen.extend(ids(&rest));
    assert_eq!(seen, sql_order(&env, "c.issued_at, c.id").await);
}

#[tokio::test]
async fn filters_match_sql_and_expiring_soon_matches_a_count() {
    let env = Env::new().await.unwrap();
    let server = Server::start(&env).await.unwrap();
    wallet_of_a_thousand(&env, &server).await;
    let client = env.db.client().await.unwrap();
    let now = Utc::now();
    let mut counts = vec![];
    for days in [1_i64, 3, 7] {
        let by = now + Duration::days(days);
        let row = client
            .query_one(
                "SELECT count(*), coalesce(sum(t.face_value), 0.00)::text
                   FROM coupons c JOIN templates t ON t.sn = c.template_sn
                  WHERE c.user_id = $1 AND c.status = 'unused'
                    AND c.expires_at > now() AND c.expires_at <= $2",
                &[&USER, &by],
            )
            .await
            .unwrap();
        let (count, value): (i64, String) = (row.get(0), row.get(1));
        counts.push(count);
        let path = format!("/v1/users/{USER}/balance?expiring_within_days={days}");
        let (status, balance) = server.service_get(&path).await.unwrap();
        assert_eq!(status, 200, "{balance}");
        let soon = &balance["expiring_soon"];
        assert_eq!(
            soon,
            &json!({"within_days": days, "count": count, "face_value": value})
        );
        let listed = every_page(&server, &format!("expiring_within_days={days}")).await;
        assert_eq!(listed.len() as i64, count, "days {days}");
    }
    // Validities of 1 to 10 days: a week holds some, never all.
    assert!(
        counts.is_sorted() && counts[2] > 0 && counts[2] < 1_000,
        "{counts:?}"
    );
    let (_, balance) = server
        .service_get(&format!("/v1/users/{USER}/balance"))
        .await
        .unwrap();
    assert_eq!(
        balance["expiring_soon"]["within_days"], 3,
        "the default: {balance}"
    );
    let at = now + Duration::days(5);
    let usable: i64 = client
        .query_one(
            "SELECT count(*) FROM coupons WHERE user_id = $1 AND status = 'unused'
                AND effective_at <= $2 AND expires_at > $2",
            &[&USER, &at],
        )
        .await
        .unwrap()
        .get(0);
    let query = format!(
        "usable_at={}",
        at.to_rfc3339_opts(chrono::SecondsFormat::Secs, true)
    );
    let (_, page) = server
        .service_get(&format!("/v1/users/{USER}/coupons?{query}&limit=1"))
        .await
        .unwrap();
    assert_eq!(page["total"], usable, "{page}");
}

#[tokio::test]
async fn a_coupon_says_when_it_was_locked_and_used() {
    let env = Env::new().await.unwrap();
    let server = Server::start(&env).await.unwrap();
    let sn = server.active_template(10, 3).await.unwrap();
    let ids = claim_many_for(&env, &sn, &[USER; 3], 3).await.unwrap();
    let before = Utc::now();
    checkout(&server, USER, ids[1], true).await.unwrap();
    let lock = json!({
        "order": {"order_id": "o-held", "user_id": USER, "currency": "CNY",
                  "lines": [{"line_id": "l1", "sku": "s1", "category": "c1",
                             "quantity": 1, "unit_price": "150.00"}],
                  "shipping_fee": "0.00"},
        "coupon_ids": [ids[2]], "expected_payable": "130.00"
    });
    let (status, answer) = server.service_post("/v1/orders/lock", &lock).await.unwrap();
    assert_eq!(status, 200, "{answer}");
    let (_, page) = server
        .service_get(&format!("/v1/users/{USER}/coupons"))
        .await
        .unwrap();
    let coupon = |id: Uuid| {
        page["coupons"]
            .as_array()
            .unwrap()
            .iter()
            .find(|c| c["id"] == id.to_string())
            .unwrap()
            .clone()
    };
    let stamp = |c: &Value, f: &str| c[f].as_str().map(|s| s.parse::<DateTime<Utc>>().unwrap());
    let (unused, used, locked) = (coupon(ids[0]), coupon(ids[1]), coupon(ids[2]));
    assert_eq!(
        (stamp(&unused, "locked_at"), stamp(&unused, "used_at")),
        (None, None)
    );
    assert_eq!(used["status"], "used");
    assert!(
        stamp(&used, "used_at").is_some_and(|t| t >= before),
        "{used}"
    );
    assert_eq!(locked["status"], "locked");
    assert!(
        stamp(&locked, "locked_at").is_some_and(|t| t >= before),
        "{locked}"
    );
    assert_eq!(stamp(&locked, "used_at"), None);
    let (_, one) = server
        .service_get(&format!("/v1/coupons/{}", ids[2]))
        .await
        .unwrap();
    assert_eq!(one["locked_at"], locked["locked_at"]);
}

#[tokio::test]
async fn bad_wallet_queries_are_refused_naming_the_field() {
    let env = Env::new().await.unwrap();
    let server = Server::start(&env).await.unwrap();
    let sn = server.active_template(10, 3).await.unwrap();
    claim_many_for(&env, &sn, &[USER; 3], 3).await.unwrap();
    let (_, page) = server
        .service_get(&format!("/v1/users/{USER}/coupons?sort=expires_at&limit=1"))
        .await
        .unwrap();
    let cursor = page["next_after"].as_str().unwrap().to_owned();
    let cases = [
        ("sort=price", "sort"),
        ("order=up", "order"),
        ("usable_at=tomorrow", "usable_at"),
        ("expiring_within_days=0", "expiring_within_days"),
        ("expiring_within_days=367", "expiring_within_days"),
        ("after=zz", "after"),
        // A cursor of one sort under another.
        (&*format!("sort=face_value&after={cursor}"), "after"),
        (
            &*format!("sort=expires_at&after={cursor}&offset=5"),
            "offset",
        ),
        ("limit=201", "limit"),
    ];
    for (query, field) in cases {
        let (status, body) = server
            .service_get(&format!("/v1/users/{USER}/coupons?{query}"))
            .await
            .unwrap();
        assert_eq!(status, 400, "{query}: {body}");
        let message = body["error"]["message"].as_str().unwrap();
        assert!(message.starts_with(field), "{query}: {message}");
    }
    let (status, body) = server
        .service_get(&format!("/v1/users/{USER}/balance?expiring_within_days=-1"))
        .await
        .unwrap();
    assert_eq!(status, 400, "{body}");
}
