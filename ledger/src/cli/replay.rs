//! `ledger replay`: rebuild the tables from the log and compare (the only
//! mode, so it needs no flag), telling projection lag from corruption.

use std::time::Duration;

use ledger::config::Config;
use ledger::replay::partition::MAX_PARTITIONS;
use ledger::replay::{Lag, Partitions, Progress, Report, Verdict};

use super::progress;

/// Exit code when every difference is projection lag.
pub const EXIT_LAG: u8 = 3;

pub const AFTER_HELP: &str = "\
Verification is the only mode and the default: `ledger replay` and `ledger replay --verify` \
are the same command.

A projection (balances, template_stats) that has not applied every event yet differs from the \
replay in its own tables (balances; template_stats, template_totals): those differences are \
printed as lag, with the projection's position and the log's head, not as corruption.

Memory is bounded whatever the store's size: the coupons are replayed in passes (--partitions), \
each holding at most about a million coupons when the count is chosen, and the per-user tables \
in as many buckets of users, from what the passes spill to a temporary directory (TMPDIR).

Exit codes: 0 the tables are what the log says; 1 a difference lag does not explain (or an \
error); 3 only lag (run again once the workers caught up, or with --wait-for-projections).";

#[derive(clap::Args)]
pub struct Args {
    /// Compare with the live tables (the only mode; the default, accepted for scripts).
    #[arg(long)]
    verify: bool,
    /// Wait at most SECS for the projections to apply every event before comparing.
    #[arg(long, value_name = "SECS", default_value_t = 0,
          value_parser = clap::value_parser!(u64).range(0..=3600))]
    wait_for_projections: u64,
    /// Replay in N passes, each over the coupons (and users) that hash to it
    /// [default: enough to hold about a million coupons per pass].
    #[arg(long, value_name = "N",
          value_parser = clap::value_parser!(u32).range(1..=i64::from(MAX_PARTITIONS)))]
    partitions: Option<u32>,
}

pub async fn run(config: &Config, args: Args) -> anyhow::Result<u8> {
    no_huge_pages();
    let client = ledger::db::connect(&config.database).await?;
    if args.wait_for_projections > 0 {
        let timeout = Duration::from_secs(args.wait_for_projections);
        let lags = ledger::replay::lag::wait(&client, timeout).await?;
        if lags.iter().any(Lag::is_behind) {
            println!("the projections are still behind after {timeout:?}");
        }
    }
    let estimate = ledger::replay::estimated_rows(&client, "events").await?;
    drop(client);
    let bar = progress::bar(estimate, "replaying");
    let partitions = args.partitions.and_then(Partitions::new);
    let reminders = ledger::replay::NotifyCheck {
        clock: ledger::projections::notify::NotifyClock {
            tz: config.tz,
            at: config.notify_at,
        },
        now: chrono::Utc::now(),
        retention: chrono::Duration::days(i64::from(config.notify_retention_days)),
    };
    let mut shown_pass = None;
    let on_progress = |p: Progress| {
        if p.passes > 1 && shown_pass != Some(p.pass) {
            shown_pass = Some(p.pass);
            bar.set_message(format!("replaying, pass {} of {}", p.pass + 1, p.passes));
        }
        bar.set_position(p.events);
    };
    let report =
        ledger::replay::verify(&config.database, reminders, partitions, on_progress).await?;
    bar.finish_and_clear();
    print_report(&report);
    Ok(match report.verdict() {
        Verdict::Agree => 0,
        Verdict::Lag => EXIT_LAG,
        Verdict::Differ => 1,
    })
}

/// Turns transparent huge pages off for this process (docs/design.md §11,
/// "Replay and huge pages"). The replay fills about 600 MB of maps once
/// and reads them at random; mimalloc asks for huge pages on its large
/// mappings, and faulting them in cost the fold a quarter of its time on
/// the bench's machine (3.3 s against 2.5 s without). A refusal is
/// harmless: the replay is only slower.
fn no_huge_pages() {
    #[cfg(target_os = "linux")]
    if let Err(e) = nix::sys::prctl::set_thp_disable(true) {
        tracing::debug!("transparent huge pages stay on for this replay: {e}");
    }
}

fn print_report(report: &Report) {
    for lag in report.lags.iter().filter(|l| l.is_behind()) {
        println!("{}", describe(lag));
    }
    let differences = &report.differences;
    for d in &differences.listed {
        let tag = if report.explains(d) { "lag: " } else { "" };
        println!("{tag}{d}");
    }
    if differences.unlisted > 0 {
        println!("... and {} more differences", differences.unlisted);
    }
    let rate = |d: Duration| super::rate::amount(report.events as f64 / d.as_secs_f64().max(1e-9));
    let total = report.fold + report.compare;
    let unexplained = report.unexplained();
    let lag = differences.len() - unexplained;
    println!(
        "replayed {} events in {:.2} s ({} events/s; {}; folded in {:.2} s, \
         {} events/s; counted and compared in {:.2} s): {} differences{}",
        report.events,
        total.as_secs_f64(),
        rate(total),
        match report.partitions.count() {
            1 => "1 pass".to_owned(),
            n => format!("{n} passes"),
        },
        report.fold.as_secs_f64(),
        rate(report.fold),
        report.compare.as_secs_f64(),
        differences.len(),
        if lag > 0 {
            format!(" ({lag} projection lag, {unexplained} not lag)")
        } else {
            String::new()
        }
    );
}

/// One line saying how far a projection is behind the snapshot's head.
fn describe(lag: &Lag) -> String {
    let show = |p: Option<i64>| p.map_or_else(|| "none".to_owned(), |p| p.to_string());
    format!(
        "lag: projection {} is {} events behind (applied up to position {}, the log's head is \
         position {}): its tables' differences are lag, not corruption",
        lag.projection,
        lag.behind,
        show(lag.position),
        show(lag.head)
    )
}
