//! Expiry reminders (docs/design.md §10, issue 14) over real Postgres and RabbitMQ:
//! the notify projection fills and cancels `notify_msg`, the sender (called
//! with a chosen "now") sends one message per user and day to a touch
//! system's queue bound to `coupon.notifications`.

use std::collections::{BTreeSet, HashMap, HashSet};

use chrono::Days;
use ledger::commands::reminders::{SendLimits, send_due};
use ledger::messaging::lazy_publisher::LazyPublisher;
use serde_json::json;
use tests::reminder_days::{
    CANCELLED, CATCH_UP, FAILED, PENDING, QUIET, SENT, at, due, expiry_day, listed, lock, template,
    users,
};
use tests::reminders::{TouchQueue, claim_at, claim_for, notify_caught_up, pool, rows, send_at};
use tests::scenario::checkout;
use tests::workers::{Workers, replay_both_ways};
use tests::{Env, Server};
use uuid::Uuid;

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
    // events (the sent ones are delivery facts) and finds them as they are,
    // in one pass as in several (the users' rows then rebuilt bucket by bucket).
    let args = ["replay", "--verify", "--wait-for-projections", "60"];
    let (code, stdout) = replay_both_ways(&env, &args).await;
    assert_eq!(code, Some(0), "{stdout}");
    assert!(stdout.contains("0 differences"), "{stdout}");
    // A row changed by hand is named.
    let client = env.db.client().await.unwrap();
    client
        .execute("UPDATE notify_msg SET status = 0 WHERE user_id = 'ua'", &[])
        .await
        .unwrap();
    let (code, stdout) = replay_both_ways(&env, &["replay", "--verify"]).await;
    assert_eq!(code, Some(1), "{stdout}");
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
    let store = env.store().await.unwrap();
    let senders = (0..2).map(|i| {
        let (pool, url, store) = (pool.clone(), env.vhost.amqp_url.clone(), store.clone());
        tokio::spawn(async move {
            let name = if i == 0 { "sender-a" } else { "sender-b" };
            let publisher = LazyPublisher::new(&url, name, store);
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
    let down = LazyPublisher::new(
        "amqp://guest:guest@127.0.0.1:1/%2f",
        "down",
        env.store().await.unwrap(),
    );
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

/// docs/design.md §10: a reminder gets no row only when its day has passed at
/// issue. A coupon issued after the notify hour of its reminder's day (15:00,
/// expiring tomorrow, reminded one day before) is still reminded: its row is
/// due at once and goes out at the sender's next run.
#[tokio::test(flavor = "multi_thread")]
async fn a_reminder_whose_hour_has_passed_at_issue_goes_out_at_the_next_run() {
    let env = Env::new().await.unwrap();
    let server = Server::start(&env).await.unwrap();
    let workers = Workers::start(&env, "relay,notify").unwrap();
    let pool = pool(&env, 2).unwrap();
    let mut touch = TouchQueue::new(&env, "test.touch").await.unwrap();
    let today = chrono::Utc::now()
        .with_timezone(&tests::reminder_days::TZ)
        .date_naive();
    // 15:00 business time today, or now if later: past today's 10:00.
    let issued_at = at(today, 15, 0, 0).max(chrono::Utc::now());
    let tomorrow = today + Days::new(1);
    let sn = template(&server, at(tomorrow, 23, 59, 59), json!([1, 3]), 1).await;
    claim_at(&pool, &sn, "late", issued_at).await.unwrap();
    notify_caught_up(&env, CATCH_UP).await.unwrap();

    let state = rows(&env).await.unwrap();
    let key = |d| ("late".to_owned(), sn.clone(), d);
    assert_eq!(state.get(&key(today)), Some(&(PENDING, 0)), "{state:?}");
    assert_eq!(
        state.len(),
        1,
        "the 3-day reminder's day had passed: {state:?}"
    );
    assert!(due(tomorrow, 1) < issued_at, "its hour had passed at issue");

    let report = send_at(&env, &pool, issued_at).await.unwrap();
    assert_eq!((report.messages, report.rows_sent), (1, 1), "{report:?}");
    let sent = touch.drain(QUIET).await.unwrap();
    assert_eq!(sent.len(), 1);
    assert_eq!(
        (sent[0].body.user_id.as_str(), sent[0].body.notify_day),
        ("late", today)
    );
    assert_eq!(rows(&env).await.unwrap()[&key(today)].0, SENT);
    workers.terminate().await.unwrap();
}
