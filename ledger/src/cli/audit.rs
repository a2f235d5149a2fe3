//! `ledger audit ...`: the hash chain, for finance.

use std::path::{Path, PathBuf};

use anyhow::Context;
use clap::Subcommand;
use ledger::audit::chain::{Hash, parse_hex, to_hex};
use ledger::audit::file_verify::verify_file;
use ledger::audit::retire::verify_from;
use ledger::audit::runs::{self, VerifyRun};
use ledger::audit::seal::{checkpoints, head};
use ledger::audit::verify::{Finding, verify};
use ledger::config::Config;

use super::progress;

#[derive(Subcommand)]
pub enum Command {
    /// Recompute the chain over the log and compare it with the seals, the
    /// checkpoints and, with --expect, a head kept outside the database.
    /// Exit 1 and the first position that differs on any tampering.
    /// With --file, verify an exported partition instead, offline.
    Verify {
        /// Start after this checkpoint (trusting it: compare its line with yours).
        #[arg(long, conflicts_with = "file")]
        from_checkpoint: Option<i64>,
        /// A chain head (64 hex digits) kept outside: it must be in the chain.
        #[arg(long, value_parser = parse_head)]
        expect: Option<Hash>,
        /// An export of `ledger archive export-events`: verified alone, with
        /// no database (exit 1 and its first differing line).
        #[arg(long)]
        file: Option<PathBuf>,
    },
    /// Print every checkpoint, one line each, to keep outside the database.
    Checkpoints,
}

fn parse_head(text: &str) -> Result<Hash, String> {
    parse_hex(text).ok_or_else(|| "expected 64 hex digits (a SHA-256 chain head)".into())
}

/// The exit code: 0 intact, 1 tampered.
pub async fn run(config: &Config, command: Command) -> anyhow::Result<u8> {
    if let Command::Verify {
        file: Some(path),
        expect,
        ..
    } = &command
    {
        return verify_export_file(path, *expect);
    }
    let client = ledger::db::connect(&config.database).await?;
    match command {
        Command::Checkpoints => {
            for c in checkpoints(&client).await? {
                println!("{c}");
            }
            Ok(0)
        }
        Command::Verify {
            from_checkpoint,
            expect,
            ..
        } => {
            // The last seal's seq is the chain's length (and one index read).
            let total = head(&client).await?.seq;
            let bar = progress::bar(u64::try_from(total).unwrap_or(0), "verifying");
            let started_at = chrono::Utc::now();
            let verdict = verify(&config.database, from_checkpoint, expect, |n| {
                bar.set_position(n)
            })
            .await?;
            bar.finish_and_clear();
            let run = VerifyRun {
                started_at,
                finished_at: chrono::Utc::now(),
                from_checkpoint,
                expected_head: expect.is_some(),
                events: verdict.as_ref().map_or(0, |v| v.events),
                head: verdict.as_ref().ok().map(|v| v.head),
                finding: verdict.as_ref().err().map(ToString::to_string),
            };
            runs::record(&client, &run).await?;
            match verdict {
                Ok(v) => {
                    println!(
                        "audit: {} events verified, {} checkpoints, chain intact; head {}",
                        v.events,
                        v.checkpoints,
                        to_hex(&v.head)
                    );
                    Ok(0)
                }
                Err(finding) => {
                    println!("audit: TAMPERED: {finding}");
                    hint_retired(&client, &finding).await?;
                    Ok(1)
                }
            }
        }
    }
}

/// A missing event in a partition that left `events` is no tampering: say
/// where the chain stays whole (docs/design.md §16).
async fn hint_retired(client: &tokio_postgres::Client, finding: &Finding) -> anyhow::Result<()> {
    let Finding::EventMissing { position, .. } = finding else {
        return Ok(());
    };
    let Some((checkpoint, newest)) = verify_from(client).await? else {
        return Ok(());
    };
    if *position < newest.range.1 {
        println!(
            "audit: position {position} lies in a partition that left events after a verified \
             export: verify the store with --from-checkpoint {checkpoint}, and each export \
             with --file"
        );
    }
    Ok(())
}

/// `ledger audit verify --file FILE`: no database is opened.
fn verify_export_file(path: &Path, expect: Option<Hash>) -> anyhow::Result<u8> {
    let file = std::fs::File::open(path).with_context(|| format!("opening {}", path.display()))?;
    let bar = progress::bar(0, "verifying");
    let input = std::io::BufReader::with_capacity(1 << 20, file);
    let verdict = verify_file(input, expect, |n| bar.set_position(n))
        .with_context(|| format!("reading {}", path.display()))?;
    bar.finish_and_clear();
    match verdict {
        Ok(v) => {
            let (h, f) = (&v.header, &v.footer);
            println!(
                "audit: {}: partition {} [{}, {}) of store {}: {} events and {} bridge links \
                 verified, #{}..=#{} unbroken to the checkpoint's head; {}",
                path.display(),
                h.partition,
                h.range.0,
                h.range.1,
                h.store_id,
                f.events,
                f.bridges,
                v.first_seq,
                f.checkpoint.last_seq,
                f.checkpoint
            );
            Ok(0)
        }
        Err(finding) => {
            println!("audit: TAMPERED: {}: {finding}", path.display());
            Ok(1)
        }
    }
}
