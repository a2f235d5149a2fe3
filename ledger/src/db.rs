//! The Postgres connection pool.

use std::time::Duration;

use deadpool_postgres::{Manager, ManagerConfig, Pool, RecyclingMethod, Runtime};
use tokio_postgres::NoTls;

/// Upper bound on pooled connections: Postgres' default max_connections is 100
/// and the API, workers and tests share it.
pub const DEFAULT_POOL_SIZE: usize = 32;

/// How long a caller waits for a free or new connection before giving up.
const CHECKOUT_TIMEOUT: Duration = Duration::from_secs(10);

/// A pool whose connections are checked (`Verified`) before reuse, so a
/// Postgres restart costs one failed check, not a failed request.
pub fn pool(config: &tokio_postgres::Config, size: usize) -> Pool {
    let manager = Manager::from_config(
        config.clone(),
        NoTls,
        ManagerConfig {
            recycling_method: RecyclingMethod::Verified,
        },
    );
    Pool::builder(manager)
        .max_size(size)
        .runtime(Runtime::Tokio1)
        .wait_timeout(Some(CHECKOUT_TIMEOUT))
        .create_timeout(Some(CHECKOUT_TIMEOUT))
        .build()
        .expect("timeouts are set together with a runtime, so the pool always builds")
}

/// One unpooled connection (migrations, locks held for a session, tests).
pub async fn connect(
    config: &tokio_postgres::Config,
) -> Result<tokio_postgres::Client, tokio_postgres::Error> {
    let (client, connection) = config.connect(NoTls).await?;
    tokio::spawn(async move {
        if let Err(e) = connection.await {
            tracing::debug!(error = %e, "postgres connection closed");
        }
    });
    Ok(client)
}
