//! `ledger report liability`: what the ledger owed, and what its coupons
//! cost, as of any instant, from the events alone.

use std::io::Write;
use std::time::Instant;

use chrono::{DateTime, Utc};
use clap::Subcommand;
use ledger::config::Config;
use ledger::domain::liability::By;
use ledger::domain::liability_report::{AsOf, HEADER, Row, by_name, csv, fields, rows};
use ledger::queries::liability::{report, shops_for};
use serde::Serialize;

#[derive(Subcommand)]
pub enum Command {
    /// Liability and cost as of an instant, per template, channel, issue
    /// day or shop: counts by status, face value outstanding, coupon cost.
    Liability(LiabilityArgs),
}

#[derive(clap::Args)]
pub struct LiabilityArgs {
    /// The instant, inclusive: RFC 3339 (2026-11-20T16:00:00Z), a business
    /// day (2026-11-20: the end of that day in LEDGER_TZ), or `now`.
    #[arg(long, value_parser = AsOf::parse)]
    as_of: AsOf,
    /// One row per template, per channel (`none`: issued without one), per
    /// business day the coupons were issued, or per shop of their template
    /// (`(platform)`: templates of no shop).
    #[arg(long, value_enum, default_value_t = By::Template)]
    by: By,
    #[arg(long, value_enum, default_value_t = Format::Table)]
    format: Format,
    /// Fold every event from the start, ignoring the liability snapshots
    /// (which are derived data): a check of them, slower.
    #[arg(long)]
    from_start: bool,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
enum Format {
    Table,
    Csv,
    Json,
}

pub async fn run(config: &Config, command: Command) -> anyhow::Result<()> {
    let Command::Liability(args) = command;
    let as_of = args
        .as_of
        .resolve(config.tz, chrono::Utc::now())
        .map_err(anyhow::Error::msg)?;
    let mut client = ledger::db::connect(&config.database).await?;
    let started = Instant::now();
    let report = report(&mut client, as_of, config.tz, !args.from_start).await?;
    let took = started.elapsed();
    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    let shops = shops_for(&client, &report.liability, args.by).await?;
    let rows = rows(&report.liability, args.by, &shops);
    match args.format {
        Format::Table => write_table(&mut out, &rows)?,
        Format::Csv => out.write_all(csv(&rows).as_bytes())?,
        Format::Json => {
            let body = Body {
                as_of,
                by: by_name(args.by),
                rows: &rows,
            };
            serde_json::to_writer_pretty(&mut out, &body)?;
            writeln!(out)?;
        }
    }
    out.flush()?;
    let start = report.snapshot.map_or_else(
        || "the start".to_owned(),
        |c| format!("checkpoint {c}'s snapshot"),
    );
    eprintln!(
        "as of {}: folded {} events after {start} in {:.2} s{}",
        as_of.to_rfc3339_opts(chrono::SecondsFormat::Micros, true),
        report.events,
        took.as_secs_f64(),
        if report.unmatched > 0 {
            format!(
                " ({} events of coupons or orders begun after it left out)",
                report.unmatched
            )
        } else {
            String::new()
        }
    );
    Ok(())
}

#[derive(Serialize)]
struct Body<'a> {
    as_of: DateTime<Utc>,
    by: &'static str,
    rows: &'a [Row],
}

/// Columns padded to their widest cell; numbers right-aligned.
fn write_table(out: &mut impl Write, rows: &[Row]) -> std::io::Result<()> {
    let cells: Vec<[String; 10]> = std::iter::once(HEADER.map(str::to_owned))
        .chain(rows.iter().map(fields))
        .collect();
    let widths: Vec<usize> = (0..HEADER.len())
        .map(|i| cells.iter().map(|c| c[i].len()).max().unwrap_or(0))
        .collect();
    for c in &cells {
        let mut line = format!("{:<w$}", c[0], w = widths[0]);
        for (cell, w) in c.iter().zip(&widths).skip(1) {
            line.push_str(&format!("  {cell:>w$}"));
        }
        writeln!(out, "{}", line.trim_end())?;
    }
    Ok(())
}
