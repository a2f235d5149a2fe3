//! The sealer: gives every committed event its link in the hash chain, in
//! the store's commit-safe order (the relay's order), off the write path.
//! Each batch is sealed in one transaction, so a sealer killed mid-batch
//! resumes exactly from the last committed seal. One sealer is active at a
//! time (a Postgres advisory lock); another stands by.
//!
//! A checkpoint is taken once `every_events` events were sealed since the
//! last stored checkpoint, or once `every` has passed since it whenever the
//! head moved, and on a clean shutdown. Both counts start from the stored
//! checkpoint, not the process: a sealer restarted more often than `every`
//! still checkpoints, and an idle ledger's newest checkpoint covers its
//! last event. Each checkpoint's liability snapshot is built beside the
//! seals (`Snapshotter`).

use std::sync::Arc;
use std::time::{Duration, Instant};

use tokio::sync::Notify;

use ledger::audit::seal::{Head, checkpoint, head, last_checkpoint_age, seal, unsealed};
use ledger::config::Config;
use ledger::queries::liability::build_next_snapshot;

use crate::session::{reconnecting, wait_for_lock};
use crate::shutdown::Shutdown;

/// The sealer's advisory lock.
const LOCK: &str = "sealer";
/// Events read and sealed per transaction.
const BATCH: i64 = 5_000;
const IDLE_POLL: Duration = Duration::from_millis(100);

/// When checkpoints are taken.
#[derive(Clone, Copy, Debug)]
pub struct Checkpoints {
    pub every_events: i64,
    pub every: Duration,
}

impl Checkpoints {
    /// Whether `since` events sealed over `elapsed` call for a checkpoint.
    fn due(&self, since: i64, elapsed: Duration) -> bool {
        since > 0 && (since >= self.every_events || elapsed >= self.every)
    }
}

/// Where the last stored checkpoint stands: its sequence number and when,
/// on this process's clock, it was taken (`None`: none yet, or longer ago
/// than this clock reaches: the interval has passed).
struct LastCheckpoint {
    seq: i64,
    at: Option<Instant>,
}

impl LastCheckpoint {
    async fn load(client: &tokio_postgres::Client) -> anyhow::Result<Self> {
        Ok(match last_checkpoint_age(client).await? {
            Some((seq, age)) => Self {
                seq,
                at: Instant::now().checked_sub(age),
            },
            None => Self { seq: 0, at: None },
        })
    }

    fn due(&self, every: &Checkpoints, head: &Head) -> bool {
        let elapsed = self.at.map_or(Duration::MAX, |at| at.elapsed());
        every.due(head.seq - self.seq, elapsed)
    }
}

pub async fn run(config: Config, every: Checkpoints, mut shutdown: Shutdown) -> anyhow::Result<()> {
    let config = &config;
    reconnecting("sealer", &mut shutdown, |mut shutdown| async move {
        session(config, every, &mut shutdown).await
    })
    .await
}

async fn session(
    config: &Config,
    every: Checkpoints,
    shutdown: &mut Shutdown,
) -> anyhow::Result<()> {
    let mut client = ledger::db::connect(&config.database).await?;
    if !wait_for_lock(&client, LOCK, shutdown).await? {
        return Ok(());
    }
    let mut at = head(&client).await?;
    let mut last = LastCheckpoint::load(&client).await?;
    let snapshots = Snapshotter::spawn(config);
    tracing::info!(seq = at.seq, "sealer active");
    while !shutdown.is_set() {
        let events = unsealed(&client, &at, BATCH).await?;
        if events.is_empty() && !last.due(&every, &at) {
            shutdown.sleep(IDLE_POLL).await;
            continue;
        }
        let tx = client.transaction().await?;
        let next = seal(&tx, &at, &events).await?;
        let due = last.due(&every, &next);
        if due {
            take_checkpoint(&tx, &next).await?;
        }
        tx.commit().await?;
        if due {
            last = LastCheckpoint {
                seq: next.seq,
                at: Some(Instant::now()),
            };
            snapshots.wake.notify_one();
        }
        at = next;
    }
    // A clean stop leaves the latest state checkpointed for finance.
    if at.seq > last.seq {
        let tx = client.transaction().await?;
        take_checkpoint(&tx, &at).await?;
        tx.commit().await?;
    }
    Ok(())
}

async fn take_checkpoint(tx: &tokio_postgres::Transaction<'_>, at: &Head) -> anyhow::Result<()> {
    if let Some(c) = checkpoint(tx, at).await? {
        tracing::info!(%c, "checkpoint");
    }
    Ok(())
}

/// Builds the liability snapshot of each new checkpoint beside the sealing,
/// on a connection of its own, so a snapshot never holds up the seals. It
/// starts with those an earlier run left unbuilt, and stops with the session.
struct Snapshotter {
    wake: Arc<Notify>,
    task: tokio::task::JoinHandle<()>,
}

impl Snapshotter {
    fn spawn(config: &Config) -> Self {
        let wake = Arc::new(Notify::new());
        wake.notify_one();
        let task = tokio::spawn(build_when_woken(
            config.database.clone(),
            config.tz,
            Arc::clone(&wake),
        ));
        Snapshotter { wake, task }
    }
}

impl Drop for Snapshotter {
    fn drop(&mut self) {
        self.task.abort();
    }
}

async fn build_when_woken(database: tokio_postgres::Config, tz: chrono_tz::Tz, wake: Arc<Notify>) {
    let mut client = None;
    loop {
        wake.notified().await;
        if client
            .as_ref()
            .is_none_or(tokio_postgres::Client::is_closed)
        {
            client = ledger::db::connect(&database).await.ok();
        }
        if let Some(client) = client.as_mut() {
            while build_snapshot(client, tz).await {}
        }
    }
}

/// Builds the liability snapshot of the oldest checkpoint without one;
/// whether another may be due. A snapshot that cannot be built is logged
/// and retried at the next checkpoint: reports then start from an older
/// one, slower but exact.
async fn build_snapshot(client: &mut tokio_postgres::Client, tz: chrono_tz::Tz) -> bool {
    let started = Instant::now();
    match build_next_snapshot(client, tz).await {
        Ok(Some(checkpoint)) => {
            let took = started.elapsed();
            tracing::info!(checkpoint, ?took, "liability snapshot");
            true
        }
        Ok(None) => false,
        Err(e) => {
            let error = ledger::logging::chain(&e);
            tracing::warn!(error, "liability snapshot not built");
            false
        }
    }
}
