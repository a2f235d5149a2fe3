//! `scripts/faults`: the fault suite from the command line
//! (docs/design.md §18). One seed, or a soak of many; exit 1 on any anomaly.

use std::time::Duration;

use clap::Parser;
use tests::faults::{self, Run};

#[derive(Parser)]
#[command(about = "Runs the ledger under a seeded schedule of faults and checks it")]
struct Args {
    /// The seed of the schedule (and of the soak's first run).
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// How long the workload runs, in minutes (fractions allowed).
    #[arg(long, default_value_t = 2.0, value_parser = minutes)]
    minutes: f64,
    /// On the clusters of `scripts/cluster` instead of single nodes.
    #[arg(long)]
    cluster: bool,
    /// Many runs, seeds from --seed on, and a table of them.
    #[arg(long)]
    soak: bool,
    /// How many seeds a soak runs.
    #[arg(long, default_value_t = 10, value_parser = clap::value_parser!(u64).range(1..=1000))]
    seeds: u64,
    /// A bug planted in the binaries (skip_inbox, drop_quota_guard,
    /// ack_before_commit, answer_before_commit): the checker must find it.
    #[arg(long)]
    planted: Option<String>,
    /// Only print the schedule the seed gives.
    #[arg(long)]
    schedule: bool,
}

/// A run is at least 20 s (the quiet edges) and at most a day.
fn minutes(text: &str) -> Result<f64, String> {
    let m: f64 = text.parse().map_err(|e| format!("{e}"))?;
    if (0.34..=1440.0).contains(&m) {
        Ok(m)
    } else {
        Err("between 0.34 (20 s) and 1440 (a day)".into())
    }
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let args = Args::parse();
    let length = Duration::from_secs_f64(args.minutes * 60.0);
    if args.schedule {
        for p in faults::schedule::schedule(args.seed, length, args.cluster) {
            println!(
                "{:>7.1} s  {:<22} {:.1} s",
                p.at.as_secs_f64(),
                p.fault.name(),
                p.lasts.as_secs_f64()
            );
        }
        return Ok(());
    }
    let count = if args.soak { args.seeds } else { 1 };
    let mut failed = 0;
    // Faults injected by kind, over the whole soak.
    let mut kinds: std::collections::BTreeMap<&str, usize> = Default::default();
    if args.soak {
        println!(
            "{:>6}  {:>8}  {:>6}  {:>9}  verdict",
            "seed", "requests", "faults", "anomalies"
        );
    }
    for seed in args.seed..args.seed + count {
        let mut run = Run::new(seed, length, args.cluster);
        run.planted = args.planted.clone();
        let report = match faults::run(&run).await {
            Ok(report) => report,
            // A soak goes on past a run that could not finish; one seed stops.
            Err(e) if args.soak => {
                failed += 1;
                println!("{seed:>6}  {:>8}  {:>6}  {:>9}  ERROR {e:#}", "-", "-", "-");
                continue;
            }
            Err(e) => return Err(e),
        };
        failed += usize::from(!report.passed());
        for injected in &report.injected {
            *kinds.entry(injected.fault.name()).or_default() += 1;
        }
        if args.soak {
            println!(
                "{seed:>6}  {:>8}  {:>6}  {:>9}  {}",
                report.requests,
                report.injected.len(),
                report.anomalies.len(),
                if report.passed() {
                    "pass".to_owned()
                } else {
                    format!("FAIL {:?}", report.failed_checks())
                }
            );
        } else {
            print!("{}", report.summary());
        }
        eprintln!("report: {}", report.dir().display());
    }
    if args.soak {
        let by_kind: Vec<String> = kinds.iter().map(|(k, n)| format!("{k} {n}")).collect();
        println!("faults by kind: {}", by_kind.join(", "));
    }
    if failed > 0 {
        eprintln!("{failed} of {count} runs found anomalies");
        std::process::exit(1);
    }
    Ok(())
}
