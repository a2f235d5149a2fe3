//! `ledger replay --verify` at volume, in passes (issue 16, point 5): its
//! rate against Postgres' own read of the same events, and its peak memory
//! as the store grows.
//!
//! Setup (untimed): coupons issued one per user, written in SQL as the
//! ledger writes them (`tests::bench_store`): every event has a coupon, a
//! claim and a balance row to compare, the worst case per event. The store
//! grows from one size of BENCH_SIZES (default `1000000,3000000`) to the
//! next by the coupons of one more template, then `VACUUM ANALYZE`.
//!
//! At each size, after a CHECKPOINT and a `sync`:
//! 1. Baseline: Postgres alone hands every event over (the binary COPY in
//!    the store's order the replay reads, received and dropped).
//! 2. `ledger replay --verify`, the passes chosen by the store's size:
//!    time, events/s, ratio to the baseline (target >= 0.7x), passes and
//!    peak RSS (target: bounded, the same at every size).
//!
//! BENCH_ONE_PASS=1 also runs `--partitions 1` at each size (the whole store
//! in memory at once, as before passes), for its memory.
//!
//! `cargo build --release -p ledger -p workers && cargo bench -p tests --bench replay`

use std::time::{Duration, Instant};

use tests::Env;
use tests::bench::settle_disk;
use tests::bench_store::{add_issued, bare_read};
use tests::peak_rss::ledger_peak_kib;

/// The store sizes, in coupons, from BENCH_SIZES.
fn sizes() -> Vec<i64> {
    let sizes = std::env::var("BENCH_SIZES").unwrap_or_else(|_| "1000000,3000000".into());
    let sizes: Vec<i64> = sizes
        .split(',')
        .map(|s| s.trim().parse().unwrap())
        .collect();
    assert!(
        sizes.is_sorted() && sizes[0] > 0,
        "BENCH_SIZES grows: {sizes:?}"
    );
    sizes
}

/// Grows the store from `from` to `to` coupons (template `T<to>`).
async fn grow(client: &tokio_postgres::Client, from: i64, to: i64) {
    let started = Instant::now();
    add_issued(client, &format!("T{to}"), from + 1, to - from).await;
    client.batch_execute("VACUUM ANALYZE").await.unwrap();
    println!(
        "setup: {} more coupons in {:.0} s",
        to - from,
        started.elapsed().as_secs_f64()
    );
}

/// `ledger replay --verify [args]`: its time, last line and peak RSS (MiB).
async fn replay(env: &Env, args: &[&str]) -> (Duration, String, u64) {
    let args: Vec<&str> = ["replay", "--verify"].iter().chain(args).copied().collect();
    let started = Instant::now();
    let (out, peak_kib) = ledger_peak_kib(env, &args).await.unwrap();
    let took = started.elapsed();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stdout}{stderr}");
    let last = stdout.lines().last().unwrap_or_default().to_owned();
    (took, last, peak_kib / 1024)
}

fn rate(n: i64, d: Duration) -> f64 {
    n as f64 / d.as_secs_f64()
}

#[tokio::main]
async fn main() {
    let env = Env::new().await.unwrap();
    let client = env.db.client().await.unwrap();
    let one_pass = std::env::var("BENCH_ONE_PASS").is_ok_and(|v| v == "1");
    let mut coupons = 0;
    for size in sizes() {
        grow(&client, coupons, size).await;
        coupons = size;
        let events: i64 = client
            .query_one("SELECT count(*) FROM events", &[])
            .await
            .unwrap()
            .get(0);
        settle_disk(&client, "events").await;
        let bare = bare_read(&client).await;
        settle_disk(&client, "events").await;
        let (took, last, peak) = replay(&env, &[]).await;
        println!(
            "{size} coupons: Postgres' COPY of the {events} events {:.1} s ({:.0}/s); replay \
             --verify {:.1} s ({:.0}/s): {:.2}x (target >= 0.7x), peak RSS {peak} MiB\n  {last}",
            bare.as_secs_f64(),
            rate(events, bare),
            took.as_secs_f64(),
            rate(events, took),
            bare.as_secs_f64() / took.as_secs_f64(),
        );
        if one_pass {
            let (took, _, peak) = replay(&env, &["--partitions", "1"]).await;
            println!(
                "  --partitions 1: {:.1} s ({:.0}/s), peak RSS {peak} MiB",
                took.as_secs_f64(),
                rate(events, took)
            );
        }
    }
}
