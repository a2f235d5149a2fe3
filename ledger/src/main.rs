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
    /// Rebuild every projection and write-model table from `events` and compare.
    Replay {
        /// Compare with the live tables; print differences; exit 1 on any.
        #[arg(long)]
        verify: bool,
    },
    /// Event log commands.
    Events {
        #[command(subcommand)]
        command: EventsCommand,
    },
    /// Write the JSON Schemas of every event message into a directory.
    Schemas {
        #[arg(long, default_value = "schemas")]
        write: std::path::PathBuf,
    },
}

#[derive(Subcommand)]
enum EventsCommand {
    /// Backfill a subscriber's queue with the stored events from a position on.
    Publish {
        #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(i64).range(1..))]
        from_position: i64,
        /// The queue (it must exist).
        #[arg(long)]
        queue: String,
    },
}

fn main() -> anyhow::Result<()> {
    init_tracing();
    let cli = Cli::parse();
    let config = Config::from_env()?;
    // The server serves many requests at once; the other commands are one
    // stream of work, faster on one thread (no hand-offs between threads).
    let runtime = match cli.command {
        Command::Serve { .. } => tokio::runtime::Builder::new_multi_thread(),
        _ => tokio::runtime::Builder::new_current_thread(),
    }
    .enable_all()
    .build()?;
    runtime.block_on(run(cli, config))
}

async fn run(cli: Cli, config: Config) -> anyhow::Result<()> {
    match cli.command {
        Command::Migrate => migrate(&config).await,
        Command::Serve { dev } => serve(config, dev).await,
        Command::Replay { verify } => replay(&config, verify).await,
        Command::Events {
            command:
                EventsCommand::Publish {
                    from_position,
                    queue,
                },
        } => publish(&config, from_position, &queue).await,
        Command::Schemas { write } => schemas(&write),
    }
}

async fn replay(config: &Config, verify: bool) -> anyhow::Result<()> {
    anyhow::ensure!(verify, "only `ledger replay --verify` is supported");
    let client = ledger::db::connect(&config.database).await?;
    let estimate = ledger::replay::estimated_rows(&client, "events").await?;
    drop(client);
    let bar = progress_bar(estimate, "replaying");
    let report = ledger::replay::verify(&config.database, |n| bar.set_position(n)).await?;
    bar.finish_and_clear();
    let differences = &report.differences;
    for d in &differences.listed {
        println!("{d}");
    }
    if differences.unlisted > 0 {
        println!("... and {} more differences", differences.unlisted);
    }
    let rate = |d: std::time::Duration| report.events as f64 / d.as_secs_f64().max(1e-9);
    let total = report.fold + report.compare;
    println!(
        "replayed {} events in {:.2} s ({:.0} events/s; folded in {:.2} s, {:.0} events/s; \
         counted and compared in {:.2} s): {} differences",
        report.events,
        total.as_secs_f64(),
        rate(total),
        report.fold.as_secs_f64(),
        rate(report.fold),
        report.compare.as_secs_f64(),
        differences.len()
    );
    if !differences.is_empty() {
        std::process::exit(1);
    }
    Ok(())
}

async fn publish(config: &Config, from_position: i64, queue: &str) -> anyhow::Result<()> {
    let client = ledger::db::connect(&config.database).await?;
    let amqp = ledger::messaging::connect(&config.amqp_url, "couponledger-backfill").await?;
    let publisher = ledger::messaging::publish::Publisher::open(&amqp).await?;
    let bar = progress_bar(0, "publishing");
    let sent =
        ledger::messaging::backfill::backfill(&client, &publisher, queue, from_position, |n| {
            bar.set_position(n)
        })
        .await?;
    bar.finish_and_clear();
    println!("published {sent} events to {queue} from position {from_position}");
    Ok(())
}

fn schemas(dir: &std::path::Path) -> anyhow::Result<()> {
    std::fs::create_dir_all(dir)?;
    for (file, schema) in ledger::messaging::schemas::all() {
        let text = ledger::messaging::schemas::file_contents(&schema);
        std::fs::write(dir.join(&file), text).with_context(|| format!("writing {file}"))?;
    }
    println!("wrote the schemas to {}", dir.display());
    Ok(())
}

/// A progress bar on stderr (hidden when stderr is not a terminal).
fn progress_bar(total: u64, what: &str) -> indicatif::ProgressBar {
    let bar = if total > 0 {
        indicatif::ProgressBar::new(total)
    } else {
        indicatif::ProgressBar::no_length()
    };
    let style = indicatif::ProgressStyle::with_template(
        "{msg} {wide_bar} {pos}/{len} events ({per_sec}, eta {eta})",
    )
    .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar());
    bar.set_style(style);
    bar.set_message(what.to_owned());
    bar
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
    tokio::spawn(declare_topology(config.amqp_url.clone()));
    tracing::info!(listen = %config.listen, "serving the API");
    ledger::api::serve(listener, state).await?;
    Ok(())
}

/// Declares the contract topology, retrying until RabbitMQ answers: the API
/// serves meanwhile (readiness reports RabbitMQ while it is down).
async fn declare_topology(amqp_url: String) {
    for attempt in 0..u32::MAX {
        let declared = async {
            let connection = ledger::messaging::connect(&amqp_url, "couponledger-api").await?;
            let channel = connection.create_channel().await?;
            ledger::messaging::topology::declare(&channel).await?;
            connection.close(200, "declared".into()).await
        };
        match declared.await {
            Ok(()) => return,
            Err(e) => {
                tracing::warn!(error = %e, attempt, "cannot declare the RabbitMQ topology yet")
            }
        }
        tokio::time::sleep(std::time::Duration::from_secs(2u64.pow(attempt.min(4)))).await;
    }
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
