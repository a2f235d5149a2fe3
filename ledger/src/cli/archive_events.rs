//! `ledger archive events` and `ledger archive export-events`: the event
//! store's partitions over years (docs/design.md §16, "Old partitions" and
//! "Retiring an event partition"); the library side is
//! `store/partition_moves.rs`, `audit/partition_export.rs` and
//! `audit/retire.rs`.

use std::path::PathBuf;

use anyhow::Context;
use clap::ArgGroup;
use indicatif::HumanBytes;
use ledger::audit::chain::to_hex;
use ledger::audit::partition_export::{Stage, export_to_file};
use ledger::audit::partition_records::{Action, ExportRecord, Retirement};
use ledger::audit::retire::{Listed, overview, retire, verify_from};
use ledger::config::Config;
use ledger::store::partition_moves::{self, Use};
use ledger::store::partitions;

use super::progress;

pub const EVENTS_AFTER_HELP: &str = "\
Without --partition: list the partitions (number, range, rows as Postgres
estimates them, size, tablespace, use, verified export) and those that left.

--tablespace copies the partition and its indexes under an ACCESS EXCLUSIVE
lock on it: appends never wait (they go to the partition being written),
but every reader of events that names no position range (relay, sealer,
projections catching up, replay, verify) waits until the copy ends, about a
minute per few GB. Run it in a quiet hour.

--detach and --drop need a verified export of exactly that partition
(ledger archive export-events) that still counts its rows; partitions leave
oldest first. Afterwards `ledger audit verify` runs with --from-checkpoint
(the closing checkpoint of the newest retired partition; the export files
cover what came before), and `ledger replay --verify` cannot rebuild the
streams that began in a partition that left.";

#[derive(clap::Args)]
#[command(group = ArgGroup::new("action").args(["tablespace", "detach", "drop"]).requires("partition"))]
pub struct EventsArgs {
    /// The partition: its number (its first position over the partition
    /// size), as the list shows it.
    #[arg(long, requires = "action", value_parser = clap::value_parser!(i64).range(0..))]
    partition: Option<i64>,
    /// Move the partition to this tablespace.
    #[arg(long)]
    tablespace: Option<String>,
    /// Take the partition out of events, keeping it as a frozen table.
    #[arg(long)]
    detach: bool,
    /// Drop the partition (attached, or detached before).
    #[arg(long)]
    drop: bool,
}

#[derive(clap::Args)]
pub struct ExportArgs {
    /// The partition: its number, as `ledger archive events` lists it.
    #[arg(long, value_parser = clap::value_parser!(i64).range(0..))]
    partition: i64,
    /// The file to write (never replaced; written as FILE.partial until it verified).
    #[arg(long)]
    output: PathBuf,
}

pub async fn events(config: &Config, args: EventsArgs) -> anyhow::Result<u8> {
    let mut client = ledger::db::connect(&config.database).await?;
    let Some(number) = args.partition else {
        list(&client).await?;
        return Ok(0);
    };
    if let Some(tablespace) = args.tablespace {
        move_partition(&mut client, number, &tablespace).await?;
        return Ok(0);
    }
    let how = if args.drop {
        Action::Dropped
    } else {
        Action::Detached
    };
    let done = retire(&mut client, number, how).await?;
    let (r, x) = (&done.retirement, &done.export);
    println!(
        "{} {} [{}, {}): {} events; export #{} ({}, sha256 {}) of checkpoint {} stands for it",
        r.action.as_str(),
        r.partition_name,
        r.range.0,
        r.range.1,
        r.events,
        x.id,
        x.path,
        to_hex(&x.file_sha256),
        x.checkpoint_id
    );
    if let Some((checkpoint, _)) = verify_from(&client).await? {
        println!(
            "from now on: ledger audit verify --from-checkpoint {checkpoint}; \
             ledger audit verify --file FILE for each export"
        );
    }
    Ok(0)
}

async fn move_partition(
    client: &mut tokio_postgres::Client,
    number: i64,
    tablespace: &str,
) -> anyhow::Result<()> {
    let all = partitions::list(&*client).await?;
    let p = all
        .iter()
        .find(|p| p.number == Some(number))
        .with_context(|| format!("no partition {number} in events"))?;
    let next = partition_moves::next_position(&*client).await?;
    let used = partition_moves::use_of(p.range, next);
    if used != Use::Closed {
        anyhow::bail!(
            "{} is {}: only a closed partition moves (the next position is {next})",
            p.name,
            used.describe()
        );
    }
    if p.tablespace.as_deref() == Some(tablespace) {
        println!("{} is in {tablespace} already", p.name);
        return Ok(());
    }
    partition_moves::check_tablespace(&*client, tablespace).await?;
    eprintln!(
        "moving {} ({}) to {tablespace}: readers of events that name no position range \
         wait until the copy ends",
        p.name,
        HumanBytes(u64::try_from(p.bytes).unwrap_or(0))
    );
    let started = std::time::Instant::now();
    let tx = client.transaction().await?;
    partition_moves::move_to(&tx, p, tablespace).await?;
    tx.commit().await?;
    println!(
        "moved {} to {tablespace} in {:.1} s",
        p.name,
        started.elapsed().as_secs_f64()
    );
    Ok(())
}

async fn list(client: &tokio_postgres::Client) -> anyhow::Result<()> {
    let (listed, retired) = overview(client).await?;
    println!(
        "{:<10} {:<28} {:>12} {:>10} {:<12} state",
        "partition", "range", "rows (est.)", "size", "tablespace"
    );
    for l in &listed {
        println!("{}", listed_line(l));
    }
    for r in &retired {
        println!("{}", retired_line(r));
    }
    if let Some((checkpoint, _)) = verify_from(client).await? {
        println!("audit verify: --from-checkpoint {checkpoint} (partitions left events)");
    }
    Ok(())
}

fn listed_line(l: &Listed) -> String {
    let p = &l.partition;
    let number = p.number.map_or("default".to_owned(), |n| n.to_string());
    let range = p
        .range
        .map_or("-".to_owned(), |(lo, hi)| format!("[{lo}, {hi})"));
    let state = match (&l.export, l.used) {
        (Some(x), _) => format!("{}, {}", use_word(l.used), export_words(x)),
        (None, used) => use_word(used).to_owned(),
    };
    format!(
        "{number:<10} {range:<28} {:>12} {:>10} {:<12} {state}",
        p.estimated_rows,
        HumanBytes(u64::try_from(p.bytes).unwrap_or(0)).to_string(),
        p.tablespace.as_deref().unwrap_or("(default)")
    )
}

fn use_word(used: Use) -> &'static str {
    match used {
        Use::Default => "default",
        Use::Ahead => "ahead",
        Use::Written => "being written",
        Use::Closed => "closed",
    }
}

fn export_words(x: &ExportRecord) -> String {
    format!(
        "export #{} verified {} ({} events, checkpoint {}, {})",
        x.id,
        x.verified_at.format("%Y-%m-%dT%H:%M:%SZ"),
        x.events,
        x.checkpoint_id,
        x.path
    )
}

fn retired_line(r: &Retirement) -> String {
    let range = format!("[{}, {})", r.range.0, r.range.1);
    let state = match r.action {
        Action::Detached => format!("detached (table {} outside events)", r.partition_name),
        Action::Dropped => "dropped".to_owned(),
    };
    format!(
        "{:<10} {range:<28} {:>12} {:>10} {:<12} {state} {}, export #{}",
        r.partition_number,
        r.events,
        "-",
        "-",
        r.retired_at.format("%Y-%m-%dT%H:%M:%SZ"),
        r.export_id
    )
}

pub async fn export_events(config: &Config, args: ExportArgs) -> anyhow::Result<u8> {
    let writing = progress::bar(0, "writing");
    let verifying = progress::bar(0, "verifying");
    let record = export_to_file(
        &config.database,
        args.partition,
        &args.output,
        |stage, n, of| {
            let bar = match stage {
                Stage::Writing => &writing,
                Stage::Verifying => &verifying,
            };
            bar.set_length(of);
            bar.set_position(n);
        },
    )
    .await;
    writing.finish_and_clear();
    verifying.finish_and_clear();
    let x = record?;
    println!(
        "exported partition {} [{}, {}): {} events to checkpoint {} (head {}), \
         {} lines through #{}; verified; {} bytes, sha256 {}; recorded as export #{} ({})",
        x.partition_number,
        x.range.0,
        x.range.1,
        x.events,
        x.checkpoint_id,
        to_hex(&x.checkpoint_head),
        x.last_seq - x.first_seq + 1,
        x.last_seq,
        x.file_bytes,
        to_hex(&x.file_sha256),
        x.id,
        x.path
    );
    Ok(0)
}
