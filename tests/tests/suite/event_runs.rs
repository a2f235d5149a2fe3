//! Runs on the ledger's own queues (docs/design.md §5, "Runs"): the relay
//! packs consecutive events into one message for its projections' queues,
//! and keeps one message per event on `coupon.events`; a projection applies
//! each event of a run once (its rows keep each stream's version, so a run
//! cut differently or sent again applies nothing twice), a poison event
//! inside a run is dead-lettered alone while the rest apply, and every
//! message applied leaves a receipt with the positions it carried.

use ledger::domain::projection::Projection;
use std::collections::HashSet;
use std::time::Duration;

use futures_util::StreamExt;
use lapin::BasicProperties;
use lapin::options::BasicConsumeOptions;
use lapin::types::{AMQPValue, FieldTable};
use ledger::messaging;
use ledger::messaging::message::{Outgoing, encode};
use ledger::messaging::run_message::{self, RUN_TYPE};
use ledger::store::{GlobalCursor, RecordedEvent};
use serde_json::Value;
use tests::dead_letters::{self, DeadLetters};
use tests::scenario::claim_many;
use tests::subscriber::{Subscriber, ids};
use tests::workers::Workers;
use tests::{Env, Server};
use uuid::Uuid;

fn header(properties: &BasicProperties, key: &str) -> Option<AMQPValue> {
    let headers = properties.headers().as_ref()?;
    headers.inner().get(key).cloned()
}

fn number(properties: &BasicProperties, key: &str) -> i64 {
    match header(properties, key) {
        Some(AMQPValue::LongLongInt(n)) => n,
        other => panic!("header {key}: {other:?}"),
    }
}

fn validator(file: &str) -> jsonschema::Validator {
    let path = tests::subscriber::Schemas::dir().join(file);
    let schema: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    jsonschema::validator_for(&schema).unwrap()
}

async fn stored(env: &Env) -> Vec<RecordedEvent> {
    let client = env.db.client().await.unwrap();
    ledger::testkit::read_all_settled(&client, GlobalCursor::START, 100_000)
        .await
        .unwrap()
}

/// `users` coupons claimed (u0, u1, ...): their `CouponIssued` events.
async fn claimed(env: &Env, sn: &str, users: usize) -> Vec<RecordedEvent> {
    claim_many(env, sn, 0..users, 1).await.unwrap();
    let events = stored(env).await.into_iter();
    events.filter(|e| e.event_type == "CouponIssued").collect()
}

/// Waits until the relay's route `name` has sent `events` events.
async fn route_sent(env: &Env, name: &str, events: usize) {
    let client = env.db.client().await.unwrap();
    for _ in 0..300 {
        let row = client
            .query_opt(
                "SELECT published FROM relay_cursors WHERE name = $1",
                &[&name],
            )
            .await
            .unwrap();
        if row.is_some_and(|r| r.get::<_, i64>(0) >= events as i64) {
            return;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    panic!("route {name} did not send {events} events");
}

#[tokio::test(flavor = "multi_thread")]
async fn own_queues_carry_runs_and_coupon_events_one_message_per_event() {
    let env = Env::new().await.unwrap();
    let server = Server::start(&env).await.unwrap();
    let sn = server.active_template(5_000, 1).await.unwrap();
    // Claimed before the relay starts: it finds 3,000 events at once.
    claim_many(&env, &sn, 0..3_000, 200).await.unwrap();
    let mut outsider = Subscriber::new(&env, "analytics.runs", true).await.unwrap();
    let relay = Workers::start(&env, "relay").unwrap();
    let events = stored(&env).await;
    assert!(events.len() > 3_000, "{} events", events.len());
    route_sent(&env, Projection::Balances.queue(), events.len()).await;

    let amqp = messaging::connect(&env.vhost.amqp_url, "test-reader")
        .await
        .unwrap();
    let channel = amqp.create_channel().await.unwrap();
    let (run_schema, mut carried) = (validator("EventRun.v1.json"), Vec::new());
    let mut messages = 0;
    // The queue has a single active consumer: read it by consuming.
    let no_ack = BasicConsumeOptions {
        no_ack: true,
        ..Default::default()
    };
    let mut reader = channel
        .basic_consume(
            Projection::Balances.queue().into(),
            "t".into(),
            no_ack,
            FieldTable::default(),
        )
        .await
        .unwrap();
    while carried.len() < events.len() {
        let next = tokio::time::timeout(Duration::from_secs(10), reader.next()).await;
        let delivery = next.expect("the runs arrive").unwrap().unwrap();
        let p = &delivery.properties;
        assert_eq!(p.kind().as_ref().unwrap().as_str(), RUN_TYPE);
        let body: Value = serde_json::from_slice(&delivery.data).unwrap();
        assert!(run_schema.is_valid(&body), "a run matches its schema");
        let run = body.as_array().unwrap();
        assert!(run.len() <= run_message::MAX_RUN);
        assert_eq!(number(p, "run_events"), run.len() as i64);
        assert_eq!(number(p, "run_first"), run[0]["position"]);
        assert_eq!(number(p, "run_last"), run[run.len() - 1]["position"]);
        for event in run {
            let file = format!("{}.v1.json", event["event_type"].as_str().unwrap());
            assert!(validator(&file).is_valid(event), "{file}");
            carried.push(event["event_id"].as_str().unwrap().parse::<Uuid>().unwrap());
        }
        messages += 1;
    }
    let in_order: Vec<Uuid> = events.iter().map(|e| e.event_id).collect();
    assert_eq!(carried, in_order, "every event once, in the store's order");
    assert!(
        messages * 100 < events.len(),
        "{messages} messages for {} events: runs, not one per event",
        events.len()
    );

    let got = outsider
        .receive_until(Duration::from_secs(20), |got| got.len() >= events.len())
        .await
        .unwrap();
    assert_eq!(got.len(), events.len(), "one message per event outside");
    assert!(got.iter().all(|r| r.event_type != RUN_TYPE));
    assert_eq!(ids(&got), in_order.into_iter().collect::<HashSet<_>>());
    relay.terminate().await.unwrap();
}

/// `events` as one run message, stamped by the env's store.
async fn run_of(env: &Env, events: &[RecordedEvent]) -> Outgoing {
    let singles: Vec<Outgoing> = events.iter().map(encode).collect();
    let mut run = run_message::runs(events, &singles).remove(0);
    run.properties = env.store_id().await.unwrap().stamped(&run.properties);
    run
}

async fn unused(server: &Server, user: &str) -> Value {
    let (status, balance) = server
        .service_get(&format!("/v1/users/{user}/balance"))
        .await
        .unwrap();
    assert_eq!(status, 200, "{balance}");
    balance["by_status"]["unused"]["count"].clone()
}

#[tokio::test(flavor = "multi_thread")]
async fn a_poison_event_inside_a_run_is_dead_lettered_alone_and_overlapping_runs_apply_once() {
    let env = Env::new().await.unwrap();
    let server = Server::start(&env).await.unwrap();
    let sn = server.active_template(100, 1).await.unwrap();
    let issued = claimed(&env, &sn, 6).await;
    assert_eq!(issued.len(), 6);
    // Decodes, but names no stream a projection knows: it cannot apply.
    let mut poison = issued[2].clone();
    poison.stream_id = "nonsense".into();
    poison.event_id = Uuid::new_v4();
    poison.position = 999_999;
    let first = [&issued[..2], &[poison.clone()], &issued[2..4]].concat();
    // A second run, cut elsewhere: u2 and u3 again, then u4 and u5.
    let second = issued[2..6].to_vec();

    let (amqp, publisher) = tests::test_publisher::open(&env, "test").await.unwrap();
    let runs = [run_of(&env, &first).await, run_of(&env, &second).await];
    publisher
        .publish_all("", Projection::Balances.queue(), &runs)
        .await
        .unwrap();
    let workers = Workers::start(&env, "balances").unwrap();

    let mut dead = DeadLetters::watch(&amqp).await.unwrap();
    let letter = dead.next(Duration::from_secs(60)).await.unwrap();
    let letter = letter.expect("the poison event is dead-lettered");
    let body: Value = serde_json::from_slice(&letter.data).unwrap();
    assert_eq!(body["event_id"], poison.event_id.to_string(), "it alone");
    let p = &letter.properties;
    assert_eq!(number(p, "position"), 999_999);
    assert_eq!(number(p, "run_first"), issued[0].position);
    assert_eq!(header(p, "x-attempts"), Some(AMQPValue::LongLongInt(5)));
    let error = dead_letters::text(&letter, "x-error").unwrap();
    assert!(error.contains("nonsense"), "{error}");

    for user in ["u0", "u1", "u2", "u3", "u4", "u5"] {
        let mut count = Value::Null;
        for _ in 0..100 {
            count = unused(&server, user).await;
            if count == 1 {
                break;
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        assert_eq!(count, 1, "{user}: one coupon, applied once from either run");
    }
    let more = dead.next(Duration::from_secs(2)).await.unwrap();
    assert!(more.is_none(), "nothing else was dead-lettered");
    workers.terminate().await.unwrap();
}

/// A run returned to its queue 50 times (what kills and broker restarts
/// never reach) is dead-lettered whole, untried: the single path applies
/// no run, so every run a projection applied went by the batch path and
/// left a receipt with its positions.
#[tokio::test(flavor = "multi_thread")]
async fn a_run_returned_fifty_times_is_dead_lettered_whole_and_not_applied() {
    let env = Env::new().await.unwrap();
    let server = Server::start(&env).await.unwrap();
    let sn = server.active_template(100, 1).await.unwrap();
    let issued = claimed(&env, &sn, 3).await;
    let mut run = run_of(&env, &issued).await;
    let mut headers = run.properties.headers().clone().unwrap_or_default();
    // What the quorum queue writes on the 50th return.
    headers.insert("x-delivery-count".into(), AMQPValue::LongLongInt(50));
    run.properties = run.properties.with_headers(headers);
    let (amqp, publisher) = tests::test_publisher::open(&env, "test").await.unwrap();
    publisher
        .publish_all("", Projection::Balances.queue(), &[run])
        .await
        .unwrap();
    let mut dead = DeadLetters::watch(&amqp).await.unwrap();
    let workers = Workers::start(&env, "balances").unwrap();
    let letter = dead.next(Duration::from_secs(60)).await.unwrap();
    let letter = letter.expect("the run is dead-lettered");
    assert_eq!(
        letter.properties.kind().as_ref().unwrap().as_str(),
        RUN_TYPE
    );
    assert_eq!(number(&letter.properties, "run_first"), issued[0].position);
    let error = dead_letters::text(&letter, "x-error").unwrap();
    assert!(error.contains("delivered 51 times"), "{error}");
    workers.terminate().await.unwrap();
    let client = env.db.client().await.unwrap();
    let receipts: i64 = client
        .query_one(
            "SELECT count(*) FROM inbox WHERE consumer = 'balances'",
            &[],
        )
        .await
        .unwrap()
        .get(0);
    assert_eq!(receipts, 0, "nothing applied, so no receipt");
    assert_eq!(unused(&server, "u0").await, 0);
}
