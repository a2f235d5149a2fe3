//! The reminder projection's transport over real RabbitMQ: a duplicated
//! event changes nothing, a gap is caught up from the store, and a poison
//! message inside a batch is dead-lettered alone. The rest: `reminders.rs`.

use ledger::domain::projection::Projection;
use std::collections::{BTreeSet, HashMap, HashSet};
use std::time::Duration;

use chrono::{Days, NaiveDate};
use ledger::messaging;
use ledger::messaging::message::encode;
use ledger::store::GlobalCursor;
use ledger::testkit::read_all_settled as read_all;
use serde_json::{Value, json};
use tests::reminder_days::{
    CANCELLED, CATCH_UP, PENDING, at, due, expiry_day, listed, template, users,
};
use tests::reminders::{TouchQueue, claim_for, issue_for, notify_caught_up, pool, rows, send_at};
use tests::scenario::checkout;
use tests::workers::Workers;
use tests::{Env, Server, template_body};
use uuid::Uuid;

#[tokio::test(flavor = "multi_thread")]
async fn a_duplicated_event_changes_nothing_and_a_gap_is_caught_up_from_the_store() {
    let env = Env::new().await.unwrap();
    let server = Server::start(&env).await.unwrap();
    let pool = pool(&env, 2).unwrap();
    let day = expiry_day();
    let sn = template(&server, at(day, 23, 59, 59), json!([3, 1]), 1).await;
    let ids = claim_for(&pool, &sn, &users(&["u0", "u1"]), 2)
        .await
        .unwrap();
    checkout(&server, "u1", ids[1], true).await.unwrap();
    let client = env.db.client().await.unwrap();
    let events = read_all(&client, GlobalCursor::START, 1_000).await.unwrap();
    let issued = events
        .iter()
        .find(|e| e.event_type == "CouponIssued" && e.stream_id.ends_with(&ids[0].to_string()))
        .unwrap();
    let used = events
        .iter()
        .find(|e| e.event_type == "CouponUsed")
        .unwrap();
    assert_eq!(used.stream_version, 3);

    // u0's issue three times; of u1's coupon only the last version.
    let (_amqp, publisher) = tests::test_publisher::open(&env, "test").await.unwrap();
    let batch = [encode(issued), encode(issued), encode(used), encode(issued)];
    publisher
        .publish_all("", Projection::Notify.queue(), &batch)
        .await
        .unwrap();
    let workers = Workers::start(&env, "notify").unwrap();
    let mut state = HashMap::new();
    for _ in 0..300 {
        state = rows(&env).await.unwrap();
        if state.len() == 4 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let d = |n| day - Days::new(n);
    assert_eq!(state.len(), 4, "{state:?}");
    for n in [1, 3] {
        assert_eq!(state[&("u0".into(), sn.clone(), d(n))], (PENDING, 0));
        assert_eq!(state[&("u1".into(), sn.clone(), d(n))], (CANCELLED, 0));
    }
    let row = client
        .query_one(
            "SELECT status, version FROM notify_coupons WHERE coupon_id = $1",
            &[&ids[1]],
        )
        .await
        .unwrap();
    assert_eq!(
        (row.get::<_, String>(0), row.get::<_, i32>(1)),
        ("used".into(), 3)
    );
    let applied: i64 = client
        .query_one(
            "SELECT applied FROM projection_positions WHERE projection = 'notify'",
            &[],
        )
        .await
        .unwrap()
        .get(0);
    assert_eq!(
        applied, 2,
        "two distinct messages, the duplicates are no-ops"
    );
    workers.terminate().await.unwrap();
}

#[tokio::test(flavor = "multi_thread")]
async fn a_poison_message_inside_a_batch_is_dead_lettered_alone_and_the_rest_applied() {
    let env = Env::new().await.unwrap();
    let server = Server::start(&env).await.unwrap();
    let pool = pool(&env, 2).unwrap();
    let day = expiry_day();
    let sn = template(&server, at(day, 23, 59, 59), json!(1), 1).await;
    let holders: Vec<String> = (0..40).map(|i| format!("u{i}")).collect();
    claim_for(&pool, &sn, &holders, 40).await.unwrap();
    let client = env.db.client().await.unwrap();
    let events = read_all(&client, GlobalCursor::START, 1_000).await.unwrap();
    let issued: Vec<_> = events
        .iter()
        .filter(|e| e.event_type == "CouponIssued")
        .collect();
    let mut batch: Vec<_> = issued.iter().map(|e| encode(e)).collect();
    let poison = ledger::messaging::message::Outgoing {
        body: b"{not json".to_vec(),
        properties: lapin::BasicProperties::default().with_message_id("poison-1".into()),
    };
    batch.insert(20, poison);
    // Published before the worker starts: they arrive as one batch.
    let (amqp, publisher) = tests::test_publisher::open(&env, "test").await.unwrap();
    publisher
        .publish_all("", Projection::Notify.queue(), &batch)
        .await
        .unwrap();
    let workers = Workers::start(&env, "notify").unwrap();

    let mut dead = tests::dead_letters::DeadLetters::watch(&amqp)
        .await
        .unwrap();
    let letter = dead.next(Duration::from_secs(60)).await.unwrap();
    let letter = letter.expect("the poison message is dead-lettered");
    assert_eq!(letter.data, b"{not json");
    assert_eq!(
        tests::dead_letters::text(&letter, "x-consumer").as_deref(),
        Some("notify")
    );
    let state = rows(&env).await.unwrap();
    assert_eq!(state.len(), 40, "every other message of the batch applied");
    let applied: i64 = client
        .query_one(
            "SELECT applied FROM projection_positions WHERE projection = 'notify'",
            &[],
        )
        .await
        .unwrap()
        .get(0);
    assert_eq!(applied, 40);
    workers.terminate().await.unwrap();
}

#[tokio::test(flavor = "multi_thread")]
async fn reminder_offsets_take_a_number_or_a_list_and_a_patch_applies_to_later_coupons() {
    let env = Env::new().await.unwrap();
    let server = Server::start(&env).await.unwrap();
    let workers = Workers::start(&env, "relay,notify").unwrap();
    let pool = pool(&env, 2).unwrap();
    let day = expiry_day();
    let end = at(day, 23, 59, 59);
    for bad in [
        json!([3, 3]),
        json!(366),
        json!([-1]),
        json!("3"),
        json!([]),
        json!([1.5]),
    ] {
        let mut body = template_body(10, 1);
        body["remind_days_before"] = bad.clone();
        let (status, answer) = server.admin_post("/v1/templates", &body).await.unwrap();
        assert_eq!(status, 400, "{bad}: {answer}");
    }
    let sn = template(&server, end, json!([1, 7, 3]), 1).await;
    let path = format!("/v1/templates/{sn}");
    let r = server
        .admin(reqwest::Method::GET, &path)
        .send()
        .await
        .unwrap();
    let view: Value = r.json().await.unwrap();
    assert_eq!(view["remind_days_before"], json!([7, 3, 1]));
    let first = claim_for(&pool, &sn, &users(&["u0"]), 1).await.unwrap()[0];
    let patch = |body: Value| {
        server
            .admin(reqwest::Method::PATCH, &path)
            .json(&body)
            .send()
    };
    let r = patch(json!({"remind_days_before": [2, 2]})).await.unwrap();
    assert_eq!(r.status().as_u16(), 400);
    let r = patch(json!({"remind_days_before": 2})).await.unwrap();
    assert_eq!(r.status().as_u16(), 200);
    let view: Value = r.json().await.unwrap();
    assert_eq!(view["remind_days_before"], json!(2));
    claim_for(&pool, &sn, &users(&["u1"]), 1).await.unwrap();
    let r = patch(json!({"remind_days_before": null})).await.unwrap();
    assert_eq!(r.status().as_u16(), 200);
    claim_for(&pool, &sn, &users(&["u2"]), 1).await.unwrap();
    notify_caught_up(&env, CATCH_UP).await.unwrap();

    let state = rows(&env).await.unwrap();
    let days_of = |user: &str| -> BTreeSet<i64> {
        state
            .keys()
            .filter(|k| k.0 == user)
            .map(|k| (day - k.2).num_days())
            .collect()
    };
    assert_eq!(
        days_of("u0"),
        BTreeSet::from([1, 3, 7]),
        "issued under [7, 3, 1]"
    );
    assert_eq!(days_of("u1"), BTreeSet::from([2]), "issued after the PATCH");
    assert!(days_of("u2").is_empty(), "reminders stopped");
    let client = env.db.client().await.unwrap();
    let coupon: Uuid = client
        .query_one(
            "SELECT coupon_id FROM notify_msg WHERE user_id = 'u0' LIMIT 1",
            &[],
        )
        .await
        .unwrap()
        .get(0);
    assert_eq!(coupon, first);
    workers.terminate().await.unwrap();
}

/// Samples the depth of `queue` until told to stop; the largest seen.
fn watch_depth(
    env: &Env,
    queue: &'static str,
) -> (
    tokio::sync::oneshot::Sender<()>,
    tokio::task::JoinHandle<u32>,
) {
    let (stop, mut stopped) = tokio::sync::oneshot::channel::<()>();
    let url = env.vhost.amqp_url.clone();
    let task = tokio::spawn(async move {
        let amqp = messaging::connect(&url, "test-depth").await.unwrap();
        let channel = amqp.create_channel().await.unwrap();
        let passive = lapin::options::QueueDeclareOptions {
            passive: true,
            ..Default::default()
        };
        let mut max = 0;
        loop {
            let q = channel
                .queue_declare(queue.into(), passive, lapin::types::FieldTable::default())
                .await
                .unwrap();
            max = max.max(q.message_count());
            tokio::select! {
                _ = &mut stopped => return max,
                _ = tokio::time::sleep(Duration::from_millis(200)) => {}
            }
        }
    });
    (stop, task)
}

#[tokio::test(flavor = "multi_thread")]
async fn a_hundred_thousand_coupons_give_one_row_per_user_template_day_and_one_message_per_user_day()
 {
    const USERS: usize = 20_000;
    const TEMPLATES: usize = 50;
    const ROUNDS: usize = 5;
    let env = Env::new().await.unwrap();
    let server = Server::start(&env).await.unwrap();
    let workers = Workers::start(&env, "relay,notify").unwrap();
    let pool = pool(&env, 4).unwrap();
    let mut touch = TouchQueue::new(&env, "test.touch").await.unwrap();
    let day = expiry_day();
    let (d1, d3) = (day - Days::new(1), day - Days::new(3));
    // Every template expires the same day; the even ones also remind 3 days before.
    let mut sns = Vec::with_capacity(TEMPLATES);
    for t in 0..TEMPLATES {
        let remind = if t % 2 == 0 { json!([3, 1]) } else { json!(1) };
        sns.push(template(&server, at(day, 23, 59, 59), remind, ROUNDS as i32).await);
    }
    // Users u ≡ 0 (mod 3) hold five coupons of one template; the others one
    // of each of five templates.
    let mut holders: Vec<Vec<String>> = vec![Vec::new(); TEMPLATES];
    for u in 0..USERS {
        for r in 0..ROUNDS {
            holders[(u + r * (u % 3)) % TEMPLATES].push(format!("u{u}"));
        }
    }
    let (stop, depth) = watch_depth(&env, Projection::Notify.queue());
    let mut coupons: HashMap<(String, usize), BTreeSet<Uuid>> = HashMap::new();
    for (t, users) in holders.iter().enumerate() {
        let ids = issue_for(&pool, &sns[t], users).await.unwrap();
        for (user, id) in users.iter().zip(ids) {
            coupons.entry((user.clone(), t)).or_default().insert(id);
        }
    }
    notify_caught_up(&env, Duration::from_secs(600))
        .await
        .unwrap();
    stop.send(()).unwrap();
    let max_depth = depth.await.unwrap();
    let total: usize = coupons.values().map(BTreeSet::len).sum();
    assert_eq!(total, USERS * ROUNDS);

    // Exactly one row per (user, template, day).
    let mut expected_rows = HashSet::new();
    let mut expected: HashMap<(String, NaiveDate), BTreeSet<Uuid>> = HashMap::new();
    for ((user, t), ids) in &coupons {
        let days: &[NaiveDate] = if t % 2 == 0 { &[d1, d3] } else { &[d1] };
        for d in days {
            expected_rows.insert((user.clone(), sns[*t].clone(), *d));
            expected.entry((user.clone(), *d)).or_default().extend(ids);
        }
    }
    let state = rows(&env).await.unwrap();
    let got_rows: HashSet<_> = state.keys().cloned().collect();
    assert_eq!(got_rows.len(), expected_rows.len());
    assert!(
        got_rows == expected_rows,
        "the rows are the expected (user, template, day)s"
    );
    assert!(state.values().all(|v| *v == (PENDING, 0)));

    // On the day (both days are due): one message per user and day, listing
    // exactly that user's coupons reminded that day.
    let report = send_at(&env, &pool, due(day, 1)).await.unwrap();
    let got = touch.drain(Duration::from_secs(5)).await.unwrap();
    assert_eq!(got.len(), expected.len(), "{report:?}");
    let mut seen = HashSet::new();
    for r in &got {
        let key = (r.body.user_id.clone(), r.body.notify_day);
        assert!(seen.insert(key.clone()), "two messages for {key:?}");
        assert_eq!(listed(r), expected[&key], "{key:?}");
    }
    assert_eq!(report.messages as usize, expected.len());
    assert_eq!(report.rows_sent as usize, expected_rows.len());
    // The projection kept up: the queue never held more than a fraction of the flow.
    assert!(
        (max_depth as usize) < total / 5,
        "coupon.events.notify held up to {max_depth} messages of {total}"
    );
    eprintln!("largest depth of coupon.events.notify while {total} events flowed: {max_depth}");
    workers.terminate().await.unwrap();
}
