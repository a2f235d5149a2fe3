//! `ledger replay`: rebuild the tables from the log and compare (the only
//! mode, so it needs no flag), telling projection lag from corruption.

use std::time::Duration;

use ledger::config::Config;
use ledger::replay::{Lag, Report, Verdict};

use super::progress;

/// Exit code when every difference is projection lag.
pub const EXIT_LAG: u8 = 3;

pub const AFTER_HELP: &str = "\
Verification is the only mode and the default: `ledger replay` and `ledger replay --verify` \
are the same command.

A projection (balances, template_stats) that has not applied every event yet differs from the \
replay in its own tables (balances; template_stats, template_totals): those differences are \
printed as lag, with the projection's position and the log's head, not as corruption.

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
}

pub async fn run(config: &Config, args: Args) -> anyhow::Result<u8> {
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
    let reminders = ledger::replay::NotifyCheck {
        clock: ledger::projections::notify::NotifyClock {
            tz: config.tz,
            at: config.notify_at,
        },
        now: chrono::Utc::now(),
        retention: chrono::Duration::days(i64::from(config.notify_retention_days)),
    };
    let report =
        ledger::replay::verify(&config.database, reminders, |n| bar.set_position(n)).await?;
    bar.finish_and_clear();
    print_report(&report);
    Ok(match report.verdict() {
        Verdict::Agree => 0,
        Verdict::Lag => EXIT_LAG,
        Verdict::Differ => 1,
    })
}

fn print_report(report: &Report) {
    for lag in report.lags.iter().filter(|l| l.is_behind()) {
        println!("{}", describe(lag));
    }
    let differences = &report.differences;
    for d in &differences.listed {
        let tag = if report.is_lag(d.table) { "lag: " } else { "" };
        println!("{tag}{d}");
    }
    if differences.unlisted > 0 {
        println!("... and {} more differences", differences.unlisted);
    }
    let rate = |d: Duration| report.events as f64 / d.as_secs_f64().max(1e-9);
    let total = report.fold + report.compare;
    let unexplained = report.unexplained();
    let lag = differences.len() - unexplained;
    println!(
        "replayed {} events in {:.2} s ({:.0} events/s; folded in {:.2} s, {:.0} events/s; \
         counted and compared in {:.2} s): {} differences{}",
        report.events,
        total.as_secs_f64(),
        rate(total),
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
