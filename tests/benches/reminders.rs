//! Expiry reminders at volume (issue 14 benchmark).
//!
//! Setup (untimed): five templates reminding 1 day before expiry, and
//! BENCH_EVENTS `CouponIssued` messages (one coupon of each template per
//! user: BENCH_EVENTS / 5 users) as the relay sends them, published to
//! `coupon.events.notify` with confirms.
//!
//! 1. Baseline: a consumer that only acks (prefetch 1,000, one `multiple`
//!    ack per 500, as the batch mode acks) drains the queue; timed from
//!    its start to the last ack.
//! 2. The same messages again, drained by `workers run --only notify`
//!    (release build: the batched projection); timed from the start to
//!    `projection_positions.applied` reaching them all. Rows: one per
//!    coupon (user, template, day).
//! 3. The sender, in process, at the reminders' time: every row due, one
//!    message per user (five coupons each) to `coupon.notifications`, a
//!    queue bound to it; timed over the whole `send_due` run. (The coupons'
//!    rows are written first, as the write model has them.)
//!
//! `cargo build --release -p ledger -p workers && cargo bench -p tests --bench reminders`
//! (BENCH_EVENTS=n, default 1,000,000).

use ledger::domain::projection::Projection;
use std::time::{Duration, Instant};

use chrono::{Days, SubsecRound, TimeZone, Utc};
use lapin::options::QueueDeclareOptions;
use lapin::types::FieldTable;
use ledger::commands::reminders::{SendLimits, send_due};
use ledger::domain::events::CouponIssued;
use ledger::domain::ledger_event::LedgerEvent;
use ledger::domain::money::Money;
use ledger::domain::reminder::{NotifyAt, RawRemindDays, RemindDays, instant};
use ledger::messaging::lazy_publisher::LazyPublisher;
use ledger::messaging::message::encode;
use ledger::messaging::{self, topology};
use ledger::store::RecordedEvent;
use serde_json::json;
use tests::Env;
use tests::bench::ack_only;
use tests::reminders::pool;
use tests::workers::Workers;
use uuid::Uuid;

const TEMPLATES: usize = 5;
const CHUNK: usize = 10_000;

fn events_setting() -> usize {
    std::env::var("BENCH_EVENTS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(1_000_000)
}

/// The templates' rows (the sender reads their names).
async fn templates(client: &tokio_postgres::Client) {
    for t in 0..TEMPLATES {
        client
            .execute(
                "INSERT INTO templates (sn, name, kind, currency, terms, face_value, issue_begin,
                     issue_end, total, issued, per_user_limit, refund_policy, remind_days_before,
                     status, version, created_at)
                 VALUES ($1, $1, 'goods', 'CNY', '{}', 20.00, now() - interval '1 day',
                         now() + interval '1 day', 10000000, 0, 1, 'restore', '{1}', 'active', 2, now())",
                &[&format!("BENCH{t}")],
            )
            .await
            .unwrap();
    }
}

/// Publishes the `CouponIssued` messages of every (user, template), chunk
/// by chunk (confirmed), to the notify queue.
async fn publish(env: &Env, n: usize, expires_at: chrono::DateTime<Utc>) {
    let (_amqp, publisher) = tests::test_publisher::open(env, "bench").await.unwrap();
    let now = Utc::now().trunc_subsecs(6);
    let remind = RemindDays::parse(&RawRemindDays::One(1)).unwrap();
    let mut chunk = Vec::with_capacity(CHUNK);
    for i in 0..n {
        let coupon_id = Uuid::now_v7();
        let issued = CouponIssued {
            coupon_id,
            template_sn: ledger::domain::ids::TemplateSn::stored(format!("BENCH{}", i % TEMPLATES)),
            user_id: ledger::domain::ids::UserId::parse(&format!("b{}", i / TEMPLATES))
                .expect("a user id"),
            issued_at: now,
            effective_at: now,
            expires_at,
            face_value: Money::parse("20.00").unwrap(),
            currency: "CNY".into(),
            channel_id: None,
            refund_from: None,
            job_id: None,
            job_line: None,
            remind_days_before: Some(remind.clone()),
            job_notify: false,
        };
        let event = RecordedEvent {
            position: i64::try_from(i).unwrap() + 1,
            event_id: Uuid::now_v7(),
            stream_id: format!("coupon-{coupon_id}"),
            stream_version: 1,
            event_type: ledger::domain::EventType::CouponIssued.into(),
            schema_version: 1,
            payload: LedgerEvent::CouponIssued(issued).payload_json().unwrap(),
            metadata: json!({"actor": "bench", "correlation_id": "bench"}),
            occurred_at: now,
            recorded_at: now,
            tx_id: 1,
        };
        chunk.push(encode(&event));
        if chunk.len() == CHUNK || i + 1 == n {
            publisher
                .publish_all("", Projection::Notify.queue(), &chunk)
                .await
                .unwrap();
            chunk.clear();
        }
    }
}

/// Runs the notify worker until it has applied `n` messages.
async fn project(env: &Env, n: usize) -> Duration {
    let client = env.db.client().await.unwrap();
    let started = Instant::now();
    let workers = Workers::start(env, "notify").unwrap();
    loop {
        let row = client
            .query_opt(
                "SELECT applied FROM projection_positions WHERE projection = 'notify'",
                &[],
            )
            .await
            .unwrap();
        if row.is_some_and(|r| r.get::<_, i64>(0) >= i64::try_from(n).unwrap()) {
            let elapsed = started.elapsed();
            workers.kill().await.unwrap();
            return elapsed;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

#[tokio::main]
async fn main() {
    let n = events_setting();
    let env = Env::new().await.unwrap();
    let client = env.db.client().await.unwrap();
    let tz = chrono_tz::Asia::Shanghai;
    let day = Utc::now().with_timezone(&tz).date_naive() + Days::new(10);
    let end = tz
        .from_local_datetime(&day.and_hms_opt(23, 59, 59).unwrap())
        .unwrap()
        .with_timezone(&Utc);
    templates(&client).await;

    publish(&env, n, end).await;
    let baseline = ack_only(&env, Projection::Notify.queue(), n as i64).await;
    publish(&env, n, end).await;
    let projected = project(&env, n).await;
    let rate = |d: Duration| n as f64 / d.as_secs_f64();
    println!(
        "ack-only consumer: {n} messages in {:.1} s ({:.0} msg/s)",
        baseline.as_secs_f64(),
        rate(baseline)
    );
    println!(
        "notify projection: {n} CouponIssued in {:.1} s ({:.0} events/s, {:.2}x the ack-only consumer)",
        projected.as_secs_f64(),
        rate(projected),
        baseline.as_secs_f64() / projected.as_secs_f64()
    );

    // The write model's coupons, then the whole send at the reminders' time.
    client
        .batch_execute(
            "INSERT INTO coupons (id, template_sn, user_id, status, issued_at, effective_at,
                                  expires_at, version)
               SELECT coupon_id, template_sn, user_id, 'unused', now(), now(), expires_at, 1
                 FROM notify_coupons",
        )
        .await
        .unwrap();
    client.batch_execute("VACUUM ANALYZE").await.unwrap();
    let amqp = messaging::connect(&env.vhost.amqp_url, "bench-touch")
        .await
        .unwrap();
    let channel = amqp.create_channel().await.unwrap();
    let durable = QueueDeclareOptions {
        durable: true,
        ..Default::default()
    };
    channel
        .queue_declare("bench.touch".into(), durable, FieldTable::default())
        .await
        .unwrap();
    topology::bind(&channel, "bench.touch", topology::NOTIFICATIONS)
        .await
        .unwrap();
    let pool = pool(&env, 4).unwrap();
    let publisher = LazyPublisher::new(
        &env.vhost.amqp_url,
        "bench-sender",
        env.store().await.unwrap(),
    );
    let due = instant(day - Days::new(1), tz, NotifyAt::default()).unwrap();
    let started = Instant::now();
    let report = send_due(&pool, &publisher, due, SendLimits::default())
        .await
        .unwrap();
    let sent = started.elapsed();
    assert_eq!(report.rows_sent as usize, n, "{report:?}");
    assert_eq!(report.messages as usize, n / TEMPLATES, "{report:?}");
    println!(
        "sender: {} rows, {} messages in {:.1} s ({:.0} rows/s, {:.0} messages/s)",
        report.rows_sent,
        report.messages,
        sent.as_secs_f64(),
        report.rows_sent as f64 / sent.as_secs_f64(),
        report.messages as f64 / sent.as_secs_f64()
    );
}
