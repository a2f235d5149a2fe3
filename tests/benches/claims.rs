//! Hot-template claims (a flash sale, docs/design.md §12) against two SQL baselines,
//! all in one run on the same database.
//!
//! `cargo build --release -p ledger -p workers && cargo bench -p tests --bench claims`
//! (BENCH_CLAIMS=n, BENCH_CLIENTS=c, BENCH_REFUSALS=r; defaults 20,000, 64
//! and 60,000).
//!
//! (a) naive: as many Postgres clients, one transaction per claim: the
//!     guarded `UPDATE templates ... issued < total` then the event INSERT.
//! (b) one statement: `WITH u AS (UPDATE ... RETURNING) INSERT ... FROM u`,
//!     autocommitted: one round trip and one commit per claim.
//! (c) HTTP: `ledger serve` (release), signed claims for distinct users on a
//!     template whose quota is exactly the number of claims; then the
//!     sold-out phase: more claims, all refused by the Redis gate.
//! (d) the machine's own rate for (c)'s work (issue 51, point 4): `pgbench`
//!     running the claim batch's guarded statements (template read, nonces,
//!     user counts, quota guard, coupon rows, events) on the same database,
//!     one claim a transaction at (c)'s concurrency, then batches of (c)'s
//!     mean size with as many claims in flight as (c) had.
//! (e) the gate's own rate: `redis-benchmark` running the gate's script
//!     (`admit.lua`) on a sold-out template, same concurrency, against the
//!     sold-out phase's refusals.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use ledger::domain::stream::StreamKind;
use serde_json::json;
use tests::bench::env_number;
use tests::machine_limits;
use tests::{Channel, Env, Server, Signed};

/// The client shares the machine's two cores with the ledger: the same
/// allocator keeps its share as small as the server's.
#[global_allocator]
static ALLOC: mimalloc::MiMalloc = mimalloc::MiMalloc;

const SN_A: &str = "BENCHNAIVE2345678923456";
const SN_B: &str = "BENCHONESTMT345678923456";
const SN_D: &str = "BENCHPGBENCH345678923456";

/// One batch of `:b` claims as `commands/claim_batch.rs` writes it, in
/// pgbench's language (the ledger COPYs the coupons and events; here they
/// are made in the server, which spares pgbench the sending).
const BATCH_SCRIPT: &str = "BEGIN;
SELECT sn, kind, status, total, issued, per_user_limit, terms, issue_begin, issue_end
  FROM templates WHERE sn = :sn;
INSERT INTO channel_nonces (channel_id, nonce)
  SELECT :ch::uuid, gen_random_uuid()::text FROM generate_series(1, :b)
  ON CONFLICT DO NOTHING RETURNING channel_id, nonce;
INSERT INTO user_claims AS c (template_sn, user_id, claimed)
  SELECT :sn, u, 1 FROM (SELECT gen_random_uuid()::text AS u FROM generate_series(1, :b)) x
  ORDER BY u ON CONFLICT (template_sn, user_id) DO UPDATE SET claimed = c.claimed + excluded.claimed
  WHERE c.claimed + excluded.claimed <= 1 RETURNING user_id;
UPDATE templates SET issued = issued + :b WHERE sn = :sn AND status = 'active' AND issued + :b <= total;
INSERT INTO coupons (id, template_sn, user_id, status, issued_at, effective_at, expires_at,
                     version, channel_id)
  SELECT gen_random_uuid(), :sn, gen_random_uuid()::text, 'unused', now(), now(),
         now() + interval '30 days', 1, :ch::uuid FROM generate_series(1, :b);
INSERT INTO events (event_id, stream_id, stream_version, event_type, schema_version, payload,
                    metadata, occurred_at)
  SELECT gen_random_uuid(), 'coupon-' || gen_random_uuid(), 1, 'CouponIssued', 1,
         :payload::jsonb, :metadata::jsonb, now() FROM generate_series(1, :b);
COMMIT;
";

async fn baseline_template(env: &Env, sn: &str, total: usize) {
    let setup = env.db.client().await.unwrap();
    let sql = "INSERT INTO templates (sn, name, kind, currency, terms, face_value, issue_begin,
                 issue_end, total, per_user_limit, refund_policy, status, version, created_at)
             VALUES ($1, 'baseline', 'goods', 'CNY', '{}', 1, now(), now() + interval '1 day',
                 $2, 1, 'restore', 'active', 1, now())";
    setup.execute(sql, &[&sn, &(total as i64)]).await.unwrap();
}

/// Runs `claim` `total` times over `clients` Postgres connections.
async fn sql_clients<F, Fut>(env: &Env, total: usize, clients: usize, claim: F) -> Duration
where
    F: Fn(Arc<tokio_postgres::Client>) -> Fut + Send + Sync + Copy + 'static,
    Fut: std::future::Future<Output = ()> + Send,
{
    let next = Arc::new(AtomicUsize::new(0));
    let mut connections = Vec::new();
    for _ in 0..clients {
        connections.push(Arc::new(ledger::db::connect(&env.db.config).await.unwrap()));
    }
    let start = Instant::now();
    let workers: Vec<_> = connections
        .into_iter()
        .map(|client| {
            let next = next.clone();
            tokio::spawn(async move {
                while next.fetch_add(1, Ordering::Relaxed) < total {
                    claim(client.clone()).await;
                }
            })
        })
        .collect();
    for w in workers {
        w.await.unwrap();
    }
    start.elapsed()
}

fn event_payload(sn: &str) -> (uuid::Uuid, serde_json::Value) {
    let coupon = uuid::Uuid::now_v7();
    let payload = json!({"coupon_id": coupon, "template_sn": sn,
        "user_id": uuid::Uuid::new_v4().to_string(), "face_value": "20.00"});
    (coupon, payload)
}

/// (a): two statements and a commit, each its own round trip.
async fn naive_claim(client: Arc<tokio_postgres::Client>) {
    client.batch_execute("BEGIN").await.unwrap();
    let n = client
        .execute(
            "UPDATE templates SET issued = issued + 1 WHERE sn = $1
                AND status = 'active' AND issued < total",
            &[&SN_A],
        )
        .await
        .unwrap();
    assert_eq!(n, 1);
    let (coupon, payload) = event_payload(SN_A);
    client
        .execute(
            "INSERT INTO events (event_id, stream_id, stream_version, event_type, schema_version,
             payload, metadata, occurred_at) VALUES ($1, $2, 1, 'CouponIssued', 1, $3, '{}', now())",
            &[&uuid::Uuid::now_v7(), &StreamKind::Coupon.id(coupon), &payload],
        )
        .await
        .unwrap();
    client.batch_execute("COMMIT").await.unwrap();
}

/// (b): the guard and the event in one autocommitted statement.
async fn one_statement_claim(client: Arc<tokio_postgres::Client>) {
    let (coupon, payload) = event_payload(SN_B);
    let n = client
        .execute(
            "WITH u AS (UPDATE templates SET issued = issued + 1
                         WHERE sn = $1 AND status = 'active' AND issued < total RETURNING sn)
             INSERT INTO events (event_id, stream_id, stream_version, event_type, schema_version,
                 payload, metadata, occurred_at)
             SELECT $2, $3, 1, 'CouponIssued', 1, $4, '{}', now() FROM u",
            &[
                &SN_B,
                &uuid::Uuid::now_v7(),
                &StreamKind::Coupon.id(coupon),
                &payload,
            ],
        )
        .await
        .unwrap();
    assert_eq!(n, 1);
}

/// Latencies of (c), and how many answers had each status.
struct HttpRun {
    elapsed: Duration,
    latencies: Vec<Duration>,
    statuses: std::collections::BTreeMap<u16, usize>,
}

/// `total` claims for distinct users, signed before the clock starts (a
/// channel signs on its own machine: its cost is not the ledger's).
fn signed_claims(channel: &Channel, sn: &str, total: usize) -> Vec<(Signed, String)> {
    (0..total)
        .map(|_| {
            let user = uuid::Uuid::new_v4().to_string();
            let body = json!({"template_sn": sn, "user_id": user}).to_string();
            let nonce = uuid::Uuid::new_v4().to_string();
            (channel.sign("POST", "/v1/claims", &body, &nonce), body)
        })
        .collect()
}

async fn http_claims(
    server: &Arc<Server>,
    channel: &Channel,
    sn: &str,
    total: usize,
    clients: usize,
) -> HttpRun {
    let requests: Vec<_> = signed_claims(channel, sn, total)
        .into_iter()
        .map(|r| std::sync::Mutex::new(Some(r)))
        .collect();
    let requests = Arc::new(requests);
    let next = Arc::new(AtomicUsize::new(0));
    let start = Instant::now();
    let workers: Vec<_> = (0..clients)
        .map(|_| {
            let (server, requests, next) = (server.clone(), requests.clone(), next.clone());
            tokio::spawn(async move {
                let mut seen = Vec::new();
                loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    let Some(slot) = requests.get(i) else { break };
                    let (signed, body) = slot.lock().unwrap().take().unwrap();
                    let sent = Instant::now();
                    let (status, _) = server.send_signed(signed, body).await.unwrap();
                    seen.push((sent.elapsed(), status));
                }
                seen
            })
        })
        .collect();
    let mut run = HttpRun {
        elapsed: Duration::ZERO,
        latencies: Vec::with_capacity(total),
        statuses: Default::default(),
    };
    for w in workers {
        for (latency, status) in w.await.unwrap() {
            run.latencies.push(latency);
            *run.statuses.entry(status).or_default() += 1;
        }
    }
    run.elapsed = start.elapsed();
    run.latencies.sort();
    run
}

fn quantile(sorted: &[Duration], q: f64) -> Duration {
    let i = ((sorted.len() as f64 - 1.0) * q).round() as usize;
    sorted.get(i).copied().unwrap_or_default()
}

async fn counts(env: &Env, sn: &str) -> (i64, i64, i64) {
    let c = env.db.client().await.unwrap();
    let one = |sql: &'static str| {
        let c = &c;
        async move { c.query_one(sql, &[&sn]).await.unwrap().get::<_, i64>(0) }
    };
    (
        one("SELECT count(*) FROM events WHERE event_type = 'CouponIssued' AND payload->>'template_sn' = $1").await,
        one("SELECT count(*) FROM coupons WHERE template_sn = $1").await,
        one("SELECT issued FROM templates WHERE sn = $1").await,
    )
}

/// The mean batch size and latency, from `serve`'s own metrics: the mean size.
async fn print_batches(server: &Server) -> f64 {
    let text = server
        .http
        .get(server.url("/metrics"))
        .send()
        .await
        .unwrap();
    let text = text.text().await.unwrap();
    let value = |name: &str| -> f64 {
        text.lines()
            .find_map(|l| l.strip_prefix(name)?.trim().parse().ok())
            .unwrap_or(0.0)
    };
    let batches = value("couponledger_flash_batch_size_count");
    let mean = value("couponledger_flash_batch_size_sum") / batches;
    println!(
        "    {batches} batches: mean {mean:.1} claims, mean {:.1} ms",
        value("couponledger_flash_batch_seconds_sum") / batches * 1e3
    );
    mean
}

/// (d): pgbench running the batch's statements, batches of `size` from
/// `clients` connections: claims a second.
async fn pgbench_claims(env: &Env, clients: usize, size: usize) -> f64 {
    let (_, payload) = event_payload(SN_D);
    let metadata = json!({"actor": "bench", "channel": "app"});
    let vars = [
        ("sn", SN_D.to_owned()),
        ("ch", uuid::Uuid::new_v4().to_string()),
        ("b", size.to_string()),
        ("payload", payload.to_string()),
        ("metadata", metadata.to_string()),
    ];
    let tps = machine_limits::pgbench(env, BATCH_SCRIPT, clients, 20, &vars).unwrap();
    tps * size as f64
}

/// (e): redis-benchmark running the gate's script on a sold-out template,
/// each call with a fresh nonce (as every signed request has): refusals a second.
async fn gate_alone(env: &Env, clients: usize, requests: usize) -> f64 {
    let client = redis::Client::open(env.redis.url.as_str()).unwrap();
    let mut conn = client.get_multiplexed_async_connection().await.unwrap();
    let script = include_str!("../../ledger/src/flash/admit.lua");
    let sha: String = redis::cmd("SCRIPT")
        .arg("LOAD")
        .arg(script)
        .query_async(&mut conn)
        .await
        .unwrap();
    let key = |k: &str| format!("{}bench:{k}", env.redis.prefix);
    let _: () = redis::cmd("SET")
        .arg(key("stock"))
        .arg(0)
        .query_async(&mut conn)
        .await
        .unwrap();
    let mut command = vec!["EVALSHA".to_owned(), sha, "5".to_owned()];
    command.extend(["stock", "claimers", "ch", "u"].map(key));
    command.push(key("nonce:__rand_int__"));
    command.extend(["user-1", "1", "0", "0", "0", "0", "0", "60"].map(String::from));
    machine_limits::redis_benchmark(env, clients, requests, &command).unwrap()
}

fn print_rate(label: &str, n: usize, d: Duration) -> f64 {
    let rate = n as f64 / d.as_secs_f64();
    println!(
        "{label:<34} {:>7.2} s {rate:>9.0} claims/s",
        d.as_secs_f64()
    );
    rate
}

/// (d): the claim's statements by pgbench, one a transaction and in (c)'s
/// batches, with (c)'s ratio to each.
async fn machine_limits_of_claims(env: &Env, clients: usize, mean_batch: f64, rate_c: f64) {
    baseline_template(env, SN_D, 1_000_000_000).await;
    let one = pgbench_claims(env, clients, 1).await;
    let size = mean_batch.round().max(1.0) as usize;
    let in_flight = (clients / size).max(1);
    let batched = pgbench_claims(env, in_flight, size).await;
    println!(
        "(d) pgbench, the claim's statements: {one:.0} claims/s one a transaction ({clients} clients); \
         {batched:.0} claims/s in batches of {size} ({in_flight} clients)"
    );
    println!(
        "    (c)/(d one a transaction) {:.2}x   (c)/(d batched) {:.2}x",
        rate_c / one,
        rate_c / batched
    );
}

#[tokio::main]
async fn main() {
    let total = env_number("BENCH_CLAIMS", 20_000) as usize;
    let clients = env_number("BENCH_CLIENTS", 64) as usize;
    let refusals = env_number("BENCH_REFUSALS", 60_000) as usize;
    let env = Env::new()
        .await
        .expect("services running (scripts/services)");
    println!("hot-template claims: {total} claims from {clients} concurrent clients");
    baseline_template(&env, SN_A, total).await;
    baseline_template(&env, SN_B, total).await;
    let a = sql_clients(&env, total, clients, naive_claim).await;
    let rate_a = print_rate("(a) naive UPDATE+INSERT tx", total, a);
    let b = sql_clients(&env, total, clients, one_statement_claim).await;
    let rate_b = print_rate("(b) one statement (CTE)", total, b);

    let server = Arc::new(Server::start(&env).await.expect("ledger serve starts"));
    let sn = server.active_template(total as i64, 1).await.unwrap();
    let channel = Arc::new(server.channel_for(&sn).await.unwrap());
    let c = http_claims(&server, &channel, &sn, total, clients).await;
    let rate_c = print_rate("(c) HTTP claims (gate + batches)", total, c.elapsed);
    println!(
        "    latency p50 {:.1} ms, p99 {:.1} ms, max {:.1} ms; answers {:?}",
        quantile(&c.latencies, 0.5).as_secs_f64() * 1e3,
        quantile(&c.latencies, 0.99).as_secs_f64() * 1e3,
        c.latencies
            .last()
            .copied()
            .unwrap_or_default()
            .as_secs_f64()
            * 1e3,
        c.statuses
    );
    println!(
        "    (c)/(a) {:.2}x   (c)/(b) {:.2}x",
        rate_c / rate_a,
        rate_c / rate_b
    );
    let mean_batch = print_batches(&server).await;

    let sold_out = http_claims(&server, &channel, &sn, refusals, clients).await;
    let refused = sold_out.statuses.get(&410).copied().unwrap_or(0);
    println!(
        "sold out: {refused} of {refusals} refused (410) in {:.2} s: {:.0} refusals/s, p99 {:.1} ms",
        sold_out.elapsed.as_secs_f64(),
        refused as f64 / sold_out.elapsed.as_secs_f64(),
        quantile(&sold_out.latencies, 0.99).as_secs_f64() * 1e3
    );
    let gate = gate_alone(&env, clients, refusals.max(200_000)).await;
    println!(
        "(e) redis-benchmark of the gate's script: {gate:.0} refusals/s; sold out / it {:.2}x",
        refused as f64 / sold_out.elapsed.as_secs_f64() / gate
    );
    machine_limits_of_claims(&env, clients, mean_batch, rate_c).await;
    let (events, rows, counter) = counts(&env, &sn).await;
    println!("exact: events {events}, coupon rows {rows}, quota counter {counter} (quota {total})");
    assert_eq!(
        (events, rows, counter),
        (total as i64, total as i64, total as i64)
    );
}
