//! Crash and restart tests: they restart RabbitMQ for every vhost, so they
//! are `#[ignore]`d in the parallel suite and run alone, serially, by
//! `scripts/test` (`--run-ignored only --test-threads 1`).

use std::time::Duration;

use tests::broker::{rabbitmqctl, restart_broker};
use tests::scenario::{checkout, claim_many};
use tests::subscriber::{Subscriber, ids};
use tests::workers::{Workers, assert_replay_verifies, ledger, projections_caught_up};
use tests::{Env, Server};

#[tokio::test(flavor = "multi_thread")]
#[ignore = "restarts RabbitMQ: scripts/test runs it alone"]
async fn relay_crash_and_broker_restart_lose_nothing_and_projections_match_replay() {
    let env = Env::new().await.unwrap();
    let server = Server::start(&env).await.unwrap();
    // Declared now, read at the end: it must hold every event by then.
    drop(
        Subscriber::new(&env, "analytics.restart", true)
            .await
            .unwrap(),
    );
    let sn = server.active_template(100_000, 1).await.unwrap();
    let workers = Workers::start(&env, "relay,balances,template_stats").unwrap();

    let writer = {
        let sn = sn.clone();
        let env = &env;
        async move {
            for round in 0..30 {
                claim_many(env, &sn, round * 100..(round + 1) * 100, 50)
                    .await
                    .unwrap();
                tokio::time::sleep(Duration::from_millis(100)).await;
            }
        }
    };
    let chaos = async {
        tokio::time::sleep(Duration::from_millis(700)).await;
        workers.kill().await.unwrap();
        tokio::time::sleep(Duration::from_millis(300)).await;
        let workers = Workers::start(&env, "relay,balances,template_stats").unwrap();
        tokio::time::sleep(Duration::from_millis(700)).await;
        restart_broker(Duration::from_secs(2)).await;
        workers
    };
    let ((), workers) = tokio::join!(writer, chaos);
    let coupons = claim_many(&env, &sn, 3_000..3_010, 10).await.unwrap();
    for (i, coupon) in coupons.iter().enumerate() {
        checkout(&server, &format!("u{}", 3_000 + i), *coupon, i % 2 == 0)
            .await
            .unwrap();
    }

    let client = env.db.client().await.unwrap();
    let rows = client
        .query("SELECT event_id FROM events", &[])
        .await
        .unwrap();
    let stored: std::collections::HashSet<uuid::Uuid> = rows.iter().map(|r| r.get(0)).collect();
    let mut subscriber = Subscriber::new(&env, "analytics.restart", true)
        .await
        .unwrap();
    let got = subscriber
        .receive_until(Duration::from_secs(60), |got| {
            ids(got).len() >= stored.len()
        })
        .await
        .unwrap();
    assert_eq!(ids(&got), stored, "the subscriber has every event");

    projections_caught_up(&env, Duration::from_secs(120))
        .await
        .unwrap();
    assert_replay_verifies(&env).await;
    workers.terminate().await.unwrap();
}

async fn job(server: &Server, id: &str) -> serde_json::Value {
    let r = server
        .admin(reqwest::Method::GET, &format!("/v1/issuance-jobs/{id}"))
        .send()
        .await
        .unwrap();
    r.json().await.unwrap()
}

#[tokio::test(flavor = "multi_thread")]
#[ignore = "restarts RabbitMQ: scripts/test runs it alone"]
async fn a_job_survives_worker_kills_and_a_broker_restart_exactly_once() {
    let env = Env::new().await.unwrap();
    let server = Server::start(&env).await.unwrap();
    let sn = server
        .activate_template(&tests::template_body(150_000, 2))
        .await
        .unwrap();
    // 200,000 lines over 90,000 users: repeats, the per-user limit and the
    // quota all decide lines.
    let text: String = (0..200_000).map(|i| format!("k{}\n", i % 90_000)).collect();
    let r = server
        .admin(
            reqwest::Method::POST,
            &format!("/v1/issuance-jobs?template={sn}"),
        )
        .body(text)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 202);
    let id = r.json::<serde_json::Value>().await.unwrap()["job_id"]
        .as_str()
        .unwrap()
        .to_owned();
    // The projections are left out: at today's rate they would take minutes
    // to follow 150,000 events, and the write model is what this checks.
    let mut workers = Workers::start(&env, "issuance").unwrap();
    for round in 0..6_u64 {
        // Kill at a different moment each round (0.3 s to 1.3 s in).
        tokio::time::sleep(Duration::from_millis(300 + (round * 377) % 1000)).await;
        if round == 3 {
            restart_broker(Duration::from_secs(1)).await;
            continue;
        }
        workers.kill().await.unwrap();
        workers = Workers::start(&env, "issuance").unwrap();
    }
    let mut done = job(&server, &id).await;
    for _ in 0..1_200 {
        if done["status"] == "done" {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
        done = job(&server, &id).await;
    }
    assert_eq!(done["status"], "done", "{done}");
    let decided: i64 = ["issued", "over_limit", "sold_out", "cancelled"]
        .iter()
        .map(|k| done[k].as_i64().unwrap())
        .sum();
    assert_eq!(
        (decided, done["issued"].as_i64()),
        (200_000, Some(150_000)),
        "{done}"
    );
    let client = env.db.client().await.unwrap();
    let row = client
        .query_one(
            "SELECT (SELECT count(*) FROM (SELECT user_id FROM coupons GROUP BY user_id
                       HAVING count(*) > 2) AS x),
                    (SELECT count(*) FROM coupons),
                    (SELECT count(*) FROM events WHERE event_type = 'CouponIssued'),
                    (SELECT count(*) FROM issuance_lines)",
            &[],
        )
        .await
        .unwrap();
    let (over, coupons, events, lines): (i64, i64, i64, i64) =
        (row.get(0), row.get(1), row.get(2), row.get(3));
    assert_eq!((over, coupons, events), (0, 150_000, 150_000));
    assert_eq!(
        lines, 50_000,
        "every line without a coupon is reported once"
    );
    // Every write-model table agrees with the log; the projections, which
    // did not run, are only behind (exit 3: lag, no corruption).
    let out = ledger(&env, &["replay", "--verify"]).await.unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(3), "{stdout}");
    workers.terminate().await.unwrap();
}

#[tokio::test(flavor = "multi_thread")]
#[ignore = "restarts RabbitMQ: scripts/test runs it alone"]
async fn reminders_due_while_rabbitmq_is_stopped_are_sent_once_after_it_returns() {
    use chrono::{Days, TimeZone, Utc};
    use ledger::domain::reminder::{NotifyAt, instant};
    use tests::reminders::{TouchQueue, claim_for, notify_caught_up, pool, rows};

    let env = Env::new().await.unwrap();
    let server = Server::start(&env).await.unwrap();
    let workers = Workers::start(&env, "relay,notify").unwrap();
    let pool = pool(&env, 4).unwrap();
    let tz = chrono_tz::Asia::Shanghai;
    let day = Utc::now().with_timezone(&tz).date_naive() + Days::new(10);
    let end = tz
        .from_local_datetime(&day.and_hms_opt(23, 59, 59).unwrap())
        .unwrap();
    let mut body = tests::template_body(1_000, 1);
    body["validity"] = serde_json::json!({"type": "absolute",
        "begin": Utc::now() - chrono::Duration::hours(1), "end": end});
    let sn = server.activate_template(&body).await.unwrap();
    let holders: Vec<String> = (0..200).map(|i| format!("u{i}")).collect();
    claim_for(&pool, &sn, &holders, 100).await.unwrap();
    notify_caught_up(&env, Duration::from_secs(120))
        .await
        .unwrap();
    drop(TouchQueue::new(&env, "touch.restart").await.unwrap());
    let due = instant(day - Days::new(1), tz, NotifyAt::default()).unwrap();

    // One sender process-wide publisher, as the worker keeps one.
    let publisher = ledger::messaging::lazy_publisher::LazyPublisher::new(
        &env.vhost.amqp_url,
        "sender",
        env.store().await.unwrap(),
    );
    let limits = ledger::commands::reminders::SendLimits::default();
    rabbitmqctl(&["stop_app"]).await;
    let down = ledger::commands::reminders::send_due(&pool, &publisher, due, limits)
        .await
        .unwrap();
    let state = rows(&env).await.unwrap();
    rabbitmqctl(&["start_app"]).await;
    rabbitmqctl(&["await_startup"]).await;
    assert_eq!(
        (down.messages, down.rows_sent, down.publish_errors),
        (0, 0, 1)
    );
    assert!(
        state
            .values()
            .all(|(status, attempts)| *status == 0 && *attempts == 1),
        "nothing marked sent while the broker was down"
    );

    let mut sent = 0;
    for _ in 0..30 {
        let report = ledger::commands::reminders::send_due(&pool, &publisher, due, limits)
            .await
            .unwrap();
        sent += report.messages;
        if sent == 200 {
            break;
        }
        tokio::time::sleep(Duration::from_secs(1)).await;
    }
    assert_eq!(sent, 200);
    // The queue (durable) was declared before the stop; its consumer died
    // with the broker, so read it afresh.
    let mut touch = TouchQueue::new(&env, "touch.restart").await.unwrap();
    let got = touch.drain(Duration::from_secs(3)).await.unwrap();
    let users: std::collections::HashSet<String> =
        got.iter().map(|r| r.body.user_id.clone()).collect();
    assert_eq!((got.len(), users.len()), (200, 200), "each once");
    let state = rows(&env).await.unwrap();
    assert!(
        state
            .values()
            .all(|(status, attempts)| (*status, *attempts) == (1, 2))
    );
    workers.terminate().await.unwrap();
}

/// The pipeline's workers, one process each, so each can be killed alone.
const PIPELINE: [&str; 4] = ["relay", "balances", "template_stats", "notify"];

#[tokio::test(flavor = "multi_thread")]
#[ignore = "restarts RabbitMQ: scripts/test runs it alone"]
async fn a_hundred_thousand_events_through_five_kills_of_each_worker_and_a_broker_restart() {
    use tests::reminders::{issue_for, notify_caught_up, pool};

    let env = Env::new().await.unwrap();
    let server = Server::start(&env).await.unwrap();
    drop(
        Subscriber::new(&env, "analytics.kills", true)
            .await
            .unwrap(),
    );
    let sn = server.active_template(100_000, 1).await.unwrap();
    let mut workers: Vec<Workers> = PIPELINE
        .iter()
        .map(|w| Workers::start(&env, w).unwrap())
        .collect();

    let pool = pool(&env, 2).unwrap();
    let users: Vec<String> = (0..99_990).map(|i| format!("k{i}")).collect();
    let issue = async {
        // In slices, so that events keep coming while the workers die.
        for slice in users.chunks(10_000) {
            issue_for(&pool, &sn, slice).await.unwrap();
        }
    };
    let chaos = async {
        for round in 0..5_u64 {
            for (i, name) in PIPELINE.iter().enumerate() {
                let wait = 400 + (round * 331 + i as u64 * 173) % 900;
                tokio::time::sleep(Duration::from_millis(wait)).await;
                let dead = std::mem::replace(&mut workers[i], Workers::start(&env, name).unwrap());
                dead.kill().await.unwrap();
            }
            if round == 2 {
                restart_broker(Duration::from_secs(2)).await;
            }
        }
    };
    tokio::join!(issue, chaos);
    // Ten claims to finish the 100,000, and streams of several versions.
    let coupons = claim_many(&env, &sn, 0..10, 10).await.unwrap();
    for (i, coupon) in coupons.iter().enumerate() {
        checkout(&server, &format!("u{i}"), *coupon, i % 2 == 0)
            .await
            .unwrap();
    }

    let client = env.db.client().await.unwrap();
    let rows = client
        .query("SELECT event_id FROM events", &[])
        .await
        .unwrap();
    let stored: std::collections::HashSet<uuid::Uuid> = rows.iter().map(|r| r.get(0)).collect();
    assert!(stored.len() > 100_000, "{} events", stored.len());
    projections_caught_up(&env, Duration::from_secs(240))
        .await
        .unwrap();
    notify_caught_up(&env, Duration::from_secs(60))
        .await
        .unwrap();
    assert_replay_verifies(&env).await;

    let mut subscriber = Subscriber::new(&env, "analytics.kills", true)
        .await
        .unwrap();
    // Counted as they arrive: `ids` of everything per message is quadratic.
    let mut seen = std::collections::HashSet::new();
    let got = subscriber
        .receive_until(Duration::from_secs(60), |got| {
            if let Some(id) = got
                .last()
                .and_then(|r| r.message_id.parse::<uuid::Uuid>().ok())
            {
                seen.insert(id);
            }
            seen.len() >= stored.len()
        })
        .await
        .unwrap();
    assert_eq!(ids(&got), stored, "the subscriber has every event");
    // Duplicates on the wire are allowed around each crash; the inbox made
    // them no-ops (the replay above found no difference).
    eprintln!(
        "{} events, the subscriber received {} messages",
        stored.len(),
        got.len()
    );
    for w in workers {
        w.terminate().await.unwrap();
    }
}
