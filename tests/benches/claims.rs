//! Hot-template claims over HTTP against the naive baseline, in one run.
//!
//! `cargo build --release --bins && cargo bench -p tests --bench claims`
//! (BENCH_CLAIMS=n, BENCH_CLIENTS=c to change the load; defaults 20,000 and 64).
//!
//! Claims: `ledger serve` (release) on a template with a large quota, many
//! concurrent clients claiming for distinct users through signed requests.
//! Baseline: as many Postgres clients, one transaction per claim doing
//! `UPDATE templates SET issued = issued + 1 WHERE ... AND issued < total`
//! plus one event INSERT, against the same database.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use ledger::domain::stream::StreamKind;
use serde_json::json;
use tests::{Env, Server};

fn setting(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

async fn http_claims(env: &Env, total: usize, clients: usize) -> Duration {
    let server = Arc::new(Server::start(env).await.expect("ledger serve starts"));
    let sn = server.active_template(10_000_000, 1).await.unwrap();
    let channel = Arc::new(server.channel_for(&sn).await.unwrap());
    let next = Arc::new(AtomicUsize::new(0));
    let start = Instant::now();
    let workers: Vec<_> = (0..clients)
        .map(|_| {
            let (server, channel, sn, next) =
                (server.clone(), channel.clone(), sn.clone(), next.clone());
            tokio::spawn(async move {
                while next.fetch_add(1, Ordering::Relaxed) < total {
                    let user = uuid::Uuid::new_v4().to_string();
                    let (status, body) = server.claim(&channel, &sn, &user).await.unwrap();
                    assert_eq!(status, 201, "{body}");
                }
            })
        })
        .collect();
    for w in workers {
        w.await.unwrap();
    }
    start.elapsed()
}

async fn naive_baseline(env: &Env, total: usize, clients: usize) -> Duration {
    let setup = env.db.client().await.unwrap();
    setup
        .batch_execute(
            "INSERT INTO templates (sn, name, kind, currency, terms, face_value, issue_begin,
                 issue_end, total, per_user_limit, refund_policy, status, version, created_at)
             VALUES ('BASELINE2345678923456', 'baseline', 'goods', 'CNY', '{}', 1,
                 now(), now() + interval '1 day', 10000000, 1, 'restore', 'active', 1, now())",
        )
        .await
        .unwrap();
    let next = Arc::new(AtomicUsize::new(0));
    let start = Instant::now();
    let workers: Vec<_> = (0..clients)
        .map(|_| {
            let next = next.clone();
            let config = env.db.config.clone();
            tokio::spawn(async move {
                let mut client = ledger::db::connect(&config).await.unwrap();
                while next.fetch_add(1, Ordering::Relaxed) < total {
                    naive_claim(&mut client).await;
                }
            })
        })
        .collect();
    for w in workers {
        w.await.unwrap();
    }
    start.elapsed()
}

async fn naive_claim(client: &mut tokio_postgres::Client) {
    let tx = client.transaction().await.unwrap();
    let n = tx
        .execute(
            "UPDATE templates SET issued = issued + 1 WHERE sn = 'BASELINE2345678923456'
                AND status = 'active' AND issued < total",
            &[],
        )
        .await
        .unwrap();
    assert_eq!(n, 1);
    let coupon = uuid::Uuid::now_v7();
    let payload = json!({"coupon_id": coupon, "template_sn": "BASELINE2345678923456",
        "user_id": uuid::Uuid::new_v4().to_string(), "face_value": "20.00"});
    tx.execute(
        "INSERT INTO events (event_id, stream_id, stream_version, event_type, schema_version,
             payload, metadata, occurred_at) VALUES ($1, $2, 1, 'CouponIssued', 1, $3, '{}', now())",
        &[&uuid::Uuid::now_v7(), &StreamKind::Coupon.id(coupon), &payload],
    )
    .await
    .unwrap();
    tx.commit().await.unwrap();
}

#[tokio::main]
async fn main() {
    let total = setting("BENCH_CLAIMS", 20_000);
    let clients = setting("BENCH_CLIENTS", 64);
    let env = Env::new()
        .await
        .expect("services running (scripts/services)");
    println!("hot-template claims: {total} claims from {clients} concurrent clients");
    let baseline = naive_baseline(&env, total, clients).await;
    let rate = |d: Duration| total as f64 / d.as_secs_f64();
    println!(
        "naive UPDATE+INSERT tx: {:>7.2} s {:>9.0} claims/s",
        baseline.as_secs_f64(),
        rate(baseline)
    );
    let http = http_claims(&env, total, clients).await;
    println!(
        "HTTP claims:            {:>7.2} s {:>9.0} claims/s",
        http.as_secs_f64(),
        rate(http)
    );
    println!("ratio HTTP/naive rate: {:.2}", rate(http) / rate(baseline));
}
