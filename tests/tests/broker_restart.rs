//! Crash and restart tests: they restart RabbitMQ for every vhost, so they
//! are `#[ignore]`d in the parallel suite and run alone, serially, by
//! `scripts/test` (`--run-ignored only --test-threads 1`).

use std::time::Duration;

use tests::scenario::{checkout, claim_many};
use tests::subscriber::{Subscriber, ids};
use tests::workers::{Workers, ledger, projections_caught_up};
use tests::{Env, Server};
use tokio::process::Command;

async fn rabbitmqctl(args: &[&str]) {
    let status = Command::new("rabbitmqctl")
        .args(args)
        .status()
        .await
        .unwrap();
    assert!(status.success(), "rabbitmqctl {args:?}");
}

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
        rabbitmqctl(&["stop_app"]).await;
        tokio::time::sleep(Duration::from_secs(2)).await;
        rabbitmqctl(&["start_app"]).await;
        rabbitmqctl(&["await_startup"]).await;
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
    let out = ledger(&env, &["replay", "--verify"]).await.unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{stdout}");
    assert!(stdout.contains("0 differences"), "{stdout}");
    workers.terminate().await.unwrap();
}
