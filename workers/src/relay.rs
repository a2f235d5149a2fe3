//! The outbox relay: publishes every committed event, once, to
//! `coupon.events`, in the store's commit-safe order (which keeps each
//! stream in version order), with publisher confirms and `mandatory`.
//!
//! The cursor is saved only after the broker confirmed the batch, so a
//! crash or broker restart re-sends at most one batch (duplicates are
//! allowed on the wire, subscribers dedupe by message id) and never skips
//! an event. One relay is active at a time: it holds a Postgres advisory
//! lock for its session; a second instance waits for it and takes over
//! when the first dies.

use std::time::Duration;

use ledger::config::Config;
use ledger::messaging::{self, message, publish::Publisher, topology};
use ledger::store::{GlobalCursor, read_all};
use tokio_postgres::Client;

use crate::shutdown::{Shutdown, backoff};

/// The relay's name: its cursor row and its advisory lock.
pub use ledger::queries::lag::RELAY;
/// Events read and published per round (bounds memory and re-sends).
pub const BATCH: i64 = 2_000;
const IDLE_POLL: Duration = Duration::from_millis(50);
const LOCK_POLL: Duration = Duration::from_millis(500);

pub async fn run(config: Config, mut shutdown: Shutdown) -> anyhow::Result<()> {
    let mut failures = 0;
    while !shutdown.is_set() {
        match session(&config, &mut shutdown).await {
            Ok(()) => return Ok(()),
            Err(e) => {
                tracing::warn!(
                    error = format!("{e:#}"),
                    "relay session failed; reconnecting"
                );
                failures += 1;
                shutdown.sleep(backoff(failures)).await;
            }
        }
    }
    Ok(())
}

/// One connection to each of Postgres and RabbitMQ, until shutdown or error.
async fn session(config: &Config, shutdown: &mut Shutdown) -> anyhow::Result<()> {
    let client = ledger::db::connect(&config.database).await?;
    if !wait_for_lock(&client, shutdown).await? {
        return Ok(());
    }
    let amqp = messaging::connect(&config.amqp_url, "couponledger-relay").await?;
    let publisher = Publisher::open(&amqp).await?;
    topology::declare(publisher.channel()).await?;
    let mut cursor = load_cursor(&client).await?;
    tracing::info!(?cursor, "relay active");
    while !shutdown.is_set() {
        let events = read_all(&client, cursor, BATCH).await?;
        let Some(last) = events.last() else {
            shutdown.sleep(IDLE_POLL).await;
            continue;
        };
        let messages: Vec<_> = events.iter().map(message::encode).collect();
        publisher
            .publish_all(topology::EVENTS, "", &messages)
            .await?;
        cursor = last.cursor();
        save_cursor(&client, cursor, events.len()).await?;
    }
    Ok(())
}

/// Takes the relay lock, waiting while another relay holds it; false if
/// shutdown came first. The lock lives as long as `client`'s session.
async fn wait_for_lock(client: &Client, shutdown: &mut Shutdown) -> anyhow::Result<bool> {
    let mut waiting = false;
    loop {
        let row = client
            .query_one("SELECT pg_try_advisory_lock(hashtext($1))", &[&RELAY])
            .await?;
        if row.get::<_, bool>(0) {
            return Ok(true);
        }
        if !waiting {
            tracing::info!("another relay is active; standing by");
            waiting = true;
        }
        if shutdown.sleep(LOCK_POLL).await {
            return Ok(false);
        }
    }
}

async fn load_cursor(client: &Client) -> anyhow::Result<GlobalCursor> {
    let row = client
        .query_opt(
            "SELECT tx_id, position FROM relay_cursors WHERE name = $1",
            &[&RELAY],
        )
        .await?;
    Ok(row.map_or(GlobalCursor::START, |r| GlobalCursor {
        tx_id: r.get(0),
        position: r.get(1),
    }))
}

/// Moves the cursor forward (never back: a relay that lost its lock
/// without noticing cannot undo a newer one's progress).
async fn save_cursor(
    client: &Client,
    cursor: GlobalCursor,
    published: usize,
) -> anyhow::Result<()> {
    let published = i64::try_from(published)?;
    client
        .execute(
            "INSERT INTO relay_cursors (name, tx_id, position, published) VALUES ($1, $2, $3, $4)
             ON CONFLICT (name) DO UPDATE
               SET tx_id = EXCLUDED.tx_id, position = EXCLUDED.position,
                   published = relay_cursors.published + EXCLUDED.published, updated_at = now()
             WHERE (relay_cursors.tx_id, relay_cursors.position)
                 < (EXCLUDED.tx_id, EXCLUDED.position)",
            &[&RELAY, &cursor.tx_id, &cursor.position, &published],
        )
        .await?;
    Ok(())
}
