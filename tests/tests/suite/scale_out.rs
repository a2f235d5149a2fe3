//! Two processes of each projection on the same queues: the broker keeps
//! exactly one consumer active per queue (single active consumer), the
//! other takes over when the active one is killed, and the projections end
//! equal to a replay of the log (docs/event-pipeline.md).

use std::collections::HashMap;
use std::time::Duration;

use ledger::messaging::topology::PROJECTION_QUEUES;
use tests::scenario::{checkout, claim_many};
use tests::workers::{Workers, assert_replay_verifies, projections_caught_up};
use tests::{Env, Server};
use tokio::process::Command;

const PROJECTIONS: &str = "balances,template_stats,notify";

/// Per projection queue: (consumers, active consumers), as the broker
/// sees them now.
async fn consumers(env: &Env) -> HashMap<String, (usize, usize)> {
    let out = Command::new("rabbitmqctl")
        .args(["list_consumers", "-q", "--no-table-headers", "--vhost"])
        .arg(&env.vhost.name)
        .args(["queue_name", "active"])
        .output()
        .await
        .unwrap();
    assert!(out.status.success(), "rabbitmqctl list_consumers");
    let mut by_queue: HashMap<String, (usize, usize)> = HashMap::new();
    for line in String::from_utf8_lossy(&out.stdout).lines() {
        let mut cols = line.split_whitespace();
        let (Some(queue), Some(active)) = (cols.next(), cols.next()) else {
            continue;
        };
        let entry = by_queue.entry(queue.to_owned()).or_default();
        entry.0 += 1;
        entry.1 += usize::from(active == "true");
    }
    by_queue
}

/// Waits until every projection queue has `n` consumers, exactly one active.
async fn wait_for_consumers(env: &Env, n: usize) {
    let mut seen = HashMap::new();
    for _ in 0..60 {
        seen = consumers(env).await;
        if PROJECTION_QUEUES
            .iter()
            .all(|q| seen.get(*q) == Some(&(n, 1)))
        {
            return;
        }
        tokio::time::sleep(Duration::from_millis(500)).await;
    }
    panic!("expected {n} consumers, one active, on each projection queue: {seen:?}");
}

/// Claims for `users` and checks out every tenth coupon (locked, then used
/// or cancelled: streams of several versions), while `killed` is SIGKILLed.
async fn load_while_killing(
    env: &Env,
    server: &Server,
    sn: &str,
    users: std::ops::Range<usize>,
    killed: Workers,
) {
    let first = users.start;
    let load = async {
        let coupons = claim_many(env, sn, users, 50).await.unwrap();
        for (i, coupon) in coupons.iter().enumerate().step_by(10) {
            checkout(server, &format!("u{}", first + i), *coupon, i % 20 == 0)
                .await
                .unwrap();
        }
    };
    let kill = async {
        tokio::time::sleep(Duration::from_millis(600)).await;
        killed.kill().await.unwrap();
    };
    tokio::join!(load, kill);
}

#[tokio::test(flavor = "multi_thread")]
async fn two_processes_of_a_projection_one_active_failover_exact() {
    let env = Env::new().await.unwrap();
    let server = Server::start(&env).await.unwrap();
    let sn = server.active_template(10_000, 1).await.unwrap();
    let relay = Workers::start(&env, "relay").unwrap();
    let a = Workers::start(&env, PROJECTIONS).unwrap();
    let b = Workers::start(&env, PROJECTIONS).unwrap();
    wait_for_consumers(&env, 2).await;

    load_while_killing(&env, &server, &sn, 0..1_000, a).await;
    let c = Workers::start(&env, PROJECTIONS).unwrap();
    wait_for_consumers(&env, 2).await;
    // Whichever of b and c is active, killing b then leaves c alone: the
    // active one was killed at least once across the two rounds.
    load_while_killing(&env, &server, &sn, 1_000..2_000, b).await;
    wait_for_consumers(&env, 1).await;

    projections_caught_up(&env, Duration::from_secs(120))
        .await
        .unwrap();
    assert_replay_verifies(&env).await;
    c.terminate().await.unwrap();
    relay.terminate().await.unwrap();
}
