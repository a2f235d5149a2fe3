//! Webhooks (docs/design.md §21): endpoints checked when made (URLs, the
//! SSRF guard, event types, limits), deliveries signed, per stream in
//! order, retried through a receiver's failures, worker kills and a broker
//! restart; a disabled endpoint gets nothing; a replay sends again what it
//! asks; a name resolving to loopback is refused at delivery too.

use std::collections::{HashMap, HashSet};
use std::time::{Duration, Instant};

use futures_util::StreamExt;
use serde_json::{Value, json};
use tests::broker::restart_broker;
use tests::scenario::claim_many;
use tests::webhook_receiver::{Behaviour, Received, Receiver};
use tests::workers::Workers;
use tests::{Env, Server};

const ALLOW_PRIVATE: (&str, &str) = ("LEDGER_WEBHOOK_ALLOW_PRIVATE", "true");

/// Makes an endpoint for `url` and `types`; its id and secret.
async fn endpoint(server: &Server, url: &str, types: &[&str]) -> (String, String) {
    let body = json!({"url": url, "event_types": types, "description": "test receiver"});
    let (status, made) = server.admin_post("/v1/webhooks", &body).await.unwrap();
    assert_eq!(status, 201, "{made}");
    let secret = made["secret"].as_str().unwrap().to_owned();
    assert!(secret.starts_with("whsec_"), "{made}");
    (made["id"].as_str().unwrap().to_owned(), secret)
}

async fn store_events(env: &Env) -> Vec<(String, i64)> {
    let client = env.db.client().await.unwrap();
    let rows = client
        .query(
            "SELECT event_id::text, position FROM events ORDER BY position",
            &[],
        )
        .await
        .unwrap();
    rows.iter().map(|r| (r.get(0), r.get(1))).collect()
}

/// Waits until every one of `events` was answered 2xx at least once.
async fn wait_delivered(receiver: &Receiver, events: &[(String, i64)], patience: Duration) {
    let started = Instant::now();
    loop {
        let got: HashSet<String> = receiver
            .delivered()
            .into_iter()
            .map(|r| r.event_id)
            .collect();
        let missing = events.iter().filter(|(id, _)| !got.contains(id)).count();
        if missing == 0 {
            return;
        }
        assert!(
            started.elapsed() < patience,
            "{missing} of {} events not delivered after {patience:?}",
            events.len()
        );
        tokio::time::sleep(Duration::from_millis(250)).await;
    }
}

/// Each stream's events first arrived in version order, every request was
/// signed validly, and its headers name the endpoint and the body's event.
fn assert_signed_and_in_stream_order(received: &[Received], webhook_id: &str) {
    let mut by_arrival: Vec<&Received> = received.iter().collect();
    by_arrival.sort_by_key(|r| r.number);
    let mut last_version: HashMap<String, i64> = HashMap::new();
    let mut seen = HashSet::new();
    for r in by_arrival {
        assert!(
            r.signature_valid,
            "request {} has a bad signature",
            r.number
        );
        assert_eq!(r.webhook_id, webhook_id);
        assert_eq!(r.event["event_id"].as_str(), Some(r.event_id.as_str()));
        if !seen.insert(r.event_id.clone()) {
            continue;
        }
        let stream = r.event["stream_id"].as_str().unwrap().to_owned();
        let version = r.event["stream_version"].as_i64().unwrap();
        let before = last_version.insert(stream.clone(), version).unwrap_or(0);
        assert!(
            version > before,
            "stream {stream}: version {version} arrived after {before}"
        );
    }
}

#[tokio::test]
async fn endpoints_are_checked_when_made_and_private_addresses_are_refused() {
    let env = Env::new().await.unwrap();
    let server = Server::start(&env).await.unwrap();
    for (url, names) in [
        ("http://1.1.1.1/hook", "must be https"),
        ("https://127.0.0.1/hook", "private"),
        ("https://169.254.169.254/latest/meta-data", "private"),
        ("https://[::1]/hook", "private"),
        ("https://localhost/hook", "resolves to"),
        ("https://user:pw@1.1.1.1/hook", "credentials"),
        ("not a url", "url"),
    ] {
        let body = json!({"url": url, "event_types": ["*"]});
        let (status, answer) = server.admin_post("/v1/webhooks", &body).await.unwrap();
        let message = answer["error"]["message"].as_str().unwrap_or_default();
        assert_eq!(status, 400, "{url}: {answer}");
        assert!(
            message.starts_with("url: ") && message.contains(names),
            "{url}: {message}"
        );
    }
    for (body, field) in [
        (
            json!({"url": "https://1.1.1.1/h", "event_types": ["CouponEaten"]}),
            "event_types",
        ),
        (
            json!({"url": "https://1.1.1.1/h", "event_types": []}),
            "event_types",
        ),
        (
            json!({"url": "https://1.1.1.1/h", "event_types": ["*", "CouponUsed"]}),
            "event_types",
        ),
        (
            json!({"url": "https://1.1.1.1/h", "event_types": ["*"], "retry_hours": 0}),
            "retry_hours",
        ),
        (
            json!({"url": "https://1.1.1.1/h", "event_types": ["*"], "retry_hours": 169}),
            "retry_hours",
        ),
        (
            json!({"url": "https://1.1.1.1/h", "event_types": ["*"], "description": "x".repeat(501)}),
            "description",
        ),
    ] {
        let (status, answer) = server.admin_post("/v1/webhooks", &body).await.unwrap();
        let message = answer["error"]["message"].as_str().unwrap_or_default();
        assert_eq!(status, 400, "{body}: {answer}");
        assert!(message.starts_with(field), "{body}: {message}");
    }
    let (id, first) = endpoint(
        &server,
        "https://1.1.1.1/hook",
        &["CouponUsed", "CouponIssued"],
    )
    .await;
    let (status, read) = server
        .admin_get(&format!("/v1/webhooks/{id}"))
        .await
        .unwrap();
    assert_eq!(status, 200);
    assert_eq!(read["event_types"], json!(["CouponIssued", "CouponUsed"]));
    assert_eq!(
        read["retry_hours"], 24,
        "LEDGER_WEBHOOK_RETRY_HOURS' default"
    );
    assert!(
        !read.to_string().contains(&first),
        "a read never shows the secret"
    );
    let change = json!({"event_types": ["*"], "retry_hours": 2, "description": null});
    let path = format!("/v1/webhooks/{id}");
    let answer = server
        .admin(reqwest::Method::PATCH, &path)
        .json(&change)
        .send()
        .await
        .unwrap();
    assert_eq!(answer.status(), 200);
    let changed: Value = answer.json().await.unwrap();
    assert_eq!(
        (
            changed["event_types"].clone(),
            changed["retry_hours"].clone()
        ),
        (json!(["*"]), json!(2))
    );
    assert_eq!(changed["description"], Value::Null);
    let (status, rotated) = server
        .admin_post(
            &format!("/v1/webhooks/{id}/secret"),
            &json!({"overlap_secs": 60}),
        )
        .await
        .unwrap();
    assert_eq!(status, 200, "{rotated}");
    assert_ne!(rotated["secret"].as_str(), Some(first.as_str()));
    let (_, read) = server.admin_get(&path).await.unwrap();
    assert!(read["previous_secret_valid_until"].is_string(), "{read}");
    // At most 100 endpoints.
    for _ in 1..100 {
        endpoint(&server, "https://1.1.1.1/hook", &["*"]).await;
    }
    let body = json!({"url": "https://1.1.1.1/hook", "event_types": ["*"]});
    let (status, answer) = server.admin_post("/v1/webhooks", &body).await.unwrap();
    assert_eq!(
        (status, answer["error"]["code"].as_str()),
        (409, Some("too_many_webhooks"))
    );
    let (_, list) = server.admin_get("/v1/webhooks").await.unwrap();
    assert_eq!(list["webhooks"].as_array().unwrap().len(), 100);
}

#[tokio::test]
async fn a_name_resolving_to_loopback_is_refused_at_delivery() {
    let env = Env::new().await.unwrap();
    // Made where private addresses were allowed, delivered where they are not.
    let server = Server::start_with(&env, &[ALLOW_PRIVATE]).await.unwrap();
    let receiver = Receiver::start(Behaviour::default()).await.unwrap();
    let port = receiver.url.rsplit(':').next().unwrap();
    let url = format!("https://localhost:{port}");
    let (id, _) = endpoint(&server, &url, &["*"]).await;
    let _workers = Workers::start(&env, "webhooks").unwrap();
    let sn = server.active_template(10, 1).await.unwrap();
    claim_many(&env, &sn, 0..3, 3).await.unwrap();
    let path = format!("/v1/webhooks/{id}/deliveries?status=pending");
    let started = Instant::now();
    let errors = loop {
        let (_, list) = server.admin_get(&path).await.unwrap();
        let tried: Vec<String> = list["deliveries"]
            .as_array()
            .unwrap()
            .iter()
            .filter_map(|d| d["last_error"].as_str().map(str::to_owned))
            .collect();
        if tried.len() >= 3 {
            break tried;
        }
        assert!(
            started.elapsed() < Duration::from_secs(30),
            "no attempt: {list}"
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
    };
    assert!(
        errors.iter().all(|e| e.contains("resolves to 127.0.0.1")),
        "{errors:?}"
    );
    assert!(
        receiver.received().is_empty(),
        "nothing reached the receiver"
    );
}

#[tokio::test]
async fn disabled_endpoints_get_nothing_and_a_replay_sends_again_what_it_asks() {
    let env = Env::new().await.unwrap();
    let server = Server::start_with(&env, &[ALLOW_PRIVATE]).await.unwrap();
    let (kept, off) = (
        Receiver::start(Behaviour::default()).await.unwrap(),
        Receiver::start(Behaviour::default()).await.unwrap(),
    );
    let (kept_id, secret) = endpoint(&server, &kept.url, &["CouponIssued"]).await;
    kept.trust(&secret);
    let (off_id, _) = endpoint(&server, &off.url, &["*"]).await;
    let path = format!("/v1/webhooks/{off_id}/disable");
    let (status, disabled) = server.admin_post(&path, &json!({})).await.unwrap();
    assert_eq!((status, disabled["enabled"].clone()), (200, json!(false)));
    let vars = [ALLOW_PRIVATE];
    let workers = Workers::start_setting(&env, "webhooks", &[], &vars).unwrap();
    let sn = server.active_template(1_000, 1).await.unwrap();
    claim_many(&env, &sn, 0..200, 50).await.unwrap();
    let issued: Vec<(String, i64)> = {
        let client = env.db.client().await.unwrap();
        let sql = "SELECT event_id::text, position FROM events
                    WHERE event_type = 'CouponIssued' ORDER BY position";
        let rows = client.query(sql, &[]).await.unwrap();
        rows.iter().map(|r| (r.get(0), r.get(1))).collect()
    };
    assert_eq!(issued.len(), 200);
    wait_delivered(&kept, &issued, Duration::from_secs(60)).await;
    let received = kept.received();
    assert!(
        received
            .iter()
            .all(|r| r.event["event_type"] == "CouponIssued")
    );
    assert_signed_and_in_stream_order(&received, &kept_id);
    tokio::time::sleep(Duration::from_secs(1)).await;
    assert!(
        off.received().is_empty(),
        "the disabled endpoint got {}",
        off.received().len()
    );

    // A replay from the 150th coupon's position sends those 51 again.
    let from = issued[149].1;
    let path = format!("/v1/webhooks/{kept_id}/replay");
    let (status, queued) = server
        .admin_post(&path, &json!({"from_position": from}))
        .await
        .unwrap();
    assert_eq!(status, 202, "{queued}");
    let again: HashSet<&str> = issued[149..].iter().map(|(id, _)| id.as_str()).collect();
    let started = Instant::now();
    loop {
        let delivered = kept.delivered();
        let twice = again
            .iter()
            .filter(|id| delivered.iter().filter(|r| r.event_id == **id).count() >= 2)
            .count();
        let earlier_twice = delivered
            .iter()
            .filter(|r| !again.contains(r.event_id.as_str()))
            .count();
        assert_eq!(
            earlier_twice, 149,
            "a replay from a position sends nothing before it"
        );
        if twice == again.len() {
            break;
        }
        assert!(
            started.elapsed() < Duration::from_secs(30),
            "{twice} of 51 sent again"
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    let (_, read) = server
        .admin_get(&format!("/v1/webhooks/{kept_id}"))
        .await
        .unwrap();
    assert_eq!(read["deliveries"]["delivered"], 200, "{read}");
    drop(workers);
}

#[tokio::test]
async fn during_a_rotation_both_secrets_sign() {
    let env = Env::new().await.unwrap();
    let server = Server::start_with(&env, &[ALLOW_PRIVATE]).await.unwrap();
    let new_side = Receiver::start(Behaviour::default()).await.unwrap();
    let (id, old) = endpoint(&server, &new_side.url, &["*"]).await;
    let path = format!("/v1/webhooks/{id}/secret");
    let (_, rotated) = server
        .admin_post(&path, &json!({"overlap_secs": 3600}))
        .await
        .unwrap();
    let new = rotated["secret"].as_str().unwrap();
    new_side.trust(new);
    let _workers = Workers::start_setting(&env, "webhooks", &[], &[ALLOW_PRIVATE]).unwrap();
    let sn = server.active_template(10, 1).await.unwrap();
    claim_many(&env, &sn, 0..5, 5).await.unwrap();
    let events = store_events(&env).await;
    wait_delivered(
        &new_side,
        &events[events.len() - 5..],
        Duration::from_secs(30),
    )
    .await;
    let got = new_side.received();
    assert!(
        got.iter().all(|r| r.signature_valid),
        "the new secret alone verifies"
    );
    // The old secret alone verifies too: the header carries one v1 per
    // secret. A receiver trusting only it takes the endpoint's URL.
    let checker = Receiver::start(Behaviour::default()).await.unwrap();
    checker.trust(&old);
    let change = json!({"url": checker.url});
    let answer = server
        .admin(reqwest::Method::PATCH, &format!("/v1/webhooks/{id}"))
        .json(&change)
        .send()
        .await
        .unwrap();
    assert_eq!(answer.status(), 200);
    // The sender reads endpoints again every second.
    tokio::time::sleep(Duration::from_millis(1_500)).await;
    claim_many(&env, &sn, 5..6, 1).await.unwrap();
    let events = store_events(&env).await;
    wait_delivered(
        &checker,
        &events[events.len() - 1..],
        Duration::from_secs(30),
    )
    .await;
    assert!(
        checker.received().iter().all(|r| r.signature_valid),
        "the old secret verifies"
    );
}

/// Delivered rows are kept a week, then pruned; the sender's pruning
/// runs a statement Postgres must type (a bare `$1 - interval` once read
/// `$1` as an interval and failed the sender every minute).
#[tokio::test]
async fn delivered_rows_are_pruned_after_a_week_and_not_before() {
    use ledger::webhooks::deliveries::prune;
    let env = Env::new().await.unwrap();
    let server = Server::start_with(&env, &[ALLOW_PRIVATE]).await.unwrap();
    let receiver = Receiver::start(Behaviour::default()).await.unwrap();
    let (_, secret) = endpoint(&server, &receiver.url, &["*"]).await;
    receiver.trust(&secret);
    let workers = Workers::start_setting(&env, "webhooks", &[], &[ALLOW_PRIVATE]).unwrap();
    let sn = server.active_template(10, 1).await.unwrap();
    claim_many(&env, &sn, 0..3, 3).await.unwrap();
    let events = store_events(&env).await;
    wait_delivered(&receiver, &events, Duration::from_secs(30)).await;
    workers.terminate().await.unwrap();
    let client = env.db.client().await.unwrap();
    let delivered = "SELECT count(*) FROM webhook_deliveries WHERE status = 'delivered'";
    let before: i64 = client.query_one(delivered, &[]).await.unwrap().get(0);
    assert!(before >= 3, "{before} delivered rows");
    let now = ledger::store::now();
    assert_eq!(prune(&client, now).await.unwrap(), 0, "a week is kept");
    let later = now + chrono::Duration::days(8);
    let mut pruned = 0;
    loop {
        let step = prune(&client, later).await.unwrap();
        if step == 0 {
            break;
        }
        pruned += step;
    }
    assert_eq!(i64::try_from(pruned).unwrap(), before);
    let after: i64 = client.query_one(delivered, &[]).await.unwrap().get(0);
    assert_eq!(after, 0);
}

#[tokio::test]
async fn a_slow_receiver_or_an_endless_answer_cannot_hold_the_sender() {
    let env = Env::new().await.unwrap();
    let server = Server::start_with(&env, &[ALLOW_PRIVATE]).await.unwrap();
    let slow = Behaviour {
        slow: Some(Duration::from_secs(60)),
        ..Behaviour::default()
    };
    let endless = Behaviour {
        endless_body: true,
        ..Behaviour::default()
    };
    let receivers = [
        Receiver::start(slow).await.unwrap(),
        Receiver::start(endless).await.unwrap(),
        Receiver::start(Behaviour::default()).await.unwrap(),
    ];
    let mut ids = vec![];
    for r in &receivers {
        ids.push(endpoint(&server, &r.url, &["*"]).await.0);
    }
    let _workers = Workers::start_setting(&env, "webhooks", &[], &[ALLOW_PRIVATE]).unwrap();
    let sn = server.active_template(100, 1).await.unwrap();
    claim_many(&env, &sn, 0..40, 40).await.unwrap();
    let events = store_events(&env).await;
    // The plain receiver and the endless one get everything meanwhile: an
    // endless answer is read to 64 KiB and a 2xx delivers.
    wait_delivered(&receivers[2], &events, Duration::from_secs(30)).await;
    wait_delivered(&receivers[1], &events, Duration::from_secs(30)).await;
    // The slow one's attempts end at 10 s, recorded as not answered.
    let path = format!("/v1/webhooks/{}/deliveries?status=pending", ids[0]);
    let started = Instant::now();
    loop {
        let (_, list) = server.admin_get(&path).await.unwrap();
        let timed_out = list["deliveries"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|d| d["last_error"].as_str().is_some_and(|e| e.contains("10 s")))
            .count();
        if timed_out > 0 {
            break;
        }
        assert!(started.elapsed() < Duration::from_secs(30), "{list}");
        tokio::time::sleep(Duration::from_millis(500)).await;
    }
    let (_, read) = server
        .admin_get(&format!("/v1/webhooks/{}", ids[1]))
        .await
        .unwrap();
    assert_eq!(
        read["deliveries"]["delivered"],
        json!(events.len()),
        "{read}"
    );
}

/// Claims (straight through the ledger's commands), then `orders` locks
/// and confirms over HTTP 16 at a time, a third of them refunded.
async fn busy_shop(env: &Env, server: &Server, sn: &str, orders: usize) {
    // Coupon i is user u<i>'s; the first `orders` of them check out.
    let ids = claim_many(env, sn, 0..orders * 2, 200).await.unwrap();
    let coupons: Vec<(String, String)> = ids
        .iter()
        .take(orders)
        .enumerate()
        .map(|(i, id)| (format!("u{i}"), id.to_string()))
        .collect();
    let runs = futures_util::stream::iter(coupons.into_iter().enumerate())
        .map(|(i, (user, coupon))| async move {
            let id = format!("o-{i}");
            let body = json!({
                "order": {"order_id": id, "user_id": user, "currency": "CNY",
                          "lines": [{"line_id": "l1", "sku": "s1", "category": "c-9",
                                     "quantity": 2, "unit_price": "150.00"}],
                          "shipping_fee": "0.00"},
                "coupon_ids": [coupon], "expected_payable": "280.00"
            });
            let (status, answer) = server.service_post("/v1/orders/lock", &body).await.unwrap();
            assert_eq!(status, 200, "lock: {answer}");
            let confirm = format!("/v1/orders/{id}/confirm");
            let (status, answer) = server.service_post(&confirm, &json!({})).await.unwrap();
            assert_eq!(status, 200, "confirm: {answer}");
            if i % 3 == 0 {
                let refund =
                    json!({"refund_id": "r1", "lines": [{"line_id": "l1", "quantity": 2}]});
                let path = format!("/v1/orders/{id}/refunds");
                let (status, answer) = server.service_post(&path, &refund).await.unwrap();
                assert_eq!(status, 200, "refund: {answer}");
            }
        })
        .buffer_unordered(16);
    runs.collect::<Vec<()>>().await;
}

#[tokio::test(flavor = "multi_thread")]
#[ignore = "restarts RabbitMQ: scripts/test runs it alone"]
async fn ten_thousand_events_reach_a_flaky_receiver_through_kills_and_a_broker_restart() {
    let env = Env::new().await.unwrap();
    let server = Server::start_with(&env, &[ALLOW_PRIVATE]).await.unwrap();
    let behaviour = Behaviour {
        fail_first: 2,
        hang_on: Some(3),
        refuse_share: 0.02,
        ..Behaviour::default()
    };
    let receiver = Receiver::start(behaviour).await.unwrap();
    let (id, secret) = endpoint(&server, &receiver.url, &["*"]).await;
    receiver.trust(&secret);
    let off = Receiver::start(Behaviour::default()).await.unwrap();
    let (off_id, _) = endpoint(&server, &off.url, &["*"]).await;
    server
        .admin_post(&format!("/v1/webhooks/{off_id}/disable"), &json!({}))
        .await
        .unwrap();
    let mut body = tests::template_body(100_000, 1);
    body["discount"] = json!({"type": "fixed_off", "threshold": "199.00", "amount": "20.00"});
    body["refund_policy"] = json!("restore");
    let sn = server.activate_template(&body).await.unwrap();
    let all = "relay,balances,template_stats,notify,webhooks";
    let start = || Workers::start_setting(&env, all, &[], &[ALLOW_PRIVATE]).unwrap();
    let mut workers = start();

    let shop = busy_shop(&env, &server, &sn, 1_500);
    let faults = async {
        for (at, fault) in [(1_500, "kill"), (4_000, "broker"), (6_500, "kill")] {
            while receiver.delivered().len() < at {
                tokio::time::sleep(Duration::from_millis(100)).await;
            }
            if fault == "kill" {
                let old = std::mem::replace(&mut workers, start());
                old.kill().await.unwrap();
            } else {
                restart_broker(Duration::from_secs(3)).await;
            }
        }
    };
    tokio::join!(shop, faults);
    let events = store_events(&env).await;
    assert!(events.len() >= 10_000, "{} events", events.len());
    wait_delivered(&receiver, &events, Duration::from_secs(300)).await;
    let received = receiver.received();
    assert_signed_and_in_stream_order(&received, &id);
    let refused = received.iter().filter(|r| r.answered >= 300).count();
    assert!(
        refused >= 3,
        "the receiver's failures were retried ({refused})"
    );
    assert!(
        off.received().is_empty(),
        "the disabled endpoint got nothing"
    );
    let (_, read) = server
        .admin_get(&format!("/v1/webhooks/{id}"))
        .await
        .unwrap();
    assert_eq!(read["deliveries"]["failed"], 0, "{read}");
    assert_eq!(read["deliveries"]["pending"], 0, "{read}");
    drop(workers);
}
