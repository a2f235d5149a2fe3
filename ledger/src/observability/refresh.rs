//! The periodic refresh of the gauges `/metrics` reads from Postgres and
//! RabbitMQ: one loop per source, each pass bounded in time, a failed pass
//! leaving the gauges as they were (the next one tries again).

use std::future::Future;
use std::time::Duration;

/// The longest a pass may take, whatever the interval: a pass that hangs
/// (a pool that has no connection to give, a broker that never answers)
/// is given up and the next one starts on time.
pub const PASS_TIMEOUT: Duration = Duration::from_secs(10);

/// The longest one of the metrics' SQL statements may run.
pub const STATEMENT_TIMEOUT: &str = "SET LOCAL statement_timeout = '5s'";

/// Runs `pass` now and then every `interval` (`LEDGER_METRICS_REFRESH_SECS`),
/// for as long as the server runs.
pub async fn every<F, Fut>(what: &'static str, interval: Duration, mut pass: F)
where
    F: FnMut() -> Fut,
    Fut: Future<Output = anyhow::Result<()>>,
{
    loop {
        match tokio::time::timeout(PASS_TIMEOUT, pass()).await {
            Ok(Ok(())) => {}
            Ok(Err(e)) => tracing::debug!(error = %e, what, "metrics not refreshed"),
            Err(_) => tracing::debug!(what, "metrics refresh timed out"),
        }
        tokio::time::sleep(interval).await;
    }
}

/// A read-only transaction whose statements are bounded by [`STATEMENT_TIMEOUT`].
pub async fn bounded(
    client: &mut deadpool_postgres::Object,
) -> Result<deadpool_postgres::Transaction<'_>, tokio_postgres::Error> {
    let tx = client.build_transaction().read_only(true).start().await?;
    tx.batch_execute(STATEMENT_TIMEOUT).await?;
    Ok(tx)
}
