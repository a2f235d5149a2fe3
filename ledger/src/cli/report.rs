//! `ledger report liability`: what the ledger owed, and what its coupons
//! cost, as of any instant, from the events alone.

use std::io::Write;
use std::time::Instant;

use chrono::{DateTime, Days, NaiveDate, Utc};
use chrono_tz::Tz;
use clap::Subcommand;
use ledger::config::Config;
use ledger::domain::liability::{By, Totals};
use ledger::domain::money::serialize_two_places;
use ledger::queries::liability::{Report, report};
use rust_decimal::Decimal;
use serde::Serialize;

#[derive(Subcommand)]
pub enum Command {
    /// Liability and cost as of an instant, per template, channel or issue
    /// day: counts by status, face value outstanding, coupon cost.
    Liability(LiabilityArgs),
}

#[derive(clap::Args)]
pub struct LiabilityArgs {
    /// The instant, inclusive: RFC 3339 (2026-11-20T16:00:00Z), a business
    /// day (2026-11-20: the end of that day in LEDGER_TZ), or `now`.
    #[arg(long, value_parser = AsOf::parse)]
    as_of: AsOf,
    /// One row per template, per channel (`none`: issued without one) or per
    /// business day the coupons were issued.
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

#[derive(Clone, Copy, Debug)]
enum AsOf {
    Now,
    Instant(DateTime<Utc>),
    EndOf(NaiveDate),
}

impl AsOf {
    fn parse(s: &str) -> Result<AsOf, String> {
        if s == "now" {
            return Ok(AsOf::Now);
        }
        if let Ok(day) = NaiveDate::parse_from_str(s, "%Y-%m-%d") {
            return Ok(AsOf::EndOf(day));
        }
        DateTime::parse_from_rfc3339(s)
            .map(|t| AsOf::Instant(t.with_timezone(&Utc)))
            .map_err(|e| {
                format!("{e}: expected RFC 3339 (2026-11-20T16:00:00Z), a day (2026-11-20) or now")
            })
    }

    /// The instant; a day ends at the last microsecond before the next day
    /// begins in `tz` (timestamps are stored to the microsecond).
    fn resolve(self, tz: Tz) -> Result<DateTime<Utc>, String> {
        match self {
            AsOf::Now => Ok(Utc::now()),
            AsOf::Instant(t) => Ok(t),
            AsOf::EndOf(day) => {
                let next = day
                    .checked_add_days(Days::new(1))
                    .ok_or("day out of range")?;
                let midnight = ledger::domain::validity::start_of_day(tz, next)
                    .ok_or("that day has no start in LEDGER_TZ")?;
                Ok(midnight - chrono::Duration::microseconds(1))
            }
        }
    }
}

pub async fn run(config: &Config, command: Command) -> anyhow::Result<()> {
    let Command::Liability(args) = command;
    let as_of = args.as_of.resolve(config.tz).map_err(anyhow::Error::msg)?;
    let mut client = ledger::db::connect(&config.database).await?;
    let started = Instant::now();
    let report = report(&mut client, as_of, config.tz, !args.from_start).await?;
    let took = started.elapsed();
    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    let rows = rows(&report, args.by);
    match args.format {
        Format::Table => write_table(&mut out, &rows)?,
        Format::Csv => write_csv(&mut out, &rows)?,
        Format::Json => {
            let body = Body {
                as_of,
                by: args.by,
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

/// One row of the report.
#[derive(Serialize)]
struct Row {
    group: String,
    issued: i64,
    unused: i64,
    locked: i64,
    used: i64,
    refunded: i64,
    expired: i64,
    voided: i64,
    #[serde(serialize_with = "serialize_two_places")]
    face_value_outstanding: Decimal,
    #[serde(serialize_with = "serialize_two_places")]
    cost: Decimal,
}

#[derive(Serialize)]
struct Body<'a> {
    as_of: DateTime<Utc>,
    #[serde(serialize_with = "serialize_by")]
    by: By,
    rows: &'a [Row],
}

fn serialize_by<S: serde::Serializer>(by: &By, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(&format!("{by:?}").to_lowercase())
}

/// The groups' rows, then a `total` row.
fn rows(report: &Report, by: By) -> Vec<Row> {
    let grouped = report.liability.by(by).into_iter();
    let total = ("total".to_owned(), report.liability.total());
    grouped
        .chain(std::iter::once(total))
        .map(|(g, t)| row(g, &t))
        .collect()
}

fn row(group: String, t: &Totals) -> Row {
    Row {
        group,
        issued: t.issued,
        unused: t.unused,
        locked: t.locked,
        used: t.used,
        refunded: t.refunded,
        expired: t.expired,
        voided: t.voided,
        face_value_outstanding: t.outstanding_value(),
        cost: t.cost_value(),
    }
}

const HEADER: [&str; 10] = [
    "group",
    "issued",
    "unused",
    "locked",
    "used",
    "refunded",
    "expired",
    "voided",
    "face_value_outstanding",
    "cost",
];

fn fields(r: &Row) -> [String; 10] {
    [
        r.group.clone(),
        r.issued.to_string(),
        r.unused.to_string(),
        r.locked.to_string(),
        r.used.to_string(),
        r.refunded.to_string(),
        r.expired.to_string(),
        r.voided.to_string(),
        format!("{:.2}", r.face_value_outstanding),
        format!("{:.2}", r.cost),
    ]
}

fn write_csv(out: &mut impl Write, rows: &[Row]) -> std::io::Result<()> {
    out.write_all(ledger::csv_line::record(&HEADER).as_bytes())?;
    for r in rows {
        let fields = fields(r);
        let fields: Vec<&str> = fields.iter().map(String::as_str).collect();
        out.write_all(ledger::csv_line::record(&fields).as_bytes())?;
    }
    Ok(())
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
