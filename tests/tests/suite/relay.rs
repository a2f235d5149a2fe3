//! The outbox relay over real Postgres and RabbitMQ: every committed event
//! reaches a subscriber once by id, each stream in version order, each
//! message valid against its schema; a queue created later is backfilled;
//! with nobody bound to `coupon.events`, the relay sends a probe a batch.

use std::collections::{HashMap, HashSet};
use std::time::Duration;

use tests::scenario::{checkout, claim_many};
use tests::subscriber::{Received, Schemas, Subscriber, ids};
use tests::workers::{Workers, ledger};
use tests::{Env, Server};
use uuid::Uuid;

async fn stored_ids(env: &Env) -> anyhow::Result<HashSet<Uuid>> {
    let client = env.db.client().await?;
    let rows = client.query("SELECT event_id FROM events", &[]).await?;
    Ok(rows.iter().map(|r| r.get(0)).collect())
}

/// Every stored event arrived; per stream, first arrivals in version order;
/// every message matches its schema and its headers match its body.
fn assert_complete_and_ordered(stored: &HashSet<Uuid>, got: &[Received]) {
    assert_eq!(
        &ids(got),
        stored,
        "the subscriber has exactly the stored events"
    );
    let mut schemas = Schemas::default();
    let mut seen = HashSet::new();
    let mut last_version: HashMap<&str, i32> = HashMap::new();
    for r in got {
        schemas.check(r).unwrap();
        assert_eq!(r.body["stream_id"], r.stream_id.as_str());
        assert_eq!(r.body["stream_version"], r.stream_version);
        assert_eq!(r.body["event_type"], r.event_type.as_str());
        assert_eq!(r.body["position"], r.position);
        if !seen.insert(r.message_id.clone()) {
            continue; // a duplicate on the wire: allowed
        }
        let last = last_version.entry(&r.stream_id).or_insert(0);
        assert_eq!(r.stream_version, *last + 1, "{} out of order", r.stream_id);
        *last = r.stream_version;
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn a_subscriber_gets_every_event_of_ten_thousand_coupons_once_in_order() {
    let env = Env::new().await.unwrap();
    let server = Server::start(&env).await.unwrap();
    let mut subscriber = Subscriber::new(&env, "analytics.test", true).await.unwrap();
    let relay = Workers::start(&env, "relay").unwrap();
    let sn = server.active_template(20_000, 1).await.unwrap();
    let coupons = claim_many(&env, &sn, 0..10_000, 500).await.unwrap();
    for (i, coupon) in coupons.iter().take(60).enumerate() {
        checkout(&server, &format!("u{i}"), *coupon, i % 3 != 0)
            .await
            .unwrap();
    }
    let stored = stored_ids(&env).await.unwrap();
    assert!(stored.len() > 10_100, "{} events", stored.len());
    let got = subscriber
        .receive_until(Duration::from_secs(30), |got| {
            ids(got).len() >= stored.len()
        })
        .await
        .unwrap();
    assert_complete_and_ordered(&stored, &got);
    relay.terminate().await.unwrap();
}

#[tokio::test(flavor = "multi_thread")]
async fn a_queue_created_after_five_thousand_events_is_backfilled() {
    let env = Env::new().await.unwrap();
    let server = Server::start(&env).await.unwrap();
    let sn = server.active_template(10_000, 1).await.unwrap();
    claim_many(&env, &sn, 0..5_000, 500).await.unwrap();
    let stored = stored_ids(&env).await.unwrap();
    assert!(stored.len() >= 5_000);
    let mut late = Subscriber::new(&env, "analytics.late", false)
        .await
        .unwrap();
    let out = ledger(
        &env,
        &[
            "events",
            "publish",
            "--from-position",
            "1",
            "--queue",
            "analytics.late",
        ],
    )
    .await
    .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let printed = String::from_utf8_lossy(&out.stdout);
    assert!(
        printed.contains(&format!("published {} events", stored.len())),
        "{printed}"
    );
    let got = late
        .receive_until(Duration::from_secs(10), |got| got.len() >= stored.len())
        .await
        .unwrap();
    assert_complete_and_ordered(&stored, &got);
    assert_eq!(got.len(), stored.len(), "a backfill sends each event once");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_backfill_to_a_missing_queue_is_a_clear_error() {
    let env = Env::new().await.unwrap();
    let out = ledger(&env, &["migrate"]).await.unwrap();
    assert!(out.status.success());
    let out = ledger(&env, &["events", "publish", "--queue", "no.such.queue"])
        .await
        .unwrap();
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("no.such.queue") && stderr.contains("does not exist"),
        "{stderr}"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_second_relay_stands_by_and_takes_over_when_the_first_dies() {
    let env = Env::new().await.unwrap();
    let server = Server::start(&env).await.unwrap();
    let mut subscriber = Subscriber::new(&env, "analytics.failover", true)
        .await
        .unwrap();
    let first = Workers::start(&env, "relay").unwrap();
    let sn = server.active_template(10_000, 1).await.unwrap();
    claim_many(&env, &sn, 0..200, 100).await.unwrap();
    let stored = stored_ids(&env).await.unwrap();
    let got = subscriber
        .receive_until(Duration::from_secs(20), |got| {
            ids(got).len() >= stored.len()
        })
        .await
        .unwrap();
    assert_eq!(ids(&got), stored);
    let second = Workers::start(&env, "relay").unwrap();
    tokio::time::sleep(Duration::from_millis(500)).await;
    first.kill().await.unwrap();
    claim_many(&env, &sn, 200..400, 100).await.unwrap();
    let stored = stored_ids(&env).await.unwrap();
    let more = subscriber
        .receive_until(Duration::from_secs(20), |more| {
            ids(more).len() + got.len() >= stored.len()
        })
        .await
        .unwrap();
    let all: Vec<Received> = got.into_iter().chain(more).collect();
    assert_complete_and_ordered(&stored, &all);
    second.terminate().await.unwrap();
}

/// The public route's running totals: (events passed on, messages sent,
/// events no queue took).
async fn public_route(env: &Env) -> (i64, i64, i64) {
    let client = env.db.client().await.unwrap();
    let row = client
        .query_opt(
            "SELECT published, sent, unroutable FROM relay_cursors WHERE name = 'coupon.events'",
            &[],
        )
        .await
        .unwrap();
    row.map_or((0, 0, 0), |r| (r.get(0), r.get(1), r.get(2)))
}

/// Waits until the public route passed on `events` events.
async fn public_route_passed(env: &Env, events: usize) -> (i64, i64, i64) {
    for _ in 0..600 {
        let totals = public_route(env).await;
        if totals.0 >= events as i64 {
            return totals;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    panic!("the public route did not pass on {events} events");
}

#[tokio::test(flavor = "multi_thread")]
async fn with_nobody_bound_coupon_events_gets_one_probe_a_batch_and_a_later_subscriber_misses_nothing()
 {
    let env = Env::new().await.unwrap();
    let server = Server::start(&env).await.unwrap();
    let sn = server.active_template(20_000, 1).await.unwrap();
    claim_many(&env, &sn, 0..6_000, 500).await.unwrap();
    let before = stored_ids(&env).await.unwrap();
    // given: nobody bound to coupon.events when the relay starts.
    let relay = Workers::start(&env, "relay").unwrap();
    let (published, sent, unroutable) = public_route_passed(&env, before.len()).await;
    assert_eq!(unroutable, published, "every event reached nobody");
    assert!(
        sent <= 3,
        "one probe a batch of up to 5,000: {sent} messages for {published} events"
    );

    // when: an analytics queue binds, and more events come.
    let mut late = Subscriber::new(&env, "analytics.late", true).await.unwrap();
    claim_many(&env, &sn, 6_000..9_000, 500).await.unwrap();
    let all = stored_ids(&env).await.unwrap();
    let after: HashSet<Uuid> = all.difference(&before).copied().collect();
    assert!(after.len() >= 3_000, "{} events after binding", after.len());
    let got = late
        .receive_until(Duration::from_secs(30), |got| ids(got).is_superset(&after))
        .await
        .unwrap();

    // then: every event stored after it bound arrives, each stream in order.
    let received = ids(&got);
    let missing = after.difference(&received).count();
    assert_eq!(missing, 0, "events stored after binding that never came");
    assert!(received.is_subset(&all), "only stored events arrive");
    let mut last_version: HashMap<&str, i32> = HashMap::new();
    for r in &got {
        let last = last_version.entry(&r.stream_id).or_insert(0);
        assert!(r.stream_version > *last, "{} out of order", r.stream_id);
        *last = r.stream_version;
    }
    let (published, _, unroutable) = public_route_passed(&env, all.len()).await;
    assert!(
        unroutable < published,
        "events were routed once someone bound"
    );
    relay.terminate().await.unwrap();
}
