//! `ledger audit ...`: the hash chain, for finance.

use clap::Subcommand;
use ledger::audit::chain::{Hash, parse_hex, to_hex};
use ledger::audit::runs::{self, VerifyRun};
use ledger::audit::seal::{checkpoints, head};
use ledger::audit::verify::verify;
use ledger::config::Config;

use super::progress;

#[derive(Subcommand)]
pub enum Command {
    /// Recompute the chain over the log and compare it with the seals, the
    /// checkpoints and, with --expect, a head kept outside the database.
    /// Exit 1 and the first position that differs on any tampering.
    Verify {
        /// Start after this checkpoint (trusting it: compare its line with yours).
        #[arg(long)]
        from_checkpoint: Option<i64>,
        /// A chain head (64 hex digits) kept outside: it must be in the chain.
        #[arg(long, value_parser = parse_head)]
        expect: Option<Hash>,
    },
    /// Print every checkpoint, one line each, to keep outside the database.
    Checkpoints,
}

fn parse_head(text: &str) -> Result<Hash, String> {
    parse_hex(text).ok_or_else(|| "expected 64 hex digits (a SHA-256 chain head)".into())
}

/// The exit code: 0 intact, 1 tampered.
pub async fn run(config: &Config, command: Command) -> anyhow::Result<u8> {
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
                    Ok(1)
                }
            }
        }
    }
}
