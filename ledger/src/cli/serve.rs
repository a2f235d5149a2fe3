//! `ledger serve`: the HTTP API.

use anyhow::Context;
use ledger::api::AppState;
use ledger::api::auth::Tokens;
use ledger::config::Config;
use ledger::messaging::lazy_publisher::LazyPublisher;
use ledger::redis_handle::RedisHandle;

#[derive(clap::Args)]
pub struct Args {
    /// Allow missing LEDGER_ADMIN_TOKEN / LEDGER_SERVICE_TOKEN (dev defaults).
    #[arg(long)]
    dev: bool,
}

pub async fn run(config: Config, args: Args) -> anyhow::Result<()> {
    let tokens = tokens(&config, args.dev)?;
    let state = AppState {
        pool: ledger::db::pool(&config.database, ledger::db::DEFAULT_POOL_SIZE),
        redis: RedisHandle::new(&config.redis_url, config.redis_prefix.clone())?,
        tokens,
        tz: config.tz,
        amqp_url: config.amqp_url.clone(),
        metrics: Default::default(),
        chunks: std::sync::Arc::new(LazyPublisher::new(&config.amqp_url, "couponledger-api")),
        upload_max_bytes: config.upload_max_bytes,
    };
    let listener = tokio::net::TcpListener::bind(config.listen)
        .await
        .with_context(|| format!("LEDGER_LISTEN: cannot listen on {}", config.listen))?;
    tokio::spawn(declare_topology(config.amqp_url.clone()));
    let issuance = ledger::api::issuance_metrics::refresh_forever(
        state.metrics.issuance.clone(),
        state.pool.clone(),
    );
    tokio::spawn(issuance);
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
                // The error may quote the URL: its password stays out of the log.
                let error = ledger::redact::scrub(&e.to_string(), [amqp_url.as_str()]);
                tracing::warn!(error, attempt, "cannot declare the RabbitMQ topology yet")
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
