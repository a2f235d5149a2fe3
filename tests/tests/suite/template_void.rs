//! Voiding a template voids its coupons (docs/design.md §15), over real
//! Postgres and RabbitMQ: VOID_COUPONS unused coupons (20,000 in CI; the
//! benchmark's 100,000 in docs/benchmarks.md) voided while 50 locked ones
//! are confirmed and cancelled at the same moment. Heavy: ignored in the
//! parallel run, run alone by `scripts/test`.

use std::collections::HashMap;
use std::time::Duration;

use serde_json::json;
use tests::bench::env_number;
use tests::reminder_days::lock;

/// 200,000 events through the notify projection and the others: about a
/// minute on an idle machine, several on a loaded one (a run once took more
/// than two).
const CATCH_UP: Duration = Duration::from_secs(420);
use tests::reminders::{issue_for, notify_caught_up, pool, send_at};
use tests::workers::{Workers, projections_caught_up, replay_both_ways};
use tests::{Env, Server, template_body};

const LOCKED: usize = 50;

/// VOID_COUPONS: 20,000 in CI, the benchmark's 100,000 in docs/benchmarks.md.
fn coupons() -> usize {
    env_number("VOID_COUPONS", 20_000) as usize
}

async fn quoted(server: &Server, user: &str) -> usize {
    let order = json!({"order_id": format!("q-{user}"), "user_id": user, "currency": "CNY",
        "lines": [{"line_id": "l1", "sku": "s1", "category": "c1", "quantity": 1,
                   "unit_price": "150.00"}]});
    let body = json!({"user_id": user, "order": order});
    let (status, q) = server
        .service_post("/v1/orders/quote", &body)
        .await
        .unwrap();
    assert_eq!(status, 200, "{q}");
    q["coupons"].as_array().unwrap().len()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
#[ignore = "heavy: scripts/test runs it alone, after the parallel suite"]
async fn voiding_a_template_voids_every_unused_coupon_once_and_locked_ones_follow_their_order() {
    let env = Env::new().await.unwrap();
    let server = Server::start(&env).await.unwrap();
    let pool = pool(&env, 4).unwrap();
    let sn = server
        .activate_template(&template_body(coupons() as i64, 1))
        .await
        .unwrap();
    let users: Vec<String> = (0..coupons()).map(|i| format!("v{i}")).collect();
    let ids = issue_for(&pool, &sn, &users).await.unwrap();
    let workers = Workers::start(&env, "relay,balances,template_stats,notify,scanner").unwrap();
    let mut orders = Vec::new();
    for i in 0..LOCKED {
        orders.push(lock(&server, &users[i], ids[i]).await);
    }
    assert_eq!(quoted(&server, "v100").await, 1, "offered before the void");

    // The void, the 25 confirms and the 25 cancels, all at once.
    let (void_path, empty) = (format!("/v1/templates/{sn}/void"), json!({}));
    let void = server.admin_post(&void_path, &empty);
    let settles = orders.iter().enumerate().map(|(i, order)| {
        let action = if i % 2 == 0 { "confirm" } else { "cancel" };
        let path = format!("/v1/orders/{order}/{action}");
        let server = &server;
        async move { server.service_post(&path, &json!({})).await.unwrap() }
    });
    let (voided, settled) = tokio::join!(void, futures_util::future::join_all(settles));
    let (status, answer) = voided.unwrap();
    assert_eq!(status, 200, "{answer}");
    for (status, answer) in settled {
        assert_eq!(
            status, 200,
            "a confirm still succeeds, a cancel too: {answer}"
        );
    }
    for user in ["v100", "v5000", "v99999"] {
        assert_eq!(quoted(&server, user).await, 0, "never offered once void");
    }

    let mut left = i64::MAX;
    // About 1,000 coupons a second on two cores, beside the projections.
    for _ in 0..2_000 {
        let (status, template) = server
            .admin_get(&format!("/v1/templates/{sn}"))
            .await
            .unwrap();
        assert_eq!(status, 200, "{template}");
        left = template["unused_left"].as_i64().unwrap();
        if left == 0 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    assert_eq!(left, 0, "the scanner voids what the request did not");
    assert_statuses(&env, &sn).await;
    assert_each_voided_once_with_its_cause(&env, &sn).await;

    notify_caught_up(&env, CATCH_UP).await.unwrap();
    let report = send_at(&env, &pool, chrono::Utc::now() + chrono::Duration::days(8))
        .await
        .unwrap();
    assert_eq!(
        report.messages, 0,
        "nothing reminded of void or used coupons: {report:?}"
    );

    let (status, liability) = server
        .admin_get("/v1/reports/liability?as_of=now&by=template")
        .await
        .unwrap();
    assert_eq!(status, 200, "{liability}");
    let row = liability["rows"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["group"] == sn.as_str())
        .cloned()
        .unwrap();
    assert_eq!(
        (row["unused"].as_i64(), row["locked"].as_i64()),
        (Some(0), Some(0)),
        "{row}"
    );
    assert_eq!(row["face_value_outstanding"], "0.00", "{row}");
    assert_eq!(
        row["void"].as_i64(),
        Some((coupons() - LOCKED / 2) as i64),
        "{row}"
    );
    projections_caught_up(&env, CATCH_UP).await.unwrap();
    workers.terminate().await.unwrap();
    let (code, stdout) = replay_both_ways(&env, &["replay", "--verify"]).await;
    assert_eq!(code, Some(0), "{stdout}");
}

/// The confirmed coupons are used; every other coupon is void.
async fn assert_statuses(env: &Env, sn: &str) {
    let client = env.db.client().await.unwrap();
    let rows = client
        .query(
            "SELECT status, count(*) FROM coupons WHERE template_sn = $1 GROUP BY status",
            &[&sn],
        )
        .await
        .unwrap();
    let counts: HashMap<String, i64> = rows.iter().map(|r| (r.get(0), r.get(1))).collect();
    let want = HashMap::from([
        ("used".to_owned(), (LOCKED / 2) as i64),
        ("void".to_owned(), (coupons() - LOCKED / 2) as i64),
    ]);
    assert_eq!(counts, want);
}

/// One `CouponVoided` per void coupon; those the batches wrote name the
/// template's void event as their cause and share its correlation id.
async fn assert_each_voided_once_with_its_cause(env: &Env, sn: &str) {
    let client = env.db.client().await.unwrap();
    let row = client
        .query_one(
            "SELECT count(*), count(DISTINCT stream_id) FROM events WHERE event_type = 'CouponVoided'",
            &[],
        )
        .await
        .unwrap();
    let (events, streams): (i64, i64) = (row.get(0), row.get(1));
    assert_eq!(
        (events, streams),
        (
            (coupons() - LOCKED / 2) as i64,
            (coupons() - LOCKED / 2) as i64
        )
    );
    let cause = client
        .query_one(
            "SELECT event_id::text, metadata->>'correlation_id' FROM events
              WHERE stream_id = $1 AND event_type = 'TemplateVoided'",
            &[&format!("template-{sn}")],
        )
        .await
        .unwrap();
    let (event_id, correlation): (String, String) = (cause.get(0), cause.get(1));
    let row = client
        .query_one(
            "SELECT count(*) FILTER (WHERE metadata->>'causation_id' = $1
                                       AND metadata->>'correlation_id' = $2),
                    count(*) FROM events
              WHERE event_type = 'CouponVoided' AND metadata->>'actor' = 'system:void'",
            &[&event_id, &correlation],
        )
        .await
        .unwrap();
    let (caused, batched): (i64, i64) = (row.get(0), row.get(1));
    assert_eq!(
        caused, batched,
        "every batch void names the template's event"
    );
    assert!(batched >= (coupons() - LOCKED) as i64, "{batched}");
}
