//! Lock + confirm of single-coupon orders over HTTP from 32 concurrent
//! clients: throughput and p50/p99 latency of the pair, and in the same run a
//! baseline of the bare SQL a checkout cannot avoid (per order: two
//! transactions, each one guarded coupon UPDATE plus one event INSERT, on a
//! dedicated connection per client).
//!
//! Each is run closed loop (each client sends its next order as soon as the
//! last one is answered: the most the system does) and paced (the clients
//! together send BENCH_RATE orders/s on a fixed schedule; latency is counted
//! from the scheduled send, so a stall is not hidden). Every timed phase
//! starts after a CHECKPOINT and a `sync`, so it does not pay for the
//! writeback of the setup or of the phase before; a phase that runs past the
//! kernel's dirty-page expiry (30 s) pays for its own.
//!
//! `cargo build --release -p ledger -p workers && cargo bench -p tests --bench checkout`
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

/// Per order, the bare SQL: two transactions, each a guarded coupon UPDATE
/// and an event INSERT.
async fn bare_sql(client: &mut tokio_postgres::Client, coupon: &str) {
    let id: uuid::Uuid = coupon.parse().unwrap();
    for (from, to, version) in [("unused", "locked", 2), ("locked", "used", 3)] {
        let tx = client.transaction().await.unwrap();
        let n = tx
            .execute(
                "UPDATE coupons SET status = $3 WHERE id = $1 AND status = $2",
                &[&id, &from, &to],
            )
            .await
            .unwrap();
        assert_eq!(n, 1);
        tx.execute(
            "INSERT INTO events (event_id, stream_id, stream_version, event_type,
                    schema_version, payload, occurred_at) VALUES ($1, $2, $3, 'Bench', 1, '{}', now())",
            &[&uuid::Uuid::now_v7(), &format!("bench-{id}"), &version],
        )
        .await
        .unwrap();
        tx.commit().await.unwrap();
    }
}

/// One benchmark client: the HTTP API, or a connection of its own for the
/// bare SQL.
enum Client {
    Http(Arc<Server>),
    Sql(tokio_postgres::Client),
}

impl Client {
    async fn order(&mut self, user: &str, coupon: &str) {
        match self {
            Client::Http(server) => checkout(server, user, coupon).await,
            Client::Sql(client) => bare_sql(client, coupon).await,
        }
    }
}

/// Flushes what earlier phases wrote (Postgres' dirty buffers, then the
/// kernel's dirty pages), so that a timed phase does not pay for the
/// writeback of the setup or of the phase before it.
async fn settle_disk(env: &Env) {
    let client = env.db.client().await.unwrap();
    client.batch_execute("CHECKPOINT").await.unwrap();
    let synced = tokio::process::Command::new("sync").status().await.unwrap();
    assert!(synced.success());
}

/// Runs `work` on `clients`; `rate`: None for closed loop, else orders per
/// second over all clients. Returns the elapsed time and each latency.
async fn run(
    clients: Vec<Client>,
    work: &[(String, String)],
    rate: Option<f64>,
) -> (Duration, Vec<Duration>) {
    let work = Arc::new(work.to_vec());
    let next = Arc::new(AtomicUsize::new(0));
    let start = Instant::now();
    let tasks: Vec<_> = clients
        .into_iter()
        .map(|mut client| {
            let (work, next) = (work.clone(), next.clone());
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
                    client.order(user, coupon).await;
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

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    sorted[((sorted.len() as f64 * p).ceil() as usize).clamp(1, sorted.len()) - 1]
}

async fn clients(env: &Env, server: &Arc<Server>, sql: bool, n: usize) -> Vec<Client> {
    let mut out = Vec::with_capacity(n);
    for _ in 0..n {
        out.push(if sql {
            Client::Sql(ledger::db::connect(&env.db.config).await.unwrap())
        } else {
            Client::Http(server.clone())
        });
    }
    out
}

#[tokio::main]
async fn main() {
    let orders = setting("BENCH_ORDERS", 4_000);
    let n_clients = setting("BENCH_CLIENTS", 32);
    let rate = setting("BENCH_RATE", 500) as f64;
    let env = Env::new()
        .await
        .expect("services running (scripts/services)");
    let server = Arc::new(Server::start(&env).await.expect("ledger serve starts"));
    let work = coupons(&server, orders * 4).await;
    println!("checkout: {orders} single-coupon orders (lock + confirm) from {n_clients} clients");
    let mut slices = work.chunks(orders);
    let mut closed_loop_secs = Vec::new();
    for (label, sql, paced) in [
        ("bare SQL (2 guarded tx/order), closed loop:", true, None),
        ("HTTP lock+confirm, closed loop:", false, None),
        ("bare SQL (2 guarded tx/order), paced:", true, Some(rate)),
        ("HTTP lock+confirm, paced:", false, Some(rate)),
    ] {
        let clients = clients(&env, &server, sql, n_clients).await;
        settle_disk(&env).await;
        let (elapsed, latencies) = run(clients, slices.next().unwrap(), paced).await;
        report(label, orders, elapsed, latencies);
        if paced.is_none() {
            closed_loop_secs.push(elapsed.as_secs_f64());
        }
    }
    println!(
        "ratio HTTP/bare SQL closed-loop rate: {:.2}; paced at {rate}/s",
        closed_loop_secs[0] / closed_loop_secs[1]
    );
}

fn report(label: &str, orders: usize, elapsed: Duration, mut latencies: Vec<Duration>) {
    latencies.sort();
    let ms = |d: Duration| d.as_secs_f64() * 1e3;
    println!(
        "{label:<46} {:>6.2} s {:>5.0} orders/s  p50 {:>5.1} ms  p99 {:>5.1} ms  max {:>6.1} ms",
        elapsed.as_secs_f64(),
        orders as f64 / elapsed.as_secs_f64(),
        ms(percentile(&latencies, 0.50)),
        ms(percentile(&latencies, 0.99)),
        ms(*latencies.last().unwrap()),
    );
}
