//! `ledger replay` while the projections are behind the log: their tables'
//! differences are reported as lag (with the positions), exit 3; a hand
//! edit meanwhile is still corruption, exit 1; caught up, exit 0.

use std::time::Duration;

use tests::scenario::claim_many;
use tests::workers::{Workers, projections_caught_up, replay_both_ways};
use tests::{Env, Server};

const WORKERS: &str = "relay,balances,template_stats";

/// In one pass and in several, which must agree.
async fn replay(env: &Env, args: &[&str]) -> (Option<i32>, String) {
    replay_both_ways(env, args).await
}

#[tokio::test(flavor = "multi_thread")]
async fn projections_behind_the_log_are_lag_not_corruption() {
    let env = Env::new().await.unwrap();
    let server = Server::start(&env).await.unwrap();
    let workers = Workers::start(&env, WORKERS).unwrap();
    let sn = server.active_template(100, 1).await.unwrap();
    claim_many(&env, &sn, 0..3, 3).await.unwrap();
    projections_caught_up(&env, Duration::from_secs(30))
        .await
        .unwrap();
    workers.terminate().await.unwrap();
    let (code, stdout) = replay(&env, &["replay"]).await;
    assert_eq!(code, Some(0), "{stdout}");

    // The workers are stopped: these claims reach the write model, not the projections.
    let late = claim_many(&env, &sn, 3..5, 2).await.unwrap();
    let (code, stdout) = replay(&env, &["replay"]).await;
    assert_eq!(code, Some(3), "{stdout}");
    for projection in ["balances", "template_stats"] {
        let said = stdout.lines().any(|l| {
            l.starts_with(&format!("lag: projection {projection} is 2 events behind"))
                && l.contains("(applied up to position ")
                && l.contains("the log's head is position ")
        });
        assert!(said, "no lag line for {projection} in\n{stdout}");
    }
    assert!(
        stdout.contains(r#"lag: balances ("u3", "unused") count: live (none) vs replayed 1"#),
        "{stdout}"
    );
    assert!(stdout.contains("(7 projection lag, 0 not lag)"), "{stdout}");
    for line in stdout.lines().filter(|l| !l.starts_with("replayed ")) {
        assert!(line.starts_with("lag: "), "not marked as lag: {line}");
    }

    // A hand edit of the write model is corruption, lag or not.
    let client = env.db.client().await.unwrap();
    let sql = format!(
        "UPDATE coupons SET user_id = 'mallory' WHERE id = '{}'",
        late[0]
    );
    client.batch_execute(&sql).await.unwrap();
    let (code, stdout) = replay(&env, &["replay"]).await;
    assert_eq!(code, Some(1), "{stdout}");
    let edit = format!("\ncoupons {} user_id: live mallory vs replayed u3", late[0]);
    assert!(stdout.contains(&edit), "{stdout}");
    client
        .batch_execute(&format!(
            "UPDATE coupons SET user_id = 'u3' WHERE id = '{}'",
            late[0]
        ))
        .await
        .unwrap();

    // Waiting for the projections: they catch up, nothing differs.
    let workers = Workers::start(&env, WORKERS).unwrap();
    let (code, stdout) = replay(&env, &["replay", "--wait-for-projections", "30"]).await;
    assert_eq!(code, Some(0), "{stdout}");
    assert!(!stdout.contains("lag"), "{stdout}");
    workers.terminate().await.unwrap();
}
