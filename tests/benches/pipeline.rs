//! The event pipeline at volume (issue 15 benchmark), in one run over
//! BENCH_EVENTS (default 1,000,000) `CouponIssued` events.
//!
//! 1. **Follow.** A bulk issuance of n lines (`ledger issue`, two issuance
//!    worker processes) while one `workers run --only
//!    relay,balances,template_stats,notify` runs beside it, as deployed.
//!    Timed: the issuance (upload start to the job done, i.e. its last
//!    commit), then from there until every projection has applied every
//!    event. Target: the catch-up takes no longer than the issuance.
//! 2. **Relay.** The relay's routes are reset to the start of the log and
//!    the queues emptied (the three projection queues and one analytics
//!    queue bound to `coupon.events`); `workers run --only relay` publishes
//!    the store along its four routes, timed until every route's cursor is
//!    at the head. Baseline, same run: a pipelined confirmed publisher
//!    (batches of 2,000 all sent before their confirms are awaited, one
//!    channel per destination, the four at once) sends as many messages of
//!    the same size to the same four destinations. Target >= 0.8x.
//! 3. **Projections.** Each projection queue, full from the baseline, is
//!    drained by a consumer that only acks (prefetch 1,000, one `multiple`
//!    ack per 500, as the batch mode acks): its baseline. The relay then
//!    fills the queues again from the store (untimed), the projection
//!    tables are emptied, and each projection worker alone drains its
//!    queue, timed until it has applied every event. Target >= 0.5x the
//!    ack-only consumer of the same queue and >= 10,000 events/s.
//!
//! 0. **Deployed** (issue 33). As `scripts/run` deploys it: one `workers
//!    run` with its default set (issuance, relay, projections, sealer,
//!    scanner, archiver) beside `ledger serve`; timed from the start of an
//!    n-line upload until balances, template_stats and notify have applied
//!    every event. Baseline, same run, on a fresh store of its own: the
//!    same upload issued by `workers run --only issuance` alone (upload
//!    start to the job done). Target <= 2x (stretch 1.5x).
//!
//! `cargo build --release -p ledger -p workers && cargo bench -p tests --bench pipeline`
//! (BENCH_EVENTS=n; BENCH_PHASES=deployed,pipeline selects phase 0 and
//! phases 1-3, which share one store; default both)

use ledger::domain::projection::Projection;
use std::path::Path;
use std::time::{Duration, Instant};

use lapin::options::{BasicPublishOptions, ConfirmSelectOptions, QueuePurgeOptions};
use lapin::types::FieldTable;
use ledger::messaging::message::{self, Outgoing};
use ledger::messaging::routes::{ROUTES, Route};
use ledger::messaging::{self, topology};
use ledger::store::{GlobalCursor, read_all};
use tests::bench::{ack_only, env_number, issue, settle_disk, users_file};
use tests::subscriber;
use tests::workers::Workers;
use tests::{Env, Server, template_body};

const ANALYTICS: &str = "bench.analytics";
const BATCH: usize = 2_000;
/// Each projection: its name, the queue it consumes.
const PROJECTIONS: [(&str, &str); 3] = [
    ("balances", Projection::Balances.queue()),
    ("template_stats", Projection::TemplateStats.queue()),
    ("notify", Projection::Notify.queue()),
];
const PROJECTION_TABLES: &str = "projection_positions, projection_coupons, projection_streams,
    balances, template_stats, template_totals, notify_msg, notify_coupons, inbox";

async fn count_events(client: &tokio_postgres::Client) -> i64 {
    let row = client
        .query_one("SELECT count(*) FROM events", &[])
        .await
        .unwrap();
    row.get(0)
}

/// Polls every 20 ms until `sql` (one bigint) reaches `target`.
async fn wait_until(client: &tokio_postgres::Client, sql: &str, target: i64) {
    loop {
        let reached: Option<i64> = client.query_one(sql, &[]).await.unwrap().get(0);
        if reached.unwrap_or(0) >= target {
            return;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// Events applied by the projection least far along (0 until all three started).
const LEAST_APPLIED: &str = "SELECT CASE WHEN count(*) = 3 THEN min(applied) ELSE 0 END
                               FROM projection_positions";
/// Events published by the route least far along (0 until all four started).
const LEAST_PUBLISHED: &str = "SELECT CASE WHEN count(*) = 4 THEN min(published) ELSE 0 END
                                 FROM relay_cursors";

/// Whether BENCH_PHASES (default: all) includes `name`.
fn phase(name: &str) -> bool {
    std::env::var("BENCH_PHASES").map_or(true, |p| p.split(',').any(|q| q == name))
}

/// Phase 0: (the issuance alone on a fresh store; with the default set,
/// the job done; every projection caught up), each from the upload's start.
async fn deployed(lines: u64) -> (Duration, Duration, Duration) {
    let (dir, file) = users_file(lines);
    let env = Env::new().await.unwrap();
    let server = Server::start(&env).await.unwrap();
    let issuer = Workers::start(&env, "issuance").unwrap();
    let (_, alone) = upload(&env, &server, &file, lines).await;
    issuer.terminate().await.unwrap();
    drop(server);

    let env = Env::new().await.unwrap();
    let server = Server::start(&env).await.unwrap();
    let workers = Workers::start_default(&env).unwrap();
    let (started, done) = upload(&env, &server, &file, lines).await;
    let client = env.db.client().await.unwrap();
    let events = count_events(&client).await;
    wait_until(&client, LEAST_APPLIED, events).await;
    let reflected = started.elapsed();
    workers.terminate().await.unwrap();
    std::fs::remove_dir_all(dir).ok();
    (alone, done, reflected)
}

/// A fresh template, the disk settled, then `file` uploaded and issued:
/// (the upload's start, how long until its job was done).
async fn upload(env: &Env, server: &Server, file: &Path, lines: u64) -> (Instant, Duration) {
    let body = template_body(i64::try_from(lines).unwrap(), 1);
    let sn = server.activate_template(&body).await.unwrap();
    let client = env.db.client().await.unwrap();
    settle_disk(&client, "coupons, events, user_claims").await;
    (Instant::now(), issue(env, server, &sn, file).await)
}

/// Phase 1; (issuance, catch-up after it).
async fn follow(env: &Env, server: &Server, lines: u64) -> (Duration, Duration) {
    let client = env.db.client().await.unwrap();
    let sn = server
        .activate_template(&template_body(i64::try_from(lines).unwrap(), 1))
        .await
        .unwrap();
    let (dir, file) = users_file(lines);
    let issuers: Vec<Workers> = (0..2)
        .map(|_| Workers::start(env, "issuance").unwrap())
        .collect();
    let pipeline = Workers::start(env, "relay,balances,template_stats,notify").unwrap();
    settle_disk(&client, "coupons, events, user_claims").await;
    let issued = issue(env, server, &sn, &file).await;
    let events = count_events(&client).await;
    let at_end: i64 = client.query_one(LEAST_APPLIED, &[]).await.unwrap().get(0);
    let started = Instant::now();
    wait_until(&client, LEAST_APPLIED, events).await;
    let caught_up = started.elapsed();
    println!("  when the job was done, the projections had applied {at_end} of {events} events");
    for w in issuers {
        w.terminate().await.unwrap();
    }
    pipeline.terminate().await.unwrap();
    std::fs::remove_dir_all(dir).ok();
    (issued, caught_up)
}

/// Empties the queues, then gives the broker time to reclaim their
/// segments, so that a timed phase does not pay for the one before.
async fn purge(channel: &lapin::Channel) {
    for queue in [
        Projection::Balances.queue(),
        Projection::TemplateStats.queue(),
        Projection::Notify.queue(),
        ANALYTICS,
    ] {
        channel
            .queue_purge(queue.into(), QueuePurgeOptions::default())
            .await
            .unwrap();
    }
    tokio::time::sleep(Duration::from_secs(15)).await;
}

/// Phase 2, the relay: every route from the start to the head.
async fn relay(env: &Env, events: i64) -> Duration {
    let client = env.db.client().await.unwrap();
    client
        .batch_execute("UPDATE relay_cursors SET tx_id = 0, position = 0, published = 0")
        .await
        .unwrap();
    settle_disk(&client, "events").await;
    let started = Instant::now();
    let relay = Workers::start(env, "relay").unwrap();
    wait_until(&client, LEAST_PUBLISHED, events).await;
    let elapsed = started.elapsed();
    relay.kill().await.unwrap();
    elapsed
}

/// Phase 2, the baseline: `n` copies of `sample` (its body, headers and
/// properties; message ids of their own) to each route's destination,
/// pipelined, the routes at once.
async fn pipelined(env: &Env, n: i64, sample: &Outgoing) -> Duration {
    let amqp = messaging::connect(&env.vhost.amqp_url, "bench-baseline")
        .await
        .unwrap();
    let mut channels = Vec::new();
    for _ in ROUTES {
        let channel = amqp.create_channel().await.unwrap();
        channel
            .confirm_select(ConfirmSelectOptions::default())
            .await
            .unwrap();
        channels.push(channel);
    }
    let started = Instant::now();
    let sends = ROUTES
        .iter()
        .zip(&channels)
        .map(|(route, channel)| publish_route(channel, route, n, sample));
    futures_util::future::join_all(sends).await;
    started.elapsed()
}

async fn publish_route(channel: &lapin::Channel, route: &Route, n: i64, sample: &Outgoing) {
    let options = BasicPublishOptions {
        mandatory: true,
        ..Default::default()
    };
    let mut sent = 0;
    while sent < n {
        let batch = (n - sent).min(BATCH as i64);
        let mut confirms = Vec::with_capacity(BATCH);
        for i in 0..batch {
            let properties = sample
                .properties
                .clone()
                .with_message_id((sent + i).to_string().into());
            let exchange = route.exchange.into();
            let confirm = channel
                .basic_publish(
                    exchange,
                    route.routing_key.into(),
                    options,
                    &sample.body,
                    properties,
                )
                .await
                .unwrap();
            confirms.push(confirm);
        }
        for confirm in confirms {
            assert!(confirm.await.unwrap().is_ack());
        }
        sent += batch;
    }
}

/// Phase 3: the relay refills the projection queues from the store
/// (untimed), the projection tables are emptied.
async fn refill(env: &Env, events: i64) {
    let client = env.db.client().await.unwrap();
    client
        .execute(
            "UPDATE relay_cursors SET tx_id = 0, position = 0, published = 0 WHERE name <> $1",
            &[&topology::EVENTS],
        )
        .await
        .unwrap();
    let relay = Workers::start(env, "relay").unwrap();
    let own_routes = "SELECT CASE WHEN count(*) = 3 THEN min(published) ELSE 0 END
                        FROM relay_cursors WHERE name <> 'coupon.events'";
    wait_until(&client, own_routes, events).await;
    relay.terminate().await.unwrap();
    client
        .batch_execute(&format!("TRUNCATE {PROJECTION_TABLES}"))
        .await
        .unwrap();
    settle_disk(&client, PROJECTION_TABLES).await;
}

/// Phase 3: one projection worker alone, until it has applied `events`.
async fn project(env: &Env, projection: &str, events: i64) -> Duration {
    let client = env.db.client().await.unwrap();
    let started = Instant::now();
    let worker = Workers::start(env, projection).unwrap();
    let sql =
        format!("SELECT max(applied) FROM projection_positions WHERE projection = '{projection}'");
    wait_until(&client, &sql, events).await;
    let elapsed = started.elapsed();
    worker.kill().await.unwrap();
    elapsed
}

fn rate(n: i64, d: Duration) -> f64 {
    n as f64 / d.as_secs_f64()
}

#[tokio::main]
async fn main() {
    let n = env_number("BENCH_EVENTS", 1_000_000);
    if phase("deployed") {
        let (alone, done, reflected) = deployed(n).await;
        println!(
            "0. as deployed: a {n}-line upload reflected in every projection {:.1} s after \
             its start (job done at {:.1} s); the issuance worker alone on a fresh store: \
             {:.1} s: {:.2}x (target <= 2x, stretch 1.5x)",
            reflected.as_secs_f64(),
            done.as_secs_f64(),
            alone.as_secs_f64(),
            reflected.as_secs_f64() / alone.as_secs_f64()
        );
    }
    if !phase("pipeline") {
        return;
    }
    let env = Env::new().await.unwrap();
    let server = Server::start(&env).await.unwrap();
    let (_amqp, channel) = subscriber::declare(&env, ANALYTICS, true, FieldTable::default())
        .await
        .unwrap();

    println!("1. bulk issuance of {n} lines with the pipeline running beside it:");
    let (issued, caught_up) = follow(&env, &server, n).await;
    println!(
        "  issuance {:.1} s; the projections caught up {:.1} s after its last commit \
         ({:.2}x the issuance; target <= 1x)",
        issued.as_secs_f64(),
        caught_up.as_secs_f64(),
        caught_up.as_secs_f64() / issued.as_secs_f64()
    );

    let client = env.db.client().await.unwrap();
    let events = count_events(&client).await;
    purge(&channel).await;
    let relayed = relay(&env, events).await;
    let sample = read_all(&client, GlobalCursor::START, 10).await.unwrap();
    let sample = message::encode(sample.last().unwrap());
    purge(&channel).await;
    let base = pipelined(&env, events, &sample).await;
    println!(
        "2. relay: {events} events along 4 routes in {:.1} s ({:.0} events/s); pipelined \
         publisher, same messages to the same 4 destinations: {:.1} s ({:.0}/s): {:.2}x \
         (target >= 0.8x)",
        relayed.as_secs_f64(),
        rate(events, relayed),
        base.as_secs_f64(),
        rate(events, base),
        base.as_secs_f64() / relayed.as_secs_f64()
    );

    println!("3. projections against an ack-only consumer of the same queue:");
    let mut baselines = Vec::new();
    for (_, queue) in PROJECTIONS {
        baselines.push(ack_only(&env, queue, events).await);
    }
    channel
        .queue_purge(ANALYTICS.into(), QueuePurgeOptions::default())
        .await
        .unwrap();
    refill(&env, events).await;
    for ((projection, _), baseline) in PROJECTIONS.iter().zip(baselines) {
        let took = project(&env, projection, events).await;
        println!(
            "  {projection}: {:.1} s ({:.0} events/s); ack-only {:.1} s ({:.0}/s): {:.2}x \
             (target >= 0.5x, >= 10,000 events/s)",
            took.as_secs_f64(),
            rate(events, took),
            baseline.as_secs_f64(),
            rate(events, baseline),
            baseline.as_secs_f64() / took.as_secs_f64()
        );
    }
}
