//! The projection workers, the scanner and `ledger replay --verify`, over
//! real Postgres and RabbitMQ.

use ledger::domain::projection::Projection;
use std::time::Duration;

use chrono::Utc;
use lapin::BasicProperties;
use lapin::types::AMQPValue;
use ledger::messaging::message::encode;
use ledger::store::GlobalCursor;
use ledger::testkit::read_all_settled as read_all;
use serde_json::{Value, json};
use tests::dead_letters::{self, DeadLetters};
use tests::scenario::{checkout, claim_many};
use tests::workers::{Workers, projections_caught_up, replay_both_ways};
use tests::{Env, Server, template_body};

const CATCH_UP: Duration = Duration::from_secs(60);

async fn balance(server: &Server, user: &str) -> Value {
    let (status, body) = server
        .service_get(&format!("/v1/users/{user}/balance"))
        .await
        .unwrap();
    assert_eq!(status, 200, "{body}");
    body
}

async fn stats(server: &Server, sn: &str) -> (u16, Value) {
    let r = server
        .admin(reqwest::Method::GET, &format!("/v1/templates/{sn}/stats"))
        .send()
        .await
        .unwrap();
    (r.status().as_u16(), r.json().await.unwrap())
}

#[tokio::test(flavor = "multi_thread")]
async fn balances_and_stats_follow_claims_orders_and_replay_verifies_them() {
    let env = Env::new().await.unwrap();
    let server = Server::start(&env).await.unwrap();
    let workers = Workers::start(&env, "relay,balances,template_stats").unwrap();
    let sn = server.active_template(1_000, 3).await.unwrap();
    let coupons = claim_many(&env, &sn, 0..50, 25).await.unwrap();
    let again = claim_many(&env, &sn, 0..2, 25).await.unwrap();
    checkout(&server, "u0", coupons[0], true).await.unwrap();
    checkout(&server, "u1", coupons[1], false).await.unwrap();
    checkout(&server, "u0", again[0], false).await.unwrap();
    projections_caught_up(&env, CATCH_UP).await.unwrap();

    let u0 = balance(&server, "u0").await;
    assert_eq!(
        u0["by_status"]["used"],
        json!({"count": 1, "face_value": "20.00"})
    );
    assert_eq!(
        u0["by_status"]["unused"],
        json!({"count": 1, "face_value": "20.00"})
    );
    assert_eq!(u0["by_status"]["expired"]["count"], 0);
    assert!(u0["reflects"]["position"].as_i64().unwrap() > 0);
    let (status, s) = stats(&server, &sn).await;
    assert_eq!(status, 200, "{s}");
    assert_eq!(
        (
            s["issued"].as_i64(),
            s["used"].as_i64(),
            s["locked"].as_i64()
        ),
        (Some(52), Some(1), Some(0))
    );
    assert_eq!(s["liability"], "1020.00", "51 unused x 20.00");
    assert_eq!(s["cost"], "20.00", "one confirmed order took 20.00 off");
    let (status, _) = stats(&server, "NO-SUCH-TEMPLATE").await;
    assert_eq!(status, 404);

    let (code, stdout) = replay_both_ways(&env, &["replay", "--verify"]).await;
    assert_eq!(code, Some(0), "{stdout}");
    assert!(stdout.contains("0 differences"), "{stdout}");

    // Tamper with one projection row by hand: replay names it and fails.
    let client = env.db.client().await.unwrap();
    client
        .execute(
            "UPDATE balances SET count = count + 1 WHERE user_id = 'u7' AND status = 'unused'",
            &[],
        )
        .await
        .unwrap();
    let (code, stdout) = replay_both_ways(&env, &["replay", "--verify"]).await;
    assert_eq!(code, Some(1), "{stdout}");
    assert!(
        stdout.contains(r#"balances ("u7", "unused") count: live 2 vs replayed 1"#),
        "{stdout}"
    );
    workers.terminate().await.unwrap();
}

#[tokio::test(flavor = "multi_thread")]
async fn a_message_delivered_three_times_counts_once_and_poison_is_dead_lettered() {
    let env = Env::new().await.unwrap();
    let server = Server::start(&env).await.unwrap();
    let sn = server.active_template(100, 1).await.unwrap();
    claim_many(&env, &sn, 0..1, 1).await.unwrap();
    claim_many(&env, &sn, 2..4, 1).await.unwrap();
    let client = env.db.client().await.unwrap();
    let events = read_all(&client, GlobalCursor::START, 100).await.unwrap();
    let issued: Vec<_> = events
        .iter()
        .filter(|e| e.event_type == "CouponIssued")
        .collect();
    let issued = issued[0];
    let around: Vec<_> = events
        .iter()
        .filter(|e| e.event_type == "CouponIssued")
        .skip(1)
        .map(encode)
        .collect();

    let (amqp, publisher) = tests::test_publisher::open(&env, "test").await.unwrap();
    let message = encode(issued);
    let poison = ledger::messaging::message::Outgoing {
        body: b"{not json".to_vec(),
        properties: BasicProperties::default().with_message_id("poison-1".into()),
    };
    // One batch: u0 three times, u2 before the poison, u3 after it.
    let batch = [
        message.clone(),
        message.clone(),
        around[0].clone(),
        poison,
        around[1].clone(),
        message,
    ];
    publisher
        .publish_all("", Projection::Balances.queue(), &batch)
        .await
        .unwrap();
    let workers = Workers::start(&env, "balances").unwrap();

    let mut dead = DeadLetters::watch(&amqp).await.unwrap();
    let letter = dead.next(Duration::from_secs(60)).await.unwrap();
    let letter = letter.expect("the poison message is dead-lettered");
    assert_eq!(letter.data, b"{not json");
    let headers = letter.properties.headers().clone().unwrap();
    let error = dead_letters::text(&letter, "x-error").unwrap();
    assert!(error.contains("not an event message"), "{error}");
    assert_eq!(
        headers.inner().get("x-attempts"),
        Some(&AMQPValue::LongLongInt(5))
    );

    // The worker went on: a later event still applies.
    claim_many(&env, &sn, 1..2, 1).await.unwrap();
    let later = read_all(&client, issued.cursor(), 100).await.unwrap();
    let later = later
        .iter()
        .find(|e| e.event_type == "CouponIssued" && e.payload["user_id"] == "u1")
        .unwrap();
    publisher
        .publish_all("", Projection::Balances.queue(), &[encode(later)])
        .await
        .unwrap();
    for _ in 0..100 {
        if balance(&server, "u1").await["by_status"]["unused"]["count"] == 1 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert_eq!(
        balance(&server, "u1").await["by_status"]["unused"]["count"],
        1
    );
    let u0 = balance(&server, "u0").await;
    assert_eq!(
        u0["by_status"]["unused"],
        json!({"count": 1, "face_value": "20.00"}),
        "three deliveries, one coupon"
    );
    for user in ["u2", "u3"] {
        assert_eq!(
            balance(&server, user).await["by_status"]["unused"]["count"],
            1,
            "{user}'s coupon, on either side of the poison in its batch, is applied"
        );
    }
    workers.terminate().await.unwrap();
}

#[tokio::test(flavor = "multi_thread")]
async fn a_missing_version_is_caught_up_from_postgres_not_applied_out_of_order() {
    let env = Env::new().await.unwrap();
    let server = Server::start(&env).await.unwrap();
    let sn = server.active_template(100, 1).await.unwrap();
    let coupon = claim_many(&env, &sn, 0..1, 1).await.unwrap()[0];
    checkout(&server, "u0", coupon, true).await.unwrap();
    let client = env.db.client().await.unwrap();
    let events = read_all(&client, GlobalCursor::START, 100).await.unwrap();
    let used = events
        .iter()
        .find(|e| e.event_type == "CouponUsed")
        .unwrap();
    assert_eq!(used.stream_version, 3, "issued, locked, used");

    // Only the last event of the coupon reaches the worker.
    let (_amqp, publisher) = tests::test_publisher::open(&env, "test").await.unwrap();
    publisher
        .publish_all("", Projection::Balances.queue(), &[encode(used)])
        .await
        .unwrap();
    let workers = Workers::start(&env, "balances").unwrap();
    for _ in 0..100 {
        if balance(&server, "u0").await["by_status"]["used"]["count"] == 1 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let u0 = balance(&server, "u0").await;
    assert_eq!(u0["by_status"]["used"]["count"], 1);
    assert_eq!(u0["by_status"]["unused"]["count"], 0);
    assert_eq!(u0["by_status"]["locked"]["count"], 0);
    workers.terminate().await.unwrap();
}

#[tokio::test(flavor = "multi_thread")]
async fn two_scanners_expire_each_due_coupon_exactly_once() {
    let env = Env::new().await.unwrap();
    let server = Server::start(&env).await.unwrap();
    let now = Utc::now();
    let mut body = template_body(1_000, 1);
    body["validity"] = json!({"type": "absolute", "begin": now - chrono::Duration::hours(1),
                              "end": now + chrono::Duration::seconds(30)});
    let sn = server.activate_template(&body).await.unwrap();
    let coupons = claim_many(&env, &sn, 0..600, 200).await.unwrap();
    // Half a minute to claim them: enough on the loaded machine of the
    // parallel suite, where 600 claims took more than ten seconds.
    let wait = (now + chrono::Duration::seconds(31) - Utc::now())
        .to_std()
        .unwrap_or_default();
    tokio::time::sleep(wait).await;
    let a = Workers::start(&env, "scanner").unwrap();
    let b = Workers::start(&env, "scanner").unwrap();
    let client = env.db.client().await.unwrap();
    for _ in 0..300 {
        let row = client
            .query_one("SELECT count(*) FROM coupons WHERE status = 'unused'", &[])
            .await
            .unwrap();
        if row.get::<_, i64>(0) == 0 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    tokio::time::sleep(Duration::from_millis(1500)).await; // another sweep each
    a.terminate().await.unwrap();
    b.terminate().await.unwrap();
    let rows = client
        .query(
            "SELECT stream_id, count(*) FROM events WHERE event_type = 'CouponExpired' GROUP BY stream_id",
            &[],
        )
        .await
        .unwrap();
    assert_eq!(rows.len(), coupons.len(), "every due coupon expired");
    assert!(rows.iter().all(|r| r.get::<_, i64>(1) == 1), "none twice");
}
