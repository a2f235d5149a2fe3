//! Expiry reminders (DESIGN §10, issue 14) over real Postgres and RabbitMQ:
//! the notify projection fills and cancels `notify_msg`, the sender (called
//! with a chosen "now") sends one message per user and day to a touch
//! system's queue bound to `coupon.notifications`.

use std::collections::{BTreeSet, HashMap, HashSet};
use std::time::Duration;

use chrono::{DateTime, Days, NaiveDate, TimeZone, Utc};
use chrono_tz::Tz;
use ledger::commands::reminders::{SendLimits, send_due};
use ledger::domain::reminder::{NotifyAt, instant};
use ledger::messaging::lazy_publisher::LazyPublisher;
use ledger::messaging::message::encode;
use ledger::messaging::publish::Publisher;
use ledger::messaging::{self, topology};
use ledger::store::{GlobalCursor, read_all};
use serde_json::{Value, json};
use tests::reminders::{TouchQueue, claim_for, issue_for, notify_caught_up, pool, rows, send_at};
use tests::scenario::checkout;
use tests::workers::{Workers, ledger};
use tests::{Env, Server, template_body};
use uuid::Uuid;

const TZ: Tz = chrono_tz::Asia::Shanghai;
const CATCH_UP: Duration = Duration::from_secs(120);
const QUIET: Duration = Duration::from_secs(2);
const PENDING: i16 = 0;
const SENT: i16 = 1;
const FAILED: i16 = 2;
const CANCELLED: i16 = 3;

/// The expiry day used by a test: ten days ahead, business time.
fn expiry_day() -> NaiveDate {
    Utc::now().with_timezone(&TZ).date_naive() + Days::new(10)
}

/// `day` at `h:m:s` business time.
fn at(day: NaiveDate, h: u32, m: u32, s: u32) -> DateTime<Utc> {
    let local = day.and_hms_opt(h, m, s).unwrap();
    TZ.from_local_datetime(&local).unwrap().with_timezone(&Utc)
}

/// When the reminder `n` days before `expiry` goes out (10:00 business time).
fn due(expiry: NaiveDate, n: u64) -> DateTime<Utc> {
    instant(expiry - Days::new(n), TZ, NotifyAt::default()).unwrap()
}

/// An active template whose coupons expire at `end`, reminded `remind`.
async fn template(server: &Server, end: DateTime<Utc>, remind: Value, limit: i32) -> String {
    let mut body = template_body(1_000_000, limit);
    body["validity"] = json!({"type": "absolute",
        "begin": Utc::now() - chrono::Duration::hours(1), "end": end});
    body["remind_days_before"] = remind;
    server.activate_template(&body).await.unwrap()
}

fn users(names: &[&str]) -> Vec<String> {
    names.iter().map(|s| s.to_string()).collect()
}

/// Locks `coupon` on a new order of `user` and leaves it locked.
async fn lock(server: &Server, user: &str, coupon: Uuid) -> String {
    let order_id = format!("o-{}", Uuid::now_v7());
    let body = json!({
        "order": {"order_id": order_id, "user_id": user, "currency": "CNY",
                  "lines": [{"line_id": "l1", "sku": "s1", "category": "c1",
                             "quantity": 1, "unit_price": "150.00"}]},
        "coupon_ids": [coupon], "expected_payable": "130.00"
    });
    let (status, answer) = server.service_post("/v1/orders/lock", &body).await.unwrap();
    assert_eq!(status, 200, "{answer}");
    order_id
}

fn listed(r: &tests::reminders::Reminded) -> BTreeSet<Uuid> {
    r.body.coupons.iter().map(|c| c.coupon_id).collect()
}

#[tokio::test(flavor = "multi_thread")]
async fn used_voided_expired_and_locked_coupons_are_left_out_and_a_released_lock_is_mentioned() {
    let env = Env::new().await.unwrap();
    let server = Server::start(&env).await.unwrap();
    let workers = Workers::start(&env, "relay,balances,template_stats,notify").unwrap();
    let pool = pool(&env, 4).unwrap();
    let mut touch = TouchQueue::new(&env, "test.touch").await.unwrap();
    let day = expiry_day();
    let sn = template(&server, at(day, 23, 59, 59), json!(1), 2).await;
    // Expires earlier on the same day: the sweep below expires only these.
    let early = template(&server, at(day, 12, 0, 0), json!(1), 1).await;
    let names = ["ua", "ub", "ud", "ue", "uf", "uf", "ug"];
    let ids = claim_for(&pool, &sn, &users(&names), 10).await.unwrap();
    let by: HashMap<&str, Uuid> = names.iter().copied().zip(ids.iter().copied()).collect();
    let (uf_kept, uf_used) = (ids[4], ids[5]);
    claim_for(&pool, &early, &users(&["uc"]), 1).await.unwrap();

    checkout(&server, "ua", by["ua"], true).await.unwrap(); // used
    let void = format!("/v1/coupons/{}/void", by["ub"]);
    let (status, answer) = server.admin_post(&void, &json!({})).await.unwrap();
    assert_eq!(status, 200, "{answer}");
    checkout(&server, "ud", by["ud"], false).await.unwrap(); // locked, then released
    let held = lock(&server, "ue", by["ue"]).await; // still locked when due
    checkout(&server, "uf", uf_used, true).await.unwrap();
    {
        let mut client = pool.get().await.unwrap();
        let tx = client.transaction().await.unwrap();
        let n = ledger::commands::coupons::expire_coupons(&tx, at(day, 12, 0, 1), 10)
            .await
            .unwrap();
        tx.commit().await.unwrap();
        assert_eq!(n, 1, "only the early template's coupon expires");
    }
    notify_caught_up(&env, CATCH_UP).await.unwrap();

    let d1 = day - Days::new(1);
    let state = rows(&env).await.unwrap();
    let status = |user: &str, t: &str| state[&(user.to_owned(), t.to_owned(), d1)].0;
    assert_eq!(status("ua", &sn), CANCELLED, "used");
    assert_eq!(status("ub", &sn), CANCELLED, "voided");
    assert_eq!(status("uc", &early), CANCELLED, "expired");
    assert_eq!(status("ud", &sn), PENDING, "lock released");
    assert_eq!(status("ue", &sn), PENDING, "a lock does not cancel");
    assert_eq!(status("uf", &sn), PENDING, "another coupon still unused");
    assert_eq!(state.len(), 7, "one row per user, template and day");

    let report = send_at(&env, &pool, due(day, 1)).await.unwrap();
    assert_eq!(report.messages, 3, "{report:?}");
    let got = touch.drain(QUIET).await.unwrap();
    let by_user: HashMap<&str, &tests::reminders::Reminded> =
        got.iter().map(|r| (r.body.user_id.as_str(), r)).collect();
    assert_eq!(got.len(), 3, "{got:?}");
    assert_eq!(listed(by_user["ud"]), BTreeSet::from([by["ud"]]));
    assert_eq!(listed(by_user["uf"]), BTreeSet::from([uf_kept]));
    assert_eq!(listed(by_user["ug"]), BTreeSet::from([by["ug"]]));
    let ug = by_user["ug"];
    assert_eq!(ug.message_id, format!("notify-1-{d1}-ug"));
    assert_eq!(ug.message_type, "ExpiryReminder");
    assert_eq!(ug.body.notify_day, d1);
    let c = &ug.body.coupons[0];
    assert_eq!(
        (c.template_sn.as_str(), c.currency.as_str()),
        (sn.as_str(), "CNY")
    );
    assert_eq!(c.face_value.to_string(), "20.00");
    assert_eq!(c.expires_at, at(day, 23, 59, 59));
    let state = rows(&env).await.unwrap();
    assert_eq!(state[&("ug".into(), sn.clone(), d1)], (SENT, 1));
    assert_eq!(state[&("ue".into(), sn.clone(), d1)].0, PENDING);

    // The lock is cancelled later that day: the next run mentions it.
    let cancel = format!("/v1/orders/{held}/cancel");
    let (status, answer) = server.service_post(&cancel, &json!({})).await.unwrap();
    assert_eq!(status, 200, "{answer}");
    let report = send_at(&env, &pool, due(day, 1) + chrono::Duration::minutes(1))
        .await
        .unwrap();
    assert_eq!(report.messages, 1, "{report:?}");
    let got = touch.drain(QUIET).await.unwrap();
    assert_eq!(got.len(), 1);
    assert_eq!(got[0].body.user_id, "ue");
    assert_eq!(listed(&got[0]), BTreeSet::from([by["ue"]]));
    // Nothing is due any more: a third run sends nothing.
    let report = send_at(&env, &pool, due(day, 1) + chrono::Duration::minutes(2))
        .await
        .unwrap();
    assert_eq!(report.messages, 0);

    // `replay --verify` rebuilds the pending and cancelled rows from the
    // events (the sent ones are delivery facts) and finds them as they are.
    let out = ledger(
        &env,
        &["replay", "--verify", "--wait-for-projections", "60"],
    )
    .await
    .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(stdout.contains("0 differences"), "{stdout}");
    // A row changed by hand is named.
    let client = env.db.client().await.unwrap();
    client
        .execute("UPDATE notify_msg SET status = 0 WHERE user_id = 'ua'", &[])
        .await
        .unwrap();
    let out = ledger(&env, &["replay", "--verify"]).await.unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{stdout}");
    let key =
        format!("notify_msg (\"ua\", \"{sn}\", {d1}) status: live pending vs replayed cancelled");
    assert!(stdout.contains(&key), "{stdout}");
    workers.terminate().await.unwrap();
}

#[tokio::test(flavor = "multi_thread")]
async fn two_senders_at_once_send_each_user_one_message_per_day() {
    let env = Env::new().await.unwrap();
    let server = Server::start(&env).await.unwrap();
    let workers = Workers::start(&env, "relay,notify").unwrap();
    let pool = pool(&env, 8).unwrap();
    let mut touch = TouchQueue::new(&env, "test.touch").await.unwrap();
    let day = expiry_day();
    let holders: Vec<String> = (0..300).map(|i| format!("u{i}")).collect();
    for _ in 0..3 {
        let sn = template(&server, at(day, 23, 59, 59), json!([2, 1]), 1).await;
        claim_for(&pool, &sn, &holders, 100).await.unwrap();
    }
    notify_caught_up(&env, CATCH_UP).await.unwrap();
    assert_eq!(rows(&env).await.unwrap().len(), 300 * 3 * 2);

    // Both days are due: two senders, small batches, at the same time.
    let now = due(day, 1);
    let limits = SendLimits {
        batch: 25,
        ..SendLimits::default()
    };
    let senders = (0..2).map(|i| {
        let (pool, url) = (pool.clone(), env.vhost.amqp_url.clone());
        tokio::spawn(async move {
            let name = if i == 0 { "sender-a" } else { "sender-b" };
            let publisher = LazyPublisher::new(&url, name);
            send_due(&pool, &publisher, now, limits).await.unwrap()
        })
    });
    let reports = futures_util::future::join_all(senders).await;
    let messages: u64 = reports.iter().map(|r| r.as_ref().unwrap().messages).sum();
    let got = touch.drain(QUIET).await.unwrap();
    let mut seen = HashSet::new();
    for r in &got {
        assert!(
            seen.insert((r.body.user_id.clone(), r.body.notify_day)),
            "a second message for {} on {}",
            r.body.user_id,
            r.body.notify_day
        );
        assert_eq!(r.body.coupons.len(), 3, "every template of the day");
    }
    assert_eq!(got.len(), 600, "300 users, two days");
    assert_eq!(messages, 600);
    let state = rows(&env).await.unwrap();
    assert!(state.values().all(|(s, a)| (*s, *a) == (SENT, 1)));
    workers.terminate().await.unwrap();
}

#[tokio::test(flavor = "multi_thread")]
async fn a_broker_that_is_down_leaves_rows_pending_with_attempts_then_all_go_once() {
    let env = Env::new().await.unwrap();
    let server = Server::start(&env).await.unwrap();
    let workers = Workers::start(&env, "relay,notify").unwrap();
    let pool = pool(&env, 4).unwrap();
    let mut touch = TouchQueue::new(&env, "test.touch").await.unwrap();
    let day = expiry_day();
    let sn = template(&server, at(day, 23, 59, 59), json!([2, 1]), 1).await;
    let holders: Vec<String> = (0..50).map(|i| format!("u{i}")).collect();
    claim_for(&pool, &sn, &holders, 50).await.unwrap();
    notify_caught_up(&env, CATCH_UP).await.unwrap();

    // Nothing listens on port 1: the broker is down for this sender.
    let down = LazyPublisher::new("amqp://guest:guest@127.0.0.1:1/%2f", "down");
    let bound = SendLimits {
        max_attempts: 1,
        ..SendLimits::default()
    };
    let report = send_due(&pool, &down, due(day, 2), bound).await.unwrap();
    assert_eq!((report.messages, report.publish_errors), (0, 1));
    let d2 = day - Days::new(2);
    let d1 = day - Days::new(1);
    let state = rows(&env).await.unwrap();
    for (key, value) in &state {
        let expected = if key.2 == d2 {
            (FAILED, 1)
        } else {
            (PENDING, 0)
        };
        assert_eq!(*value, expected, "{key:?}");
    }
    for _ in 0..2 {
        let r = send_due(&pool, &down, due(day, 1), SendLimits::default())
            .await
            .unwrap();
        assert_eq!((r.messages, r.rows_sent), (0, 0));
    }
    let state = rows(&env).await.unwrap();
    assert!(
        state
            .iter()
            .filter(|(k, _)| k.2 == d1)
            .all(|(_, v)| *v == (PENDING, 2)),
        "nothing marked sent, two attempts counted"
    );

    // The broker is back: every pending reminder goes, once.
    let report = send_at(&env, &pool, due(day, 1)).await.unwrap();
    assert_eq!(report.messages, 50);
    let again = send_at(&env, &pool, due(day, 1)).await.unwrap();
    assert_eq!(again.messages, 0);
    let got = touch.drain(QUIET).await.unwrap();
    assert_eq!(got.len(), 50);
    assert!(
        got.iter().all(|r| r.body.notify_day == d1),
        "failed rows stay failed"
    );
    let users: HashSet<&str> = got.iter().map(|r| r.body.user_id.as_str()).collect();
    assert_eq!(users.len(), 50);
    let state = rows(&env).await.unwrap();
    assert!(
        state
            .iter()
            .filter(|(k, _)| k.2 == d1)
            .all(|(_, v)| *v == (SENT, 3))
    );

    // Retention: sent rows go once their time is more than 7 days old;
    // failed rows stay for a look.
    let retention = chrono::Duration::days(7);
    let early =
        ledger::commands::reminders::purge(&pool, due(day, 1) + retention, retention, 1_000)
            .await
            .unwrap();
    assert_eq!(early, 0, "not older than the retention yet");
    let later = due(day, 1) + retention + chrono::Duration::minutes(1);
    let purged = ledger::commands::reminders::purge(&pool, later, retention, 1_000)
        .await
        .unwrap();
    assert_eq!(purged, 50);
    let state = rows(&env).await.unwrap();
    assert_eq!(state.len(), 50);
    assert!(state.iter().all(|(k, v)| k.2 == d2 && *v == (FAILED, 1)));
    workers.terminate().await.unwrap();
}

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
    let amqp = messaging::connect(&env.vhost.amqp_url, "test")
        .await
        .unwrap();
    let publisher = Publisher::open(&amqp).await.unwrap();
    topology::declare(publisher.channel()).await.unwrap();
    let batch = [encode(issued), encode(issued), encode(used), encode(issued)];
    publisher
        .publish_all("", topology::NOTIFY_QUEUE, &batch)
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
    let amqp = messaging::connect(&env.vhost.amqp_url, "test")
        .await
        .unwrap();
    let publisher = Publisher::open(&amqp).await.unwrap();
    topology::declare(publisher.channel()).await.unwrap();
    publisher
        .publish_all("", topology::NOTIFY_QUEUE, &batch)
        .await
        .unwrap();
    let workers = Workers::start(&env, "notify").unwrap();

    let channel = amqp.create_channel().await.unwrap();
    let mut dead = channel
        .basic_consume(
            topology::DEAD_LETTERS_QUEUE.into(),
            "t".into(),
            lapin::options::BasicConsumeOptions::default(),
            lapin::types::FieldTable::default(),
        )
        .await
        .unwrap();
    use futures_util::StreamExt;
    let letter = tokio::time::timeout(Duration::from_secs(60), dead.next())
        .await
        .expect("the poison message is dead-lettered")
        .unwrap()
        .unwrap();
    assert_eq!(letter.data, b"{not json");
    let headers = letter.properties.headers().clone().unwrap();
    assert_eq!(
        headers.inner().get("x-consumer"),
        Some(&lapin::types::AMQPValue::LongString("notify".into()))
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
    let (stop, depth) = watch_depth(&env, topology::NOTIFY_QUEUE);
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
