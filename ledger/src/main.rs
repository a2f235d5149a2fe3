//! The `ledger` binary: migrate, serve, admin and finance commands.

use anyhow::Context;
use clap::{Parser, Subcommand};
use ledger::api::AppState;
use ledger::api::auth::Tokens;
use ledger::config::Config;
use ledger::redis_handle::RedisHandle;

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
    /// Serve the HTTP API on LEDGER_LISTEN.
    Serve {
        /// Allow missing LEDGER_ADMIN_TOKEN / LEDGER_SERVICE_TOKEN (dev defaults).
        #[arg(long)]
        dev: bool,
    },
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    init_tracing();
    let cli = Cli::parse();
    let config = Config::from_env()?;
    match cli.command {
        Command::Migrate => migrate(&config).await,
        Command::Serve { dev } => serve(config, dev).await,
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

async fn serve(config: Config, dev: bool) -> anyhow::Result<()> {
    let tokens = tokens(&config, dev)?;
    let state = AppState {
        pool: ledger::db::pool(&config.database, ledger::db::DEFAULT_POOL_SIZE),
        redis: RedisHandle::new(&config.redis_url, config.redis_prefix.clone())?,
        tokens,
        tz: config.tz,
        amqp_url: config.amqp_url.clone(),
        metrics: Default::default(),
    };
    let listener = tokio::net::TcpListener::bind(config.listen)
        .await
        .with_context(|| format!("LEDGER_LISTEN: cannot listen on {}", config.listen))?;
    tracing::info!(listen = %config.listen, "serving the API");
    ledger::api::serve(listener, state).await?;
    Ok(())
}

/// The bearer tokens; `serve` refuses to start without them unless `--dev`.
fn tokens(config: &Config, dev: bool) -> anyhow::Result<Tokens> {
    let pick = |value: &Option<String>, var: &str, dev_default: &str| match value {
        Some(v) => Ok(v.clone()),
        None if dev => {
            tracing::warn!("{var} not set: using the --dev default {dev_default:?}");
            Ok(dev_default.to_owned())
        }
        None => anyhow::bail!("{var} is required (or run with --dev)"),
    };
    Ok(Tokens {
        admin: pick(&config.admin_token, "LEDGER_ADMIN_TOKEN", "dev-admin-token")?,
        service: pick(
            &config.service_token,
            "LEDGER_SERVICE_TOKEN",
            "dev-service-token",
        )?,
    })
}

fn init_tracing() {
    tracing_subscriber::fmt()
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_default_env().unwrap_or_else(|_| "info".into()),
        )
        .with_writer(std::io::stderr)
        .init();
}
