//! What every long-running worker does around its work: start a session
//! again after it fails, and (for the workers of which one may run at a
//! time) wait for a Postgres advisory lock held for the session.

use std::future::Future;
use std::time::Duration;

use tokio_postgres::Client;

use crate::shutdown::{Shutdown, backoff};

const LOCK_POLL: Duration = Duration::from_millis(500);

/// Runs sessions until one ends cleanly or shutdown: a session that fails
/// (the broker or Postgres went away, a channel error) is started again
/// after a backoff.
pub async fn reconnecting<F, S>(
    worker: &'static str,
    shutdown: &mut Shutdown,
    mut session: S,
) -> anyhow::Result<()>
where
    S: FnMut(Shutdown) -> F,
    F: Future<Output = anyhow::Result<()>>,
{
    let mut failures = 0;
    while !shutdown.is_set() {
        match session(shutdown.clone()).await {
            Ok(()) => return Ok(()),
            Err(e) => {
                let error = ledger::logging::chain(e.as_ref());
                tracing::warn!(worker, error, "session failed; reconnecting");
                failures += 1;
                shutdown.sleep(backoff(failures)).await;
            }
        }
    }
    Ok(())
}

/// Takes the advisory lock `name`, waiting while another process holds
/// it; false if shutdown came first. The lock lives as long as `client`'s
/// session.
pub async fn wait_for_lock(
    client: &Client,
    name: &str,
    shutdown: &mut Shutdown,
) -> anyhow::Result<bool> {
    let mut waiting = false;
    loop {
        let row = client
            .query_one("SELECT pg_try_advisory_lock(hashtext($1))", &[&name])
            .await?;
        if row.get::<_, bool>(0) {
            return Ok(true);
        }
        if !waiting {
            tracing::info!(lock = name, "another process holds the lock; standing by");
            waiting = true;
        }
        if shutdown.sleep(LOCK_POLL).await {
            return Ok(false);
        }
    }
}
