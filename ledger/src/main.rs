//! The `ledger` binary: migrate, serve, admin and finance commands.

use anyhow::Context;
use clap::{Parser, Subcommand};
use ledger::config::Config;

#[derive(Parser)]
#[command(
    name = "ledger",
    version,
    about = "couponledger: event-sourced coupon ledger"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Create the database when missing and apply migrations (safe to repeat).
    Migrate,
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    init_tracing();
    let cli = Cli::parse();
    let config = Config::from_env()?;
    match cli.command {
        Command::Migrate => migrate(&config).await,
    }
}

async fn migrate(config: &Config) -> anyhow::Result<()> {
    let report = ledger::migrate::migrate(&config.database)
        .await
        .context("ledger migrate")?;
    let db = config.database.get_dbname().unwrap_or_default();
    if report.created_database {
        println!("created database {db}");
    }
    if report.applied.is_empty() {
        println!("database {db} is up to date");
    }
    for m in &report.applied {
        println!("applied {m}");
    }
    Ok(())
}

fn init_tracing() {
    tracing_subscriber::fmt()
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_default_env().unwrap_or_else(|_| "info".into()),
        )
        .with_writer(std::io::stderr)
        .init();
}
