//! The binaries take a cluster's addresses (docs/design.md §17), checked
//! here on the single-node services: an AMQP_URL naming a dead node first
//! still connects (to the next one); lag-tolerant reads go to
//! DATABASE_REPLICA_URL while it answers within LEDGER_REPLICA_MAX_LAG_MS,
//! and to the primary when it does not; /readyz says which.

use std::time::Duration;

use serde_json::Value;
use tests::{Env, Server};

async fn ready(server: &Server) -> Value {
    // The cluster view is for operators (`workers:read`).
    let r = server
        .admin(reqwest::Method::GET, "/readyz")
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200);
    r.json().await.unwrap()
}

/// Waits until the readiness body's `cluster` satisfies `done`.
async fn cluster_until(server: &Server, done: impl Fn(&Value) -> bool) -> Value {
    for _ in 0..50 {
        let body = ready(server).await;
        if done(&body["cluster"]) {
            return body["cluster"].clone();
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    panic!("readiness never showed it: {}", ready(server).await);
}

#[tokio::test(flavor = "multi_thread")]
async fn a_dead_first_node_is_passed_over_and_reads_go_to_a_replica_that_keeps_up() {
    let env = Env::new().await.unwrap();
    let dead_first = format!(
        "{},{}",
        env.vhost.amqp_url.replace("127.0.0.1:5672", "127.0.0.1:1"),
        env.vhost.amqp_url
    );
    let replica = env.db.url();
    let server = Server::start_with(
        &env,
        &[
            ("AMQP_URL", &dead_first),
            ("DATABASE_REPLICA_URL", &replica),
        ],
    )
    .await
    .unwrap();
    let cluster = cluster_until(&server, |c| c["reads_on_replica"] == true).await;
    assert_eq!(cluster["replica_lag_ms"], 0, "{cluster}");
    assert!(
        cluster["postgres_primary"]
            .as_str()
            .unwrap()
            .ends_with(":5432"),
        "{cluster}"
    );
    assert!(ready(&server).await["rabbitmq"].as_bool().unwrap());
    let sn = server.active_template(10, 1).await.unwrap();
    let ch = server.channel_for(&sn).await.unwrap();
    let (status, body) = server.claim(&ch, &sn, "ann").await.unwrap();
    assert_eq!(status, 201, "{body}");
    let (status, wallet) = server.service_get("/v1/users/ann/coupons").await.unwrap();
    assert_eq!(
        (status, wallet["total"].as_i64()),
        (200, Some(1)),
        "{wallet}"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn reads_stay_on_the_primary_while_the_replica_does_not_answer() {
    let env = Env::new().await.unwrap();
    let replica = env.db.url().replace(":5432/", ":1/");
    let server = Server::start_with(&env, &[("DATABASE_REPLICA_URL", &replica)])
        .await
        .unwrap();
    tokio::time::sleep(Duration::from_millis(1_500)).await;
    let cluster = ready(&server).await["cluster"].clone();
    assert_eq!(cluster["reads_on_replica"], false, "{cluster}");
    assert!(cluster["replica_lag_ms"].is_null(), "{cluster}");
    let (status, wallet) = server.service_get("/v1/users/bob/coupons").await.unwrap();
    assert_eq!(
        (status, wallet["total"].as_i64()),
        (200, Some(0)),
        "{wallet}"
    );
}

#[tokio::test]
async fn a_sentinel_url_without_a_primary_name_is_refused_naming_its_variable() {
    let env = Env::new().await.unwrap();
    let out = tests::workers::ledger(&env, &["migrate"]).await.unwrap();
    assert!(out.status.success());
    let out = tokio::process::Command::new(tests::bin("ledger"))
        .arg("migrate")
        .envs(env.vars())
        .env("REDIS_URL", "redis+sentinel://127.0.0.1:26391")
        .output()
        .await
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        !out.status.success() && stderr.contains("REDIS_URL"),
        "{stderr}"
    );
}
