//! The sealer: gives every committed event its link in the hash chain, in
//! the store's commit-safe order (the relay's order), off the write path.
//! Each batch is sealed in one transaction, so a sealer killed mid-batch
//! resumes exactly from the last committed seal. One sealer is active at a
//! time (a Postgres advisory lock); another stands by. Checkpoints every
//! `every_events` events or `every` time, whichever comes first.

use std::time::{Duration, Instant};

use ledger::audit::seal::{checkpoint, head, seal, unsealed};
use ledger::config::Config;
use tokio_postgres::Client;

use crate::shutdown::{Shutdown, backoff};

/// The sealer's advisory lock.
const LOCK: &str = "sealer";
/// Events read and sealed per transaction.
const BATCH: i64 = 5_000;
const IDLE_POLL: Duration = Duration::from_millis(100);
const LOCK_POLL: Duration = Duration::from_millis(500);

/// When checkpoints are taken.
#[derive(Clone, Copy, Debug)]
pub struct Checkpoints {
    pub every_events: i64,
    pub every: Duration,
}

pub async fn run(config: Config, every: Checkpoints, mut shutdown: Shutdown) -> anyhow::Result<()> {
    let mut failures = 0;
    while !shutdown.is_set() {
        match session(&config, every, &mut shutdown).await {
            Ok(()) => return Ok(()),
            Err(e) => {
                tracing::warn!(
                    error = format!("{e:#}"),
                    "sealer session failed; reconnecting"
                );
                failures += 1;
                shutdown.sleep(backoff(failures)).await;
            }
        }
    }
    Ok(())
}

async fn session(
    config: &Config,
    every: Checkpoints,
    shutdown: &mut Shutdown,
) -> anyhow::Result<()> {
    let mut client = ledger::db::connect(&config.database).await?;
    if !wait_for_lock(&client, shutdown).await? {
        return Ok(());
    }
    let mut at = head(&client).await?;
    let (mut since_checkpoint, mut last_checkpoint) = (0, Instant::now());
    tracing::info!(seq = at.seq, "sealer active");
    while !shutdown.is_set() {
        let events = unsealed(&client, &at, BATCH).await?;
        let due = since_checkpoint >= every.every_events
            || (since_checkpoint > 0 && last_checkpoint.elapsed() >= every.every);
        if events.is_empty() && !due {
            shutdown.sleep(IDLE_POLL).await;
            continue;
        }
        let tx = client.transaction().await?;
        let next = seal(&tx, &at, &events).await?;
        since_checkpoint += next.seq - at.seq;
        if since_checkpoint >= every.every_events || last_checkpoint.elapsed() >= every.every {
            if let Some(c) = checkpoint(&tx, &next).await? {
                tracing::info!(%c, "checkpoint");
            }
            (since_checkpoint, last_checkpoint) = (0, Instant::now());
        }
        tx.commit().await?;
        at = next;
    }
    Ok(())
}

async fn wait_for_lock(client: &Client, shutdown: &mut Shutdown) -> anyhow::Result<bool> {
    loop {
        let row = client
            .query_one("SELECT pg_try_advisory_lock(hashtext($1))", &[&LOCK])
            .await?;
        if row.get::<_, bool>(0) {
            return Ok(true);
        }
        if shutdown.sleep(LOCK_POLL).await {
            return Ok(false);
        }
    }
}
