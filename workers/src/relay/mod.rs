//! The outbox relay: publishes every committed event, in the store's
//! commit-safe order (which keeps each stream in version order), with
//! publisher confirms and `mandatory`, along each of its routes
//! (`messaging::routes`): the ledger's own queues directly, in runs of
//! consecutive events, outsiders through `coupon.events`, one message per
//! event. Each route keeps its own cursor, so a full
//! queue holds back only its own route, and only what it refused is sent
//! again (docs/event-pipeline.md).
//!
//! A route's cursor is saved only after the broker took its batch, so a
//! crash or broker restart re-sends at most one batch per route
//! (duplicates are allowed on the wire, subscribers dedupe by message id)
//! and never skips an event. One relay is active at a time: it holds a
//! Postgres advisory lock for its session; a second instance waits for it
//! and takes over when the first dies.

mod batches;
mod send;

use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::Context;
use ledger::config::Config;
use ledger::messaging::routes::{self, PUBLIC, ROUTES, Route};
use ledger::messaging::{self, publish::Publisher, topology};
use ledger::store::{GlobalCursor, StoreCell, StoreId};
use tokio_postgres::Client;

use self::batches::SharedBatches;
use crate::session::{reconnecting, wait_for_lock};
use crate::shutdown::Shutdown;

/// The relay's advisory lock (named after its first route, as before routes).
const LOCK: &str = "coupon.events";
const IDLE_POLL: Duration = Duration::from_millis(50);

pub async fn run(config: Config, store: StoreCell, mut shutdown: Shutdown) -> anyhow::Result<()> {
    let (config, store) = (&config, &store);
    reconnecting("relay", &mut shutdown, |mut shutdown| async move {
        session(config, store.require()?, &mut shutdown).await
    })
    .await
}

/// One connection to each of Postgres and RabbitMQ, shared by the routes
/// (one channel each), until shutdown or the first error: the lock lives
/// with the Postgres session, so a route cannot outlive it.
async fn session(config: &Config, store: StoreId, shutdown: &mut Shutdown) -> anyhow::Result<()> {
    let client = ledger::db::connect(&config.database).await?;
    if !wait_for_lock(&client, LOCK, shutdown).await? {
        return Ok(());
    }
    let client = Arc::new(client);
    let amqp = messaging::connect(&config.amqp_url, "couponledger-relay").await?;
    topology::declare(&amqp.create_channel().await?).await?;
    start_new_routes(&client).await?;
    let batches = Arc::new(SharedBatches::new(client.clone(), store));
    let mut routes = tokio::task::JoinSet::new();
    for route in ROUTES {
        let publisher = Publisher::open(&amqp, store).await?;
        let (client, batches) = (client.clone(), batches.clone());
        routes.spawn(route_loop(
            client,
            batches,
            route,
            publisher,
            shutdown.clone(),
        ));
    }
    tracing::info!(routes = ?routes::names(), "relay active");
    while let Some(done) = routes.join_next().await {
        // The first route to fail ends the session (and aborts the others).
        done.context("a relay route panicked")??;
    }
    Ok(())
}

/// Publishes along `route` from its cursor on, until shutdown or error.
async fn route_loop(
    client: Arc<Client>,
    batches: Arc<SharedBatches>,
    route: Route,
    publisher: Publisher,
    mut shutdown: Shutdown,
) -> anyhow::Result<()> {
    let mut cursor = load_cursor(&client, route.name).await?;
    tracing::debug!(route = route.name, ?cursor, "route resumes");
    let mut unroutable = UnroutableSummary::new(route.name);
    let mut probe = send::probes_at_start(&route);
    while !shutdown.is_set() {
        let Some(batch) = batches.after(cursor).await? else {
            unroutable.maybe_log();
            shutdown.sleep(IDLE_POLL).await;
            continue;
        };
        let messages = batch.packed(route.packing);
        let outcome = tokio::select! {
            sent = send::send(&publisher, &route, messages, probe) => sent?,
            // A route waiting for a full queue must not hold up shutdown:
            // its batch is sent again after the restart.
            () = shutdown.wait() => return Ok(()),
        };
        probe = outcome.nobody_bound(&route, messages.len());
        cursor = batch.last;
        let counts = Counts {
            published: batch.messages.len(),
            sent: outcome.sent,
            unroutable: outcome.unroutable,
        };
        save_cursor(&client, route.name, cursor, counts).await?;
        unroutable.add(outcome.unroutable);
    }
    Ok(())
}

/// Events the public route sent while no subscriber was bound: normal
/// (nobody asked for them; `ledger events publish` backfills), so counted
/// (`relay_cursors.unroutable`, `couponledger_relay_unroutable_events_total`) and
/// logged as one line per [`SUMMARY_EVERY`] at most, never one per event.
struct UnroutableSummary {
    route: &'static str,
    since_logged: u64,
    logged_at: Instant,
}

/// At most one summary line per this long.
const SUMMARY_EVERY: Duration = Duration::from_secs(60);

impl UnroutableSummary {
    fn new(route: &'static str) -> Self {
        Self {
            route,
            since_logged: 0,
            logged_at: Instant::now(),
        }
    }

    fn add(&mut self, n: u64) {
        self.since_logged += n;
        self.maybe_log();
    }

    fn maybe_log(&mut self) {
        if self.since_logged == 0 || self.logged_at.elapsed() < SUMMARY_EVERY {
            return;
        }
        tracing::info!(
            route = self.route,
            events = self.since_logged,
            "events reached no subscriber (no queue bound to the exchange) since the last \
             summary; counted in couponledger_relay_unroutable_events_total"
        );
        self.since_logged = 0;
        self.logged_at = Instant::now();
    }
}

/// What one batch of a route came to.
struct Counts {
    /// Events the route passed on (sent, or skipped while nobody is bound).
    published: usize,
    /// Messages handed to the broker (a run counts once, a probe once).
    sent: u64,
    unroutable: u64,
}

/// A route this relay has no cursor for starts where the public route is:
/// releases before per-route cursors fed every queue through it.
async fn start_new_routes(client: &Client) -> anyhow::Result<()> {
    client
        .execute(
            "INSERT INTO relay_cursors (name, tx_id, position, published)
             SELECT r.name, c.tx_id, c.position, 0
               FROM unnest($1::text[]) AS r (name)
               JOIN relay_cursors c ON c.name = $2
             ON CONFLICT (name) DO NOTHING",
            &[&routes::names(), &PUBLIC.name],
        )
        .await?;
    Ok(())
}

async fn load_cursor(client: &Client, route: &str) -> anyhow::Result<GlobalCursor> {
    let row = client
        .query_opt(
            "SELECT tx_id, position FROM relay_cursors WHERE name = $1",
            &[&route],
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
    route: &str,
    cursor: GlobalCursor,
    counts: Counts,
) -> anyhow::Result<()> {
    let published = i64::try_from(counts.published)?;
    let sent = i64::try_from(counts.sent)?;
    let unroutable = i64::try_from(counts.unroutable)?;
    client
        .execute(
            "INSERT INTO relay_cursors (name, tx_id, position, published, sent, unroutable)
             VALUES ($1, $2, $3, $4, $5, $6)
             ON CONFLICT (name) DO UPDATE
               SET tx_id = EXCLUDED.tx_id, position = EXCLUDED.position,
                   published = relay_cursors.published + EXCLUDED.published,
                   sent = relay_cursors.sent + EXCLUDED.sent,
                   unroutable = relay_cursors.unroutable + EXCLUDED.unroutable,
                   updated_at = now()
             WHERE (relay_cursors.tx_id, relay_cursors.position)
                 < (EXCLUDED.tx_id, EXCLUDED.position)",
            &[
                &route,
                &cursor.tx_id,
                &cursor.position,
                &published,
                &sent,
                &unroutable,
            ],
        )
        .await?;
    Ok(())
}
