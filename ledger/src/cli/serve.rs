//! `ledger serve`: the HTTP API.

use std::sync::Arc;

use anyhow::Context;
use deadpool_postgres::Pool;
use ledger::api::AppState;
use ledger::api::auth::guess_limit::GuessLimit;
use ledger::api::auth::secret_cache::SecretCache;
use ledger::api::auth::token_limit::TokenLimit;
use ledger::api::auth::tokens::Tokens;
use ledger::commands::channels::{self, SealError};
use ledger::config::Config;
use ledger::config::operators::Operator;
use ledger::messaging::lazy_publisher::LazyPublisher;
use ledger::messaging::store_guard;
use ledger::redis_link::RedisHandle;
use ledger::secret_box::Keyring;
use ledger::store::StoreCell;

#[derive(clap::Args)]
pub struct Args {
    /// Allow missing LEDGER_ADMIN_TOKEN(S) / LEDGER_SERVICE_TOKEN / LEDGER_SECRET_KEY (dev defaults).
    #[arg(long)]
    dev: bool,
}

pub async fn run(config: Config, args: Args) -> anyhow::Result<()> {
    let tokens = tokens(&config, args.dev)?;
    let keys = secret_keys(&config, args.dev)?;
    let pool = ledger::db::pool(&config.database, config.db_pool_size);
    let secrets = Arc::new(SecretCache::new(keys));
    prove_keys(&pool, &secrets, &config.database_url).await?;
    let store = StoreCell::default();
    let guard =
        store_guard::guard_process(&pool, &store, &config.amqp_url, "couponledger-api").await?;
    let redis = RedisHandle::new(&config.redis_url, config.redis_prefix.clone())
        .map_err(anyhow::Error::msg)?;
    let metrics = std::sync::Arc::new(ledger::observability::metrics::Metrics::new());
    let flash = ledger::flash::Flash::new(
        pool.clone(),
        redis.clone(),
        config.tz,
        metrics.flash.clone(),
    );
    let management = ledger::observability::queue_metrics::Management {
        api: ledger::observability::queue_metrics::ManagementApi::new(
            &config.amqp_url,
            config.rabbitmq_management_url.as_deref(),
        )
        .map_err(|e| anyhow::anyhow!("AMQP_URL: {e}"))?,
        http: ledger::observability::queue_metrics::client(),
    };
    let reads = match &config.database_replica {
        Some(replica) => {
            let replica =
                ledger::db::replica_pool(replica, ledger::db::read_pool::REPLICA_POOL_SIZE);
            ledger::db::read_pool::ReadPool::with_replica(
                pool.clone(),
                replica,
                config.replica_max_lag,
            )
        }
        None => ledger::db::read_pool::ReadPool::primary_only(pool.clone()),
    };
    let state = AppState::new(ledger::api::Shared {
        pool,
        reads,
        redis: redis.clone(),
        tokens,
        keys: Default::default(),
        key_limit: Default::default(),
        oidc: config.oidc.clone().map(|c| {
            let http = reqwest::Client::builder().redirect(reqwest::redirect::Policy::none());
            let http = http
                .build()
                .expect("an HTTP client without TLS options builds");
            ledger::api::auth::oidc::Oidc::new(c, http)
        }),
        metrics_token: config
            .metrics_token
            .as_deref()
            .map(ledger::commands::api_keys::digest),
        tz: config.tz,
        amqp_url: config.amqp_url.clone(),
        metrics,
        secrets,
        auth_limit: Default::default(),
        code_batches: Default::default(),
        guess_limit: Arc::new(GuessLimit::shared(redis.clone())),
        token_limit: Arc::new(TokenLimit::shared(redis.clone())),
        chunks: Arc::new(LazyPublisher::new(
            &config.amqp_url,
            "couponledger-api",
            store,
        )),
        upload_max_bytes: config.upload_max_bytes,
        upload_idle: config.upload_idle,
        flash: flash.clone(),
        management,
        webhooks: ledger::api::routes::webhooks::WebhookSettings {
            allow_private: config.webhook_allow_private,
            retry_hours: i32::try_from(config.webhook_retry_hours).expect("1 to 168"),
        },
    });
    let listener = tokio::net::TcpListener::bind(config.listen)
        .await
        .with_context(|| format!("LEDGER_LISTEN: cannot listen on {}", config.listen))?;
    declare_topology_first(config.amqp_url.clone()).await;
    spawn_metrics_refresh(&state, &config);
    tokio::spawn(ledger::flash::reconcile::run_forever(
        flash,
        config.flash_reconcile,
    ));
    tracing::info!(listen = %config.listen, "serving the API");
    tokio::select! {
        served = ledger::api::serve(listener, state) => served?,
        lost = guard => return Err(lost.into()),
    }
    Ok(())
}

/// The loops that keep `/metrics`' gauges fresh, one per source.
fn spawn_metrics_refresh(state: &AppState, config: &Config) {
    use ledger::observability::refresh;
    let every = config.metrics_refresh;
    let (metrics, pool) = (state.metrics.clone(), state.pool.clone());
    let (m, p) = (metrics.clone(), pool.clone());
    tokio::spawn(refresh::every("issuance", every, move || {
        let (m, p) = (m.clone(), p.clone());
        async move { m.issuance.refresh(&p).await }
    }));
    let (m, p) = (metrics.clone(), pool.clone());
    tokio::spawn(refresh::every("lag", every, move || {
        let (m, p) = (m.clone(), p.clone());
        async move { m.lag.refresh(&p).await }
    }));
    let (m, p) = (metrics.clone(), pool.clone());
    tokio::spawn(refresh::every("pipeline", every, move || {
        let (m, p) = (m.clone(), p.clone());
        async move { m.pipeline.refresh(&p).await }
    }));
    let (m, p) = (metrics.clone(), pool.clone());
    tokio::spawn(refresh::every("reminders", every, move || {
        let (m, p) = (m.clone(), p.clone());
        async move { m.reminders.refresh(&p).await }
    }));
    let (m, p) = (metrics.clone(), pool.clone());
    tokio::spawn(refresh::every("webhooks", every, move || {
        let (m, p) = (m.clone(), p.clone());
        async move { m.webhooks.refresh(&p).await }
    }));
    let (m, p) = (metrics.clone(), pool.clone());
    tokio::spawn(refresh::every("sealer", every, move || {
        let (m, p) = (m.clone(), p.clone());
        async move { m.sealer.refresh(&p).await }
    }));
    let (m, p) = (metrics.clone(), pool.clone());
    tokio::spawn(refresh::every("event partitions", every, move || {
        let (m, p) = (m.clone(), p.clone());
        async move { m.store.refresh(&p).await }
    }));
    let (m, p, days) = (metrics.clone(), pool, config.archive_after_days);
    tokio::spawn(refresh::every("cold coupons", every, move || {
        let (m, p) = (m.clone(), p.clone());
        async move { m.cold.refresh(&p, days).await }
    }));
    let s = state.clone();
    tokio::spawn(refresh::every("cluster", every, move || {
        let s = s.clone();
        async move {
            let m = &s.metrics.cluster;
            m.refresh(&s.pool, &s.reads, &s.management, &s.redis).await
        }
    }));
    let m = state.management.clone();
    tokio::spawn(refresh::every("queues", every, move || {
        let (metrics, m) = (metrics.clone(), m.clone());
        async move { metrics.queues.refresh(&m.http, &m.api).await }
    }));
}

/// How long serving waits for the first declaration of the topology: a
/// RabbitMQ that answers does so in milliseconds; one that does not must
/// not hold the API back (docs/design.md §5).
const TOPOLOGY_FIRST_TRY: std::time::Duration = std::time::Duration::from_secs(5);

/// Declares the contract topology before the first request is served, so
/// that a publish right after start (an upload's chunks, a package job)
/// finds its exchanges; if RabbitMQ does not answer within
/// [`TOPOLOGY_FIRST_TRY`], the API serves meanwhile and the declaration is
/// retried in the background.
async fn declare_topology_first(amqp_url: String) {
    let first = tokio::time::timeout(TOPOLOGY_FIRST_TRY, declare_once(&amqp_url)).await;
    if !matches!(first, Ok(Ok(()))) {
        tokio::spawn(declare_topology(amqp_url));
    }
}

async fn declare_once(amqp_url: &str) -> Result<(), lapin::Error> {
    let connection = ledger::messaging::connect(amqp_url, "couponledger-api").await?;
    let channel = connection.create_channel().await?;
    ledger::messaging::topology::declare(&channel).await?;
    connection.close(200, "declared".into()).await
}

/// Declares the contract topology, retrying until RabbitMQ answers: the API
/// serves meanwhile (readiness reports RabbitMQ while it is down).
async fn declare_topology(amqp_url: String) {
    for attempt in 0..u32::MAX {
        match declare_once(&amqp_url).await {
            Ok(()) => return,
            Err(e) => {
                // The error may quote the URL: its password stays out of the log.
                let error = ledger::logging::redact::scrub(&e.to_string(), [amqp_url.as_str()]);
                tracing::warn!(error, attempt, "cannot declare the RabbitMQ topology yet")
            }
        }
        tokio::time::sleep(std::time::Duration::from_secs(2u64.pow(attempt.min(4)))).await;
    }
}

/// The bearer tokens; `serve` refuses to start without an operator and the
/// service token unless `--dev`.
fn tokens(config: &Config, dev: bool) -> anyhow::Result<Tokens> {
    let dev_default = |var: &str, value: &str| {
        tracing::warn!("{var} not set: using the --dev default {value:?}");
        value.to_owned()
    };
    let service = match &config.service_token {
        Some(v) => v.clone(),
        None if dev => dev_default("LEDGER_SERVICE_TOKEN", "dev-service-token"),
        None => anyhow::bail!("LEDGER_SERVICE_TOKEN is required (or run with --dev)"),
    };
    let mut operators = config.operators.clone();
    // With single sign-on, operators may all sign in through it.
    if operators.is_empty() && config.oidc.is_none() {
        if !dev {
            anyhow::bail!(
                "LEDGER_ADMIN_TOKEN (or LEDGER_ADMIN_TOKENS) is required (or run with --dev)"
            );
        }
        operators.push(Operator {
            name: ledger::config::operators::SINGLE_NAME.into(),
            token: dev_default("LEDGER_ADMIN_TOKEN", "dev-admin-token"),
            role: ledger::domain::role::Role::Admin,
            shops: Vec::new(),
        });
    }
    let names: Vec<&str> = operators.iter().map(|o| o.name.as_str()).collect();
    tracing::info!(operators = ?names, "admin operators");
    Ok(Tokens::new(&operators, &service))
}

/// The channel-secret keys; `serve` refuses to start without them unless `--dev`.
fn secret_keys(config: &Config, dev: bool) -> anyhow::Result<Keyring> {
    match &config.secret_keys {
        Some(keys) => Ok(keys.clone()),
        None if dev => {
            tracing::warn!("LEDGER_SECRET_KEY not set: using the fixed --dev key");
            Ok(Keyring::dev())
        }
        None => anyhow::bail!("LEDGER_SECRET_KEY is required (or run with --dev)"),
    }
}

/// Seals leftover plaintext channel secrets and proves the keys open every
/// stored one. A wrong key stops `serve` here, before it listens. If
/// Postgres is down, `serve` starts anyway (readiness reports it) and a
/// task retries; signed requests answer 503 until the keys are proven, and
/// a wrong key found then still ends the process, never 500s.
async fn prove_keys(
    pool: &Pool,
    secrets: &Arc<SecretCache>,
    database_url: &str,
) -> anyhow::Result<()> {
    match seal_channel_secrets(pool, secrets).await {
        Ok(()) => Ok(()),
        Err(Sealing::Fatal(e)) => Err(e),
        Err(Sealing::Unreachable(e)) => {
            let error =
                ledger::logging::redact::scrub(&ledger::logging::chain(e.as_ref()), [database_url]);
            tracing::warn!(error, "cannot check the channel-secret keys yet; retrying");
            tokio::spawn(retry_prove_keys(pool.clone(), secrets.clone()));
            Ok(())
        }
    }
}

async fn retry_prove_keys(pool: Pool, secrets: Arc<SecretCache>) {
    for attempt in 0..u32::MAX {
        tokio::time::sleep(std::time::Duration::from_secs(2u64.pow(attempt.min(4)))).await;
        match seal_channel_secrets(&pool, &secrets).await {
            Ok(()) => return,
            Err(Sealing::Fatal(e)) => {
                eprintln!("Error: {e}");
                std::process::exit(1);
            }
            Err(Sealing::Unreachable(_)) => {}
        }
    }
}

/// Why the keys could not be proven: fatal, or Postgres is unreachable.
enum Sealing {
    Fatal(anyhow::Error),
    Unreachable(anyhow::Error),
}

async fn seal_channel_secrets(pool: &Pool, secrets: &SecretCache) -> Result<(), Sealing> {
    let unreachable = |e: anyhow::Error| Sealing::Unreachable(e);
    let mut client = pool.get().await.map_err(|e| unreachable(e.into()))?;
    let tx = client
        .transaction()
        .await
        .map_err(|e| unreachable(e.into()))?;
    let keys = secrets.keys();
    let sealing = async {
        let channels = channels::seal_all(&tx, keys).await?;
        Ok(channels + ledger::commands::webhooks::seal_all(&tx, keys).await?)
    };
    let resealed = sealing.await.map_err(|e: SealError| match e {
        SealError::Open { .. } | SealError::OpenWebhook { .. } => Sealing::Fatal(anyhow::anyhow!(
            "LEDGER_SECRET_KEY: the configured key(s) cannot open the stored channel or webhook secrets \
             ({e}); set the key they were sealed with (an older one in LEDGER_SECRET_KEYS_OLD)"
        )),
        SealError::Db(e) if ledger::db::connection_lost(&e) => unreachable(e.into()),
        // E.g. V6 not applied: retrying cannot help, so `serve` stops.
        SealError::Db(e) => Sealing::Fatal(
            anyhow::Error::new(e).context("reading channel_secrets (is `ledger migrate` done?)"),
        ),
    })?;
    tx.commit().await.map_err(|e| unreachable(e.into()))?;
    if resealed > 0 {
        tracing::info!(
            resealed,
            key_id = keys.current_id(),
            "sealed channel secrets"
        );
    }
    secrets.mark_proven();
    Ok(())
}
