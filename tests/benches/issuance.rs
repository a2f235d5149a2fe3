//! Bulk issuance at volume (issue 13 benchmark).
//!
//! 1. `ledger issue` (release build) uploads a file of BENCH_LINES distinct
//!    user ids to `ledger serve`; BENCH_WORKERS `workers run --only
//!    issuance` processes issue it. Timed from the start of the upload to
//!    the job being done (every chunk committed); lines/s and the peak RSS
//!    of the server and of each worker are printed.
//! 2. Baseline, same run, same database: one transaction writes the same
//!    number of coupon rows and `CouponIssued` event rows (same shape, same
//!    tables, same indexes) by binary COPY, as fast as Postgres takes them.
//!
//! How fast the projections follow an issuance: `--bench pipeline`.
//!
//! Each timed phase starts after a VACUUM of the tables it writes, a
//! CHECKPOINT and a `sync`.
//!
//! `cargo build --release -p ledger -p workers && cargo bench -p tests --bench issuance`
//! (BENCH_LINES=n, default 1,000,000; BENCH_WORKERS=n, default 2).

use std::time::{Duration, Instant};

use chrono::{SubsecRound, Utc};
use ledger::commands::coupon_rows;
use ledger::domain::events::{CouponIssued, Metadata};
use ledger::domain::ledger_event::LedgerEvent;
use ledger::domain::money::Money;
use ledger::store::{NewEvent, StreamEvent};
use tests::bench::{env_number, issue, settle_disk, users_file};
use tests::workers::Workers;
use tests::{Env, Server, template_body};
use uuid::Uuid;

/// What each timed phase writes, vacuumed before it.
const TABLES: &str = "coupons, events, user_claims";

/// Peak resident memory of a process, in MiB (Linux `VmHWM`).
fn peak_rss_mib(pid: Option<u32>) -> f64 {
    let status = pid
        .and_then(|p| std::fs::read_to_string(format!("/proc/{p}/status")).ok())
        .unwrap_or_default();
    let kib: f64 = status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap_or(f64::NAN);
    kib / 1024.0
}

/// The baseline: `n` coupon rows and their events by binary COPY, one transaction.
async fn baseline(env: &Env, sn: &str, n: u64) -> Duration {
    let mut client = env.db.client().await.unwrap();
    let now = Utc::now().trunc_subsecs(6);
    let metadata = Metadata {
        actor: "bench".into(),
        correlation_id: "bench".into(),
        ..Default::default()
    };
    let coupons: Vec<CouponIssued> = (0..n)
        .map(|i| CouponIssued {
            coupon_id: Uuid::now_v7(),
            template_sn: ledger::domain::ids::TemplateSn::stored(sn.to_owned()),
            user_id: ledger::domain::ids::UserId::parse(&format!("base-{i}")).expect("a user id"),
            issued_at: now,
            effective_at: now,
            expires_at: now + chrono::Duration::days(7),
            face_value: Money::parse("20.00").unwrap(),
            currency: "CNY".into(),
            channel_id: None,
            refund_from: None,
            job_id: Some(Uuid::nil()),
            job_line: Some(i + 1),
            remind_days_before: None,
            job_notify: false,
        })
        .collect();
    let events: Vec<StreamEvent> = coupons
        .iter()
        .map(|c| StreamEvent {
            stream_id: format!("coupon-{}", c.coupon_id),
            stream_version: 1,
            event: NewEvent::of(&LedgerEvent::CouponIssued(c.clone()), &metadata, now).unwrap(),
        })
        .collect();
    settle_disk(&client, TABLES).await;
    let started = Instant::now();
    let tx = client.transaction().await.unwrap();
    coupon_rows::copy(&tx, &coupons).await.unwrap();
    ledger::store::copy_events(&tx, &events).await.unwrap();
    tx.commit().await.unwrap();
    started.elapsed()
}

#[tokio::main]
async fn main() {
    let lines = env_number("BENCH_LINES", 1_000_000);
    let worker_count = env_number("BENCH_WORKERS", 2);
    let env = Env::new().await.unwrap();
    let server = Server::start(&env).await.unwrap();
    let total = i64::try_from(lines * 2).unwrap();
    let sn = server
        .activate_template(&template_body(total, 1))
        .await
        .unwrap();
    let (dir, file) = users_file(lines);
    let workers: Vec<Workers> = (0..worker_count)
        .map(|_| Workers::start(&env, "issuance").unwrap())
        .collect();
    let client = env.db.client().await.unwrap();
    settle_disk(&client, TABLES).await;

    println!("bulk issuance of {lines} lines ({worker_count} issuance workers):");
    let issued = issue(&env, &server, &sn, &file).await;
    let serve_rss = peak_rss_mib(server.pid());
    let worker_rss: Vec<String> = workers
        .iter()
        .map(|w| format!("{:.0}", peak_rss_mib(w.pid())))
        .collect();
    for w in workers {
        w.terminate().await.unwrap();
    }
    let copy = baseline(&env, &sn, lines).await;
    let rate = lines as f64 / issued.as_secs_f64();
    println!(
        "  ledger issue end to end: {:.1} s, {rate:.0} lines/s; peak RSS serve {serve_rss:.0} MiB, \
         workers {} MiB",
        issued.as_secs_f64(),
        worker_rss.join(" / ")
    );
    println!(
        "  baseline (binary COPY of the same coupon and event rows): {:.1} s",
        copy.as_secs_f64()
    );
    println!(
        "  ratio: {:.2}x the baseline (target <= 2x, stretch 1.5x); target >= 30,000 lines/s",
        issued.as_secs_f64() / copy.as_secs_f64()
    );
    std::fs::remove_dir_all(dir).ok();
}
