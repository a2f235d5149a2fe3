//! `ledger archive [--before T] [--dry-run]` and `ledger archive purge`:
//! ended coupons to cold storage and, later, out of it (docs/design.md
//! §16); the library side is `cold/`.

use std::time::Instant;

use chrono::{DateTime, Utc};
use ledger::cold::{archive, compact, purge as cold_purge};
use ledger::config::Config;
use ledger::domain::liability_report::AsOf;

use super::progress;

pub const AFTER_HELP: &str = "\
Moves the coupons that ended (used, refunded, expired, void) before --before
(default: LEDGER_ARCHIVE_AFTER_DAYS days ago) from coupons to
coupons_archive, oldest first, in batches of one statement each: online (a
claim never waits for it), and safe to stop and run again (a batch moved
whole or not at all). The archiver worker (workers run --only archiver)
does the same every interval. When an archive moved at least as many
coupons as it left, the indexes of coupons are rebuilt concurrently
(online) to give back the space the moved rows held. Wallets show archived coupons with
?include_archived=true; a coupon read by id, a job's report, a template's
history, replay and audit see them wherever they are.";

pub const PURGE_AFTER_HELP: &str = "\
Deletes the rows of archived coupons that ended before --before, for good
(物理删除). Their events stay: a coupon's history, liability as of any
instant, audit verify and replay still see them; replay --verify takes the
latest purge as the horizon before which an ended coupon may have no row.
A refund of an order whose coupons were purged returns no coupon. Without
--confirm it only says what it would delete.";

#[derive(clap::Args)]
pub struct MoveArgs {
    /// Move coupons that ended before this instant: RFC 3339, a business
    /// day (its end in LEDGER_TZ) or `now`. Default: LEDGER_ARCHIVE_AFTER_DAYS ago.
    #[arg(long, value_parser = AsOf::parse)]
    before: Option<AsOf>,
    /// Only count what is due.
    #[arg(long)]
    dry_run: bool,
    /// Coupons per batch (one statement, one commit).
    #[arg(long, default_value_t = archive::DEFAULT_BATCH,
          value_parser = clap::value_parser!(i64).range(1..=archive::MAX_BATCH))]
    batch: i64,
}

#[derive(clap::Args)]
pub struct PurgeArgs {
    /// Delete archived coupons that ended before this instant (not in the future).
    #[arg(long, value_parser = AsOf::parse)]
    before: AsOf,
    /// Really delete.
    #[arg(long)]
    confirm: bool,
}

pub async fn move_due(config: &Config, args: MoveArgs) -> anyhow::Result<u8> {
    let now = Utc::now();
    let before = match args.before {
        Some(at) => at.resolve(config.tz, now).map_err(anyhow::Error::msg)?,
        None => archive::cutoff(now, config.archive_after_days),
    };
    let client = ledger::db::connect(&config.database).await?;
    let due = archive::due(&client, before, archive::COUNT_CAP).await?;
    let at = before.to_rfc3339_opts(chrono::SecondsFormat::Secs, true);
    if args.dry_run {
        println!("{due} ended coupons last changed before {at} are due to move");
        return Ok(0);
    }
    let bar = progress::counted_of(u64::try_from(due).unwrap_or(0), "archiving", "coupons");
    let started = Instant::now();
    let moved = archive::move_all(&client, before, args.batch, |batch| {
        bar.inc(batch);
        true
    })
    .await?;
    bar.finish_and_clear();
    let secs = started.elapsed().as_secs_f64();
    println!(
        "moved {moved} ended coupons (before {at}) to coupons_archive in {secs:.1} s ({})",
        super::rate::per_second(moved as f64 / secs.max(1e-9))
    );
    compact_after(&client, moved).await?;
    Ok(0)
}

/// Rebuilds the hot indexes when the archive emptied most of `coupons`.
async fn compact_after(client: &tokio_postgres::Client, moved: u64) -> anyhow::Result<()> {
    if moved < compact::MIN_MOVED {
        return Ok(());
    }
    let remaining = compact::remaining(client).await?;
    if !compact::worth_rebuilding(moved, remaining) {
        return Ok(());
    }
    let started = Instant::now();
    let rebuilt = compact::rebuild_indexes(client).await?;
    println!(
        "rebuilt {} indexes of coupons ({remaining} rows left) in {:.1} s",
        rebuilt.len(),
        started.elapsed().as_secs_f64()
    );
    Ok(())
}

pub async fn purge(config: &Config, args: PurgeArgs) -> anyhow::Result<u8> {
    let now = Utc::now();
    let before: DateTime<Utc> = args
        .before
        .resolve(config.tz, now)
        .map_err(anyhow::Error::msg)?;
    if before > now {
        anyhow::bail!("--before: {before} is in the future; a purge deletes what already ended");
    }
    let client = ledger::db::connect(&config.database).await?;
    let at = before.to_rfc3339_opts(chrono::SecondsFormat::Secs, true);
    let purgeable = cold_purge::purgeable(&client, before).await?;
    if !args.confirm {
        println!("{purgeable} archived coupons ended before {at}; add --confirm to delete them");
        return Ok(2);
    }
    let bar = progress::counted_of(u64::try_from(purgeable).unwrap_or(0), "purging", "coupons");
    let mut deleted = 0u64;
    loop {
        let batch = cold_purge::delete_batch(&client, before, cold_purge::BATCH).await?;
        deleted += batch;
        bar.inc(batch);
        if batch < cold_purge::BATCH.unsigned_abs() {
            break;
        }
    }
    bar.finish_and_clear();
    let operator = std::env::var("USER").unwrap_or_else(|_| "cli".to_owned());
    let count = i64::try_from(deleted).unwrap_or(i64::MAX);
    cold_purge::record(&client, before, count, &operator).await?;
    println!("purged {deleted} archived coupons ended before {at}; replay's horizon is now {at}");
    Ok(0)
}
