//! Relay and replay at volume (issue 6 benchmark).
//!
//! Setup (untimed): a template and BENCH_EVENTS coupons issued to as many
//! users, written straight in SQL exactly as the ledger writes them (so
//! that `replay --verify` finds no difference): one `CouponIssued` event
//! each, the coupon, claim, balance and template rows.
//!
//! 1. Relay: a `workers run --only relay` (release build) drains every event
//!    onto `coupon.events` with confirms; timed from start to its cursor
//!    reaching the last event.
//! 2. Baseline, same run: a plain lapin publisher sends the same number of
//!    persistent messages of the same size to the same exchange (so to the
//!    same queues, purged first), one by one, waiting for each confirm.
//!    One outside queue (`bench.analytics`) is bound to `coupon.events`
//!    throughout, so both publish into a subscriber.
//! 3. `ledger replay --verify` over the same store, after its baseline:
//!    Postgres alone handing over the same events in the same order (the
//!    replay's first read), received and dropped.
//!
//! Setup ends with VACUUM ANALYZE (as after any bulk load); the relay, the
//! replay's baseline and the replay each start after a CHECKPOINT and a
//! `sync`, so that none pays for the writeback of what came before.
//!
//! `cargo build --release -p ledger -p workers && cargo bench -p tests --bench relay`
//! (BENCH_EVENTS=n, default 1,000,000; BENCH_PHASES=publish,replay selects
//! the phases: `replay` alone takes a minute, `publish` a quarter of an hour).

use ledger::domain::projection::Projection;
use std::process::Stdio;
use std::time::{Duration, Instant};

use lapin::BasicProperties;
use lapin::options::{
    BasicPublishOptions, ConfirmSelectOptions, QueueBindOptions, QueueDeclareOptions,
    QueuePurgeOptions,
};
use lapin::types::FieldTable;
use ledger::messaging::{self, topology};
use tests::bench_store::{bare_read, issued_store};
use tests::{Env, bin};
use tokio::process::Command;

fn events_setting() -> i64 {
    std::env::var("BENCH_EVENTS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(1_000_000)
}

/// Runs the relay until its cursor has published `total` events.
async fn relay(env: &Env, total: i64) -> Duration {
    let client = env.db.client().await.unwrap();
    let started = Instant::now();
    let mut child = Command::new(bin("workers"))
        .args(["run", "--only", "relay"])
        .envs(env.vars())
        .stdout(Stdio::null())
        .kill_on_drop(true)
        .spawn()
        .unwrap();
    loop {
        let row = client
            .query_opt(
                "SELECT min(published) FROM relay_cursors WHERE name = $1",
                &[&topology::EVENTS],
            )
            .await
            .unwrap();
        if row.is_some_and(|r| r.get::<_, Option<i64>>(0).unwrap_or(0) >= total) {
            let elapsed = started.elapsed();
            child.kill().await.unwrap();
            return elapsed;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// An outside subscriber's queue, bound to `coupon.events` for the whole
/// bench: with nobody bound the relay would send one probe a batch
/// (docs/design.md §5), and the baseline would publish into nothing.
const ANALYTICS: &str = "bench.analytics";

async fn bind_analytics(env: &Env) {
    let connection = messaging::connect(&env.vhost.amqp_url, "bench-bind")
        .await
        .unwrap();
    let channel = connection.create_channel().await.unwrap();
    let durable = QueueDeclareOptions {
        durable: true,
        ..Default::default()
    };
    channel
        .queue_declare(ANALYTICS.into(), durable, FieldTable::default())
        .await
        .unwrap();
    channel
        .queue_bind(
            ANALYTICS.into(),
            topology::EVENTS.into(),
            "".into(),
            QueueBindOptions::default(),
            FieldTable::default(),
        )
        .await
        .unwrap();
}

/// Empties the queues bound to `coupon.events`, so the baseline publishes
/// into queues as empty as the relay found them (and stays under their
/// bound, where the broker would refuse it).
async fn purge_event_queues(env: &Env) {
    let connection = messaging::connect(&env.vhost.amqp_url, "bench-purge")
        .await
        .unwrap();
    let channel = connection.create_channel().await.unwrap();
    for queue in [
        ANALYTICS,
        Projection::Balances.queue(),
        Projection::TemplateStats.queue(),
        Projection::Notify.queue(),
    ] {
        channel
            .queue_purge(queue.into(), QueuePurgeOptions::default())
            .await
            .unwrap();
    }
}

/// One by one, each confirm awaited before the next publish.
async fn baseline(env: &Env, n: i64, body: &[u8]) -> Duration {
    let connection = messaging::connect(&env.vhost.amqp_url, "bench-baseline")
        .await
        .unwrap();
    let channel = connection.create_channel().await.unwrap();
    channel
        .confirm_select(ConfirmSelectOptions::default())
        .await
        .unwrap();
    let started = Instant::now();
    for i in 0..n {
        let properties = BasicProperties::default()
            .with_message_id(i.to_string().into())
            .with_delivery_mode(2);
        let confirm = channel
            .basic_publish(
                topology::EVENTS.into(),
                "".into(),
                BasicPublishOptions::default(),
                body,
                properties,
            )
            .await
            .unwrap()
            .await
            .unwrap();
        assert!(confirm.is_ack());
    }
    started.elapsed()
}

#[tokio::main]
async fn main() {
    let n = events_setting();
    let env = Env::new().await.unwrap();
    let client = env.db.client().await.unwrap();
    let started = Instant::now();
    let total = issued_store(&client, n).await;
    println!(
        "setup: {total} events in {:.1} s",
        started.elapsed().as_secs_f64()
    );

    if phase("publish") {
        settle_disk(&client).await;
        publish(&env, &client, total).await;
        // The broker then holds millions of messages: empty it, so that it
        // has no work of its own while the replay is timed.
        purge_event_queues(&env).await;
    }
    if phase("replay") {
        settle_disk(&client).await;
        replay(&env, &client, total).await;
    }
}

/// Flushes what the setup wrote (Postgres' dirty buffers, then the
/// kernel's dirty pages), so that a timed phase does not pay for it.
async fn settle_disk(client: &tokio_postgres::Client) {
    client.batch_execute("CHECKPOINT").await.unwrap();
    let synced = Command::new("sync").status().await.unwrap();
    assert!(synced.success());
}

/// Whether BENCH_PHASES (default `publish,replay`) includes `name`.
fn phase(name: &str) -> bool {
    std::env::var("BENCH_PHASES").map_or(true, |p| p.split(',').any(|q| q == name))
}

/// The relay, then the baseline publisher, and their ratio.
async fn publish(env: &Env, client: &tokio_postgres::Client, total: i64) {
    bind_analytics(env).await;
    let relay_time = relay(env, total).await;
    let relay_rate = total as f64 / relay_time.as_secs_f64();
    println!(
        "relay:    {total} events in {:.1} s = {relay_rate:.0} events/s",
        relay_time.as_secs_f64()
    );

    let sample = ledger::store::read_all(client, ledger::store::GlobalCursor::START, 10)
        .await
        .unwrap();
    let body = ledger::messaging::message::encode(sample.last().unwrap()).body;
    purge_event_queues(env).await;
    let base_time = baseline(env, total, &body).await;
    let base_rate = total as f64 / base_time.as_secs_f64();
    println!(
        "baseline: {total} messages one by one with confirms in {:.1} s = {base_rate:.0} msg/s",
        base_time.as_secs_f64()
    );
    println!(
        "relay / baseline = {:.2}x (target >= 1.5x)",
        relay_rate / base_rate
    );
}

/// `ledger replay --verify` over the store, with its peak memory, after
/// its baseline.
async fn replay(env: &Env, client: &tokio_postgres::Client, total: i64) {
    let bare = bare_read(client).await;
    println!(
        "baseline: Postgres alone hands the {total} events over (binary COPY, \
         commit order, read and dropped) in {:.2} s = {:.0} events/s",
        bare.as_secs_f64(),
        total as f64 / bare.as_secs_f64()
    );
    settle_disk(client).await;
    // GNU time, where the machine has it, reports the replay's peak memory.
    let gnu_time = std::path::Path::new("/usr/bin/time");
    let mut command = if gnu_time.exists() {
        let mut c = Command::new(gnu_time);
        c.args(["-f", "peak RSS %M kB"]).arg(bin("ledger"));
        c
    } else {
        Command::new(bin("ledger"))
    };
    let out = command
        .args(["replay", "--verify"])
        .envs(env.vars())
        .output()
        .await
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stdout}{stderr}");
    let rss = stderr.lines().find(|l| l.starts_with("peak RSS"));
    println!(
        "replay --verify: {} {}",
        stdout.lines().last().unwrap_or_default(),
        rss.unwrap_or_default()
    );
}
