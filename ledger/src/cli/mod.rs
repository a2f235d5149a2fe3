//! The `ledger` subcommands, one module each; this one holds the clap types
//! and the dispatch. A new subcommand is one more file and one more arm.

mod archive;
mod archive_coupons;
mod archive_events;
mod audit;
mod codes;
mod events;
mod export;
mod issue;
mod migrate;
mod progress;
mod rate;
mod replay;
mod report;
mod schemas;
mod serve;

use clap::{Parser, Subcommand};
use ledger::config::Config;

#[derive(Parser)]
#[command(
    name = "ledger",
    version,
    about = "couponledger: event-sourced coupon ledger",
    after_help = ledger::config::reference::help()
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
    /// On failure, print the error's whole report (with the backtrace
    /// when RUST_BACKTRACE=1) instead of one line.
    #[arg(long, global = true)]
    pub verbose: bool,
}

#[derive(Subcommand)]
pub enum Command {
    /// Create the database when missing and apply migrations (safe to repeat).
    Migrate,
    /// Serve the HTTP API on LEDGER_LISTEN.
    Serve(serve::Args),
    /// Rebuild every projection and write-model table from `events` and
    /// compare them with the live tables (verification is the only mode).
    #[command(after_help = replay::AFTER_HELP)]
    Replay(replay::Args),
    /// Event log commands.
    Events {
        #[command(subcommand)]
        command: events::Command,
    },
    /// Tamper evidence: verify the hash chain, print its checkpoints.
    Audit {
        #[command(subcommand)]
        command: audit::Command,
    },
    /// Finance reports from the events alone.
    Report {
        #[command(subcommand)]
        command: report::Command,
    },
    /// Write the JSON Schemas of every event message into a directory.
    Schemas(schemas::Args),
    /// Bulk issuance: upload a file of user ids for a template and follow
    /// the job until it ends (a client of the HTTP API).
    Issue(issue::Args),
    /// Redemption codes: export a batch's codes.
    Codes {
        #[command(subcommand)]
        command: codes::Command,
    },
    /// Storage over years: ended coupons to cold storage (and purged), the
    /// event store's partitions (list, move to another tablespace, export
    /// and verify, detach or drop).
    Archive(archive::Args),
}

impl Command {
    /// The server serves many requests at once; the other commands are one
    /// stream of work, faster on one thread (no hand-offs between threads).
    pub fn runtime(&self) -> std::io::Result<tokio::runtime::Runtime> {
        match self {
            Command::Serve(_) => tokio::runtime::Builder::new_multi_thread(),
            _ => tokio::runtime::Builder::new_current_thread(),
        }
        .enable_all()
        .build()
    }

    /// Runs the subcommand; `Ok` carries the process' exit code.
    pub async fn run(self, config: Config) -> anyhow::Result<u8> {
        match self {
            Command::Migrate => migrate::run(&config).await.map(|()| 0),
            Command::Serve(args) => serve::run(config, args).await.map(|()| 0),
            Command::Replay(args) => replay::run(&config, args).await,
            Command::Events { command } => events::run(&config, command).await,
            Command::Audit { command } => audit::run(&config, command).await,
            Command::Report { command } => report::run(&config, command).await.map(|()| 0),
            Command::Schemas(args) => schemas::run(&args).map(|()| 0),
            Command::Issue(args) => issue::run(&config, args).await,
            Command::Codes { command } => codes::run(&config, command).await,
            Command::Archive(args) => archive::run(&config, args).await,
        }
    }
}
