//! The hash chain at volume (issue 16 benchmark, first part).
//!
//! Setup (untimed): BENCH_EVENTS (default 1,000,000) coupons issued, written
//! in SQL as the ledger writes them (`tests::bench_store`).
//!
//! 1. Append baseline: one INSERT ... SELECT appends as many more
//!    `CouponIssued` events, as fast as Postgres takes them (faster than a
//!    bulk issuance writes events, which also writes coupons and claims).
//! 2. Sealer: `workers run --only sealer` seals every event of the store
//!    (both halves), timed until the last is sealed. Target: keeps up with
//!    the append rate.
//! 3. `ledger audit verify` over the whole chain, against its baseline in
//!    the same run: Postgres alone handing over the same events (binary
//!    COPY, read and dropped). Target >= 0.7x.
//! 4. `ledger report liability --as-of now` once the sealer has built the
//!    liability snapshot of every checkpoint (default: one per 100,000
//!    events): target <= 2 s. Baseline in the same run: the same report
//!    with `--from-start`, folding every event.
//!
//! `cargo build --release -p ledger -p workers && cargo bench -p tests --bench audit`

use std::time::{Duration, Instant};

use tests::Env;
use tests::bench::{env_number, settle_disk};
use tests::bench_store::{bare_read, issued_store};
use tests::workers::{Workers, ledger};

const APPEND: &str = "
INSERT INTO events (event_id, stream_id, stream_version, event_type, schema_version, payload,
                    metadata, occurred_at)
  SELECT gen_random_uuid(), 'coupon-' || id, 1, 'CouponIssued', 1,
         jsonb_build_object('coupon_id', id, 'template_sn', 'BENCH', 'user_id', 'v' || i,
           'issued_at', now(), 'effective_at', now(), 'expires_at', now() + interval '7 days',
           'face_value', '20.00', 'currency', 'CNY'),
         '{\"actor\": \"bench\", \"correlation_id\": \"bench\"}', now()
    FROM (SELECT gen_random_uuid() AS id, i FROM generate_series(1, $N) i) AS c";

fn rate(n: i64, d: Duration) -> f64 {
    n as f64 / d.as_secs_f64()
}

async fn snapshots_pending(client: &tokio_postgres::Client) -> i64 {
    let sql = "SELECT (SELECT count(*) FROM seal_checkpoints)
                    - (SELECT count(*) FROM liability_snapshots)";
    client.query_one(sql, &[]).await.unwrap().get(0)
}

/// Runs the liability report; how long it took.
async fn liability(env: &Env, args: &[&str]) -> Duration {
    let mut all = vec!["report", "liability", "--as-of", "now", "--format", "csv"];
    all.extend_from_slice(args);
    let started = Instant::now();
    let out = ledger(env, &all).await.unwrap();
    let took = started.elapsed();
    assert!(out.status.success(), "{out:?}");
    eprint!("   {}", String::from_utf8_lossy(&out.stderr));
    took
}

async fn sealed(client: &tokio_postgres::Client) -> i64 {
    let row = client
        .query_one("SELECT coalesce(max(seq), 0) FROM event_seals", &[])
        .await
        .unwrap();
    row.get(0)
}

#[tokio::main]
async fn main() {
    let n = i64::try_from(env_number("BENCH_EVENTS", 1_000_000)).unwrap();
    let env = Env::new().await.unwrap();
    let client = env.db.client().await.unwrap();
    let setup = issued_store(&client, n).await;
    settle_disk(&client, "events").await;

    let started = Instant::now();
    client
        .batch_execute(&APPEND.replace("$N", &n.to_string()))
        .await
        .unwrap();
    let appended = started.elapsed();
    let total = setup + n;
    settle_disk(&client, "events").await;
    println!(
        "1. append baseline: {n} events in {:.1} s ({:.0}/s)",
        appended.as_secs_f64(),
        rate(n, appended)
    );

    let started = Instant::now();
    let sealer = Workers::start(&env, "sealer").unwrap();
    while sealed(&client).await < total {
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let sealing = started.elapsed();
    while snapshots_pending(&client).await > 0 {
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let snapshots = started.elapsed();
    sealer.terminate().await.unwrap();
    println!(
        "2. sealer: {total} events in {:.1} s ({:.0}/s): {:.2}x the append rate (target >= 1x)",
        sealing.as_secs_f64(),
        rate(total, sealing),
        rate(total, sealing) / rate(n, appended)
    );
    println!(
        "   and every checkpoint's liability snapshot built {:.1} s after the sealer started",
        snapshots.as_secs_f64()
    );

    settle_disk(&client, "events, event_seals").await;
    let bare = bare_read(&client).await;
    let started = Instant::now();
    let out = ledger(&env, &["audit", "verify"]).await.unwrap();
    let verifying = started.elapsed();
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    println!(
        "3. audit verify: {total} events in {:.1} s ({:.0}/s); Postgres' COPY of them {:.1} s \
         ({:.0}/s): {:.2}x (target >= 0.7x)",
        verifying.as_secs_f64(),
        rate(total, verifying),
        bare.as_secs_f64(),
        rate(total, bare),
        bare.as_secs_f64() / verifying.as_secs_f64()
    );

    let with = liability(&env, &[]).await;
    let without = liability(&env, &["--from-start"]).await;
    println!(
        "4. liability report as of now over {total} events: {:.2} s from the snapshots \
         (target <= 2 s); {:.2} s folding every event ({:.0}/s)",
        with.as_secs_f64(),
        without.as_secs_f64(),
        rate(total, without)
    );
}
