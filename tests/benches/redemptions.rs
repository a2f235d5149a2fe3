//! Redemptions over HTTP (docs/design.md §13) against the claim path, in one run on
//! the same `ledger serve` (release) and database.
//!
//! `cargo build --release -p ledger -p workers && cargo bench -p tests --bench redemptions`
//! (BENCH_REDEMPTIONS=n, BENCH_CLIENTS=c; defaults 10,000 and 64).
//!
//! (a) claims: signed `POST /v1/claims` for distinct users on a template
//!     whose quota is exactly n (the Redis gate and group commit).
//! (b) redemptions: `POST /v1/redemptions` of n one-use codes of one batch,
//!     each by its own user, on a template of quota n (group commit: the
//!     codes' counters, the users', the template's guards and the coupons,
//!     one transaction per batch of requests).
//! (b') the same with an `Idempotency-Key` on each request: each written
//!     alone, in its own transaction (the path before group commit).
//! (c) repeats of the used-up codes: answered 410 from the Redis bitmap.
//!
//! Checking codes alone (no HTTP) is `cargo bench -p ledger --bench codes`.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use tests::bench::env_number;
use tests::{Env, Server};

#[global_allocator]
static ALLOC: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// One request: a signed claim (headers, body) or a service JSON body.
enum Request {
    Claim(tests::Signed, String),
    Redeem(Value),
    /// A redemption with an Idempotency-Key (written alone).
    Alone(Value),
}

/// Sends `requests` over `clients` connections; the time and the answers.
async fn run(server: &Arc<Server>, requests: Vec<Request>, clients: usize) -> (Duration, Vec<u16>) {
    let slots: Arc<Vec<std::sync::Mutex<Option<Request>>>> = Arc::new(
        requests
            .into_iter()
            .map(|r| std::sync::Mutex::new(Some(r)))
            .collect(),
    );
    let next = Arc::new(AtomicUsize::new(0));
    let start = Instant::now();
    let workers: Vec<_> = (0..clients)
        .map(|_| {
            let (server, slots, next) = (server.clone(), slots.clone(), next.clone());
            tokio::spawn(async move {
                let mut statuses = Vec::new();
                while let Some(slot) = slots.get(next.fetch_add(1, Ordering::Relaxed)) {
                    let request = slot.lock().unwrap().take().unwrap();
                    let status = match request {
                        Request::Claim(signed, body) => server.send_signed(signed, body).await,
                        Request::Redeem(body) => {
                            server.service_post("/v1/redemptions", &body).await
                        }
                        Request::Alone(body) => alone(&server, &body).await,
                    };
                    statuses.push(status.unwrap().0);
                }
                statuses
            })
        })
        .collect();
    let mut statuses = Vec::new();
    for w in workers {
        statuses.extend(w.await.unwrap());
    }
    (start.elapsed(), statuses)
}

fn report(label: &str, n: usize, (elapsed, statuses): &(Duration, Vec<u16>), expected: u16) -> f64 {
    let rate = n as f64 / elapsed.as_secs_f64();
    let right = statuses.iter().filter(|s| **s == expected).count();
    println!(
        "{label:<40} {:>7.2} s {rate:>9.0}/s  ({right} of {n} answered {expected})",
        elapsed.as_secs_f64()
    );
    assert_eq!(right, n, "{label}: every answer {expected}");
    rate
}

async fn codes(server: &Server, sn: &str, n: usize) -> Vec<String> {
    let (status, batch) = server
        .admin_post("/v1/code-batches", &json!({"template_sn": sn, "count": n}))
        .await
        .unwrap();
    assert_eq!(status, 201, "{batch}");
    let path = format!("/v1/code-batches/{}/codes", batch["id"].as_str().unwrap());
    let r = server
        .admin(reqwest::Method::GET, &path)
        .send()
        .await
        .unwrap();
    r.text().await.unwrap().lines().map(str::to_owned).collect()
}

async fn alone(server: &Server, body: &Value) -> anyhow::Result<(u16, Value)> {
    let r = server
        .service(reqwest::Method::POST, "/v1/redemptions")
        .header("Idempotency-Key", uuid::Uuid::new_v4().to_string())
        .json(body)
        .send()
        .await?;
    Ok((r.status().as_u16(), r.json().await?))
}

/// The server's redemption batches: how many, and their mean size.
async fn print_batches(server: &Server) {
    let text = server.metrics().await.unwrap();
    let value = |name: &str| -> f64 {
        text.lines()
            .find_map(|l| l.strip_prefix(name)?.trim().parse().ok())
            .unwrap_or(0.0)
    };
    let batches = value("couponledger_flash_redemption_batch_size_count");
    println!(
        "    {batches} redemption batches: mean {:.1} redemptions",
        value("couponledger_flash_redemption_batch_size_sum") / batches
    );
}

fn redeem(code: &str, user: String) -> Request {
    Request::Redeem(json!({"code": code, "user_id": user}))
}

#[tokio::main]
async fn main() {
    let n = env_number("BENCH_REDEMPTIONS", 10_000) as usize;
    let clients = env_number("BENCH_CLIENTS", 64) as usize;
    let env = Env::new()
        .await
        .expect("services running (scripts/services)");
    let server = Arc::new(Server::start(&env).await.expect("ledger serve starts"));
    println!("redemptions vs claims: {n} requests each from {clients} concurrent clients");

    let claim_sn = server.active_template(n as i64, 1).await.unwrap();
    let channel = server.channel_for(&claim_sn).await.unwrap();
    let claims = (0..n)
        .map(|i| {
            let body = json!({"template_sn": claim_sn, "user_id": format!("c-{i}")}).to_string();
            let nonce = uuid::Uuid::new_v4().to_string();
            Request::Claim(channel.sign("POST", "/v1/claims", &body, &nonce), body)
        })
        .collect();
    let a = report(
        "(a) claims (gate + group commit)",
        n,
        &run(&server, claims, clients).await,
        201,
    );

    let redeem_sn = server.active_template(n as i64, 1).await.unwrap();
    let codes = codes(&server, &redeem_sn, n).await;
    let first: Vec<_> = codes
        .iter()
        .enumerate()
        .map(|(i, c)| redeem(c, format!("r-{i}")))
        .collect();
    let b = report(
        "(b) redemptions of one-use codes",
        n,
        &run(&server, first, clients).await,
        201,
    );
    println!("    (b)/(a) {:.2}x", b / a);
    print_batches(&server).await;

    let alone_sn = server.active_template(n as i64, 1).await.unwrap();
    let alone_codes = crate::codes(&server, &alone_sn, n).await;
    let alone: Vec<_> = alone_codes
        .iter()
        .enumerate()
        .map(|(i, c)| Request::Alone(json!({"code": c, "user_id": format!("k-{i}")})))
        .collect();
    let b_alone = report(
        "(b') redemptions, each alone (Idempotency-Key)",
        n,
        &run(&server, alone, clients).await,
        201,
    );
    println!("    (b)/(b') {:.2}x", b / b_alone);

    let repeats: Vec<_> = codes
        .iter()
        .enumerate()
        .map(|(i, c)| redeem(c, format!("again-{i}")))
        .collect();
    report(
        "(c) repeats of used-up codes (Redis)",
        n,
        &run(&server, repeats, clients).await,
        410,
    );
}
