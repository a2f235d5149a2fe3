//! Lock + confirm of single-coupon orders over HTTP from 32 concurrent
//! clients: throughput and p50/p99 latency of the pair, and in the same run a
//! baseline of the bare SQL a checkout cannot avoid (per order: two
//! transactions, each one guarded coupon UPDATE plus one event INSERT).
//!
//! Two HTTP runs: closed loop (each client sends its next order as soon as
//! the last one is answered: the most the system does), and paced (the 32
//! clients together send BENCH_RATE orders/s on a fixed schedule; latency is
//! counted from the scheduled send, so a stall is not hidden).
//!
//! `cargo build --release --bins && cargo bench -p tests --bench checkout`
//! (BENCH_ORDERS=n, BENCH_CLIENTS=c, BENCH_RATE=r; defaults 4,000, 32, 500).

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use serde_json::json;
use tests::{Env, Server};
use tokio::sync::Mutex;

fn setting(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// Claims one coupon per user, untimed.
async fn coupons(server: &Arc<Server>, n: usize) -> Vec<(String, String)> {
    let mut body = tests::template_body(10_000_000, 1);
    body["discount"] = json!({"type": "fixed_off", "threshold": "5.00", "amount": "1.00"});
    let sn = server.activate_template(&body).await.unwrap();
    let channel = Arc::new(server.channel_for(&sn).await.unwrap());
    let next = Arc::new(AtomicUsize::new(0));
    let out = Arc::new(Mutex::new(Vec::with_capacity(n)));
    let tasks: Vec<_> = (0..32)
        .map(|_| {
            let (server, channel, sn, next, out) = (
                server.clone(),
                channel.clone(),
                sn.clone(),
                next.clone(),
                out.clone(),
            );
            tokio::spawn(async move {
                loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    if i >= n {
                        return;
                    }
                    let user = format!("user-{i}");
                    let (status, c) = server.claim(&channel, &sn, &user).await.unwrap();
                    assert_eq!(status, 201, "{c}");
                    out.lock()
                        .await
                        .push((user, c["id"].as_str().unwrap().to_owned()));
                }
            })
        })
        .collect();
    for t in tasks {
        t.await.unwrap();
    }
    Arc::try_unwrap(out).unwrap().into_inner()
}

async fn checkout(server: &Server, user: &str, coupon: &str) {
    let order = json!({"order_id": format!("bench-{coupon}"), "user_id": user, "currency": "CNY",
        "shipping_fee": "0.00",
        "lines": [{"line_id": "l1", "sku": "s", "category": "c", "quantity": 5, "unit_price": "2.00"}]});
    let lock = json!({"order": order, "coupon_ids": [coupon], "expected_payable": "9.00"});
    let (status, body) = server.service_post("/v1/orders/lock", &lock).await.unwrap();
    assert_eq!(status, 200, "{body}");
    let (status, body) = server
        .service_post(&format!("/v1/orders/bench-{coupon}/confirm"), &json!({}))
        .await
        .unwrap();
    assert_eq!(status, 200, "{body}");
}

/// `rate`: None for closed loop, else orders per second over all clients.
async fn run_checkouts(
    server: Arc<Server>,
    work: Vec<(String, String)>,
    clients: usize,
    rate: Option<f64>,
) -> (Duration, Vec<Duration>) {
    let work = Arc::new(work);
    let next = Arc::new(AtomicUsize::new(0));
    let start = Instant::now();
    let tasks: Vec<_> = (0..clients)
        .map(|_| {
            let (server, work, next) = (server.clone(), work.clone(), next.clone());
            tokio::spawn(async move {
                let mut latencies = Vec::new();
                loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    let Some((user, coupon)) = work.get(i) else {
                        return latencies;
                    };
                    let scheduled = match rate {
                        Some(r) => start + Duration::from_secs_f64(i as f64 / r),
                        None => Instant::now(),
                    };
                    tokio::time::sleep_until(scheduled.into()).await;
                    checkout(&server, user, coupon).await;
                    latencies.push(scheduled.elapsed());
                }
            })
        })
        .collect();
    let mut latencies = Vec::new();
    for t in tasks {
        latencies.extend(t.await.unwrap());
    }
    (start.elapsed(), latencies)
}

/// Per order: two transactions, each a guarded coupon UPDATE and an event INSERT.
async fn baseline(env: &Env, work: &[(String, String)], clients: usize) -> Duration {
    let ids: Arc<Vec<uuid::Uuid>> =
        Arc::new(work.iter().map(|(_, c)| c.parse().unwrap()).collect());
    let next = Arc::new(AtomicUsize::new(0));
    let start = Instant::now();
    let tasks: Vec<_> = (0..clients)
        .map(|_| {
            let (ids, next, config) = (ids.clone(), next.clone(), env.db.config.clone());
            tokio::spawn(async move {
                let mut client = ledger::db::connect(&config).await.unwrap();
                loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    let Some(id) = ids.get(i) else { return };
                    for (from, to, version) in [("unused", "locked", 2), ("locked", "used", 3)] {
                        let tx = client.transaction().await.unwrap();
                        let n = tx.execute("UPDATE coupons SET status = $3 WHERE id = $1 AND status = $2",
                            &[id, &from, &to]).await.unwrap();
                        assert_eq!(n, 1);
                        tx.execute("INSERT INTO events (event_id, stream_id, stream_version, event_type,
                                schema_version, payload, occurred_at) VALUES ($1, $2, $3, 'Bench', 1, '{}', now())",
                            &[&uuid::Uuid::now_v7(), &format!("bench-{id}"), &version]).await.unwrap();
                        tx.commit().await.unwrap();
                    }
                }
            })
        })
        .collect();
    for t in tasks {
        t.await.unwrap();
    }
    start.elapsed()
}

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    sorted[((sorted.len() as f64 * p).ceil() as usize).clamp(1, sorted.len()) - 1]
}

#[tokio::main]
async fn main() {
    let orders = setting("BENCH_ORDERS", 4_000);
    let clients = setting("BENCH_CLIENTS", 32);
    let env = Env::new()
        .await
        .expect("services running (scripts/services)");
    let server = Arc::new(Server::start(&env).await.expect("ledger serve starts"));
    let rate = setting("BENCH_RATE", 500) as f64;
    let work = coupons(&server, orders * 3).await;
    let (for_http, rest) = work.split_at(orders);
    let (for_paced, for_sql) = rest.split_at(orders);
    println!("checkout: {orders} single-coupon orders (lock + confirm) from {clients} clients");
    let sql = baseline(&env, for_sql, clients).await;
    println!(
        "bare SQL (2 guarded tx/order): {:>6.2} s {:>7.0} orders/s",
        sql.as_secs_f64(),
        orders as f64 / sql.as_secs_f64()
    );
    let (elapsed, latencies) =
        run_checkouts(server.clone(), for_http.to_vec(), clients, None).await;
    report(
        "HTTP lock+confirm, closed loop:",
        orders,
        elapsed,
        latencies,
    );
    println!(
        "ratio HTTP/bare SQL rate: {:.2}",
        sql.as_secs_f64() / elapsed.as_secs_f64()
    );
    let (elapsed, latencies) = run_checkouts(server, for_paced.to_vec(), clients, Some(rate)).await;
    report(
        &format!("HTTP lock+confirm, paced {rate}/s:"),
        orders,
        elapsed,
        latencies,
    );
}

fn report(label: &str, orders: usize, elapsed: Duration, mut latencies: Vec<Duration>) {
    latencies.sort();
    println!(
        "{label} {:>6.2} s {:>7.0} orders/s  p50 {:.1} ms  p99 {:.1} ms",
        elapsed.as_secs_f64(),
        orders as f64 / elapsed.as_secs_f64(),
        percentile(&latencies, 0.50).as_secs_f64() * 1e3,
        percentile(&latencies, 0.99).as_secs_f64() * 1e3,
    );
}
