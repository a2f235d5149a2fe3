//! The `webhooks` worker (docs/design.md §21): one active at a time (an
//! advisory lock), it fans the log out into deliveries, queues replays,
//! and sends what is due: per stream in order, across streams in
//! parallel, at most [`PER_ENDPOINT`] attempts in flight per endpoint.
//! Rows are the truth: an attempt cut short by a kill leaves its delivery
//! pending, and it is sent again (at least once; receivers deduplicate by
//! `Ledger-Event-Id`). It needs Postgres only, so a broker outage does not
//! stop deliveries.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::{Duration, Instant};

use deadpool_postgres::Pool;
use ledger::config::Config;
use ledger::secret_box::Keyring;
use ledger::webhooks::deliveries::{self, Due};
use ledger::webhooks::endpoints::{self, Endpoint};
use ledger::webhooks::{attempt, client, fanout};
use tokio::task::JoinSet;
use tokio_postgres::Client;
use uuid::Uuid;

use crate::session::{reconnecting, wait_for_lock};
use crate::shutdown::Shutdown;

pub const NAME: &str = "webhooks";
/// Attempts in flight per endpoint: enough to keep a receiver busy, few
/// enough that one slow receiver cannot take every connection.
const PER_ENDPOINT: usize = 16;
const IDLE: Duration = Duration::from_millis(100);
/// Endpoints (URLs, secrets, enabled) are read again this often.
const ENDPOINTS_EVERY: Duration = Duration::from_secs(1);
const PRUNE_EVERY: Duration = Duration::from_secs(60);

pub async fn run(config: Config, pool: Pool, mut shutdown: Shutdown) -> anyhow::Result<()> {
    let (config, pool) = (&config, &pool);
    reconnecting(NAME, &mut shutdown, |shutdown| async move {
        session(config, pool, shutdown).await
    })
    .await
}

/// What the sender keeps between rounds.
struct Sender {
    http: reqwest::Client,
    allow_private: bool,
    pool: Pool,
    endpoints: Arc<HashMap<Uuid, Endpoint>>,
    read_at: Option<Instant>,
    /// Deliveries in flight, by id, with their endpoint.
    busy: HashMap<i64, Uuid>,
    tasks: JoinSet<i64>,
}

async fn session(config: &Config, pool: &Pool, mut shutdown: Shutdown) -> anyhow::Result<()> {
    let mut client = ledger::db::connect(&config.database).await?;
    if !wait_for_lock(&client, NAME, &mut shutdown).await? {
        return Ok(());
    }
    // Without LEDGER_SECRET_KEY only secrets sealed by `serve --dev` open.
    let keys = config.secret_keys.clone().unwrap_or_else(Keyring::dev);
    let mut sender = Sender {
        http: client::client(config.webhook_allow_private)?,
        allow_private: config.webhook_allow_private,
        pool: pool.clone(),
        endpoints: Arc::default(),
        read_at: None,
        busy: HashMap::new(),
        tasks: JoinSet::new(),
    };
    tracing::info!("webhooks sender active");
    let mut pruned_at = Instant::now();
    // A fan-out adds thousands of rows in a second; the due query's plan
    // needs statistics that know it.
    let mut stats = ledger::db::StatsKeeper::new(&["webhook_deliveries"]);
    while !shutdown.is_set() {
        if stats.due() {
            stats.check(&client).await?;
        }
        let read = round(&mut client, &mut sender, &keys).await?;
        if pruned_at.elapsed() > PRUNE_EVERY {
            deliveries::prune(&client, ledger::store::now()).await?;
            pruned_at = Instant::now();
        }
        let caught_up = read < usize::try_from(fanout::STEP).unwrap_or(usize::MAX);
        if caught_up {
            tokio::select! {
                Some(done) = sender.tasks.join_next() => sender.finished(done),
                () = tokio::time::sleep(IDLE) => {}
                () = shutdown.wait() => {}
            }
        }
        while let Some(done) = sender.tasks.try_join_next() {
            sender.finished(done);
        }
    }
    // In-flight attempts finish and record; nothing new starts.
    while let Some(done) = sender.tasks.join_next().await {
        sender.finished(done);
    }
    Ok(())
}

/// Fan-out, replays, then the deliveries due; the events the fan-out read.
async fn round(client: &mut Client, sender: &mut Sender, keys: &Keyring) -> anyhow::Result<usize> {
    let now = ledger::store::now();
    let read = fanout::step(client, now).await?;
    deliveries::replay_step(client, now).await?;
    if sender
        .read_at
        .is_none_or(|at| at.elapsed() > ENDPOINTS_EVERY)
    {
        sender.endpoints = Arc::new(endpoints::load(&*client, keys, now).await?);
        sender.read_at = Some(Instant::now());
    }
    let busy: Vec<i64> = sender.busy.keys().copied().collect();
    let per_endpoint = i64::try_from(PER_ENDPOINT).unwrap_or(i64::MAX);
    let due = deliveries::due(&*client, now, &busy, per_endpoint).await?;
    let due = sender.with_room(due);
    if due.is_empty() {
        return Ok(read);
    }
    let positions: Vec<i64> = due.iter().map(|d| d.position).collect();
    let events = deliveries::events(&*client, &positions).await?;
    let by_position: HashMap<i64, _> = events.into_iter().map(|e| (e.position, e)).collect();
    for d in due {
        let event = by_position.get(&d.position).cloned();
        sender.start(d, event);
    }
    Ok(read)
}

impl Sender {
    /// The due deliveries that fit in their endpoints' room.
    fn with_room(&self, due: Vec<Due>) -> Vec<Due> {
        let mut in_flight: HashMap<Uuid, usize> = HashMap::new();
        for webhook in self.busy.values() {
            *in_flight.entry(*webhook).or_default() += 1;
        }
        due.into_iter()
            .filter(|d| self.endpoints.contains_key(&d.webhook_id))
            .filter(|d| {
                let n = in_flight.entry(d.webhook_id).or_default();
                *n += 1;
                *n <= PER_ENDPOINT
            })
            .collect()
    }

    fn start(&mut self, due: Due, event: Option<ledger::store::RecordedEvent>) {
        let (http, pool) = (self.http.clone(), self.pool.clone());
        let (allow_private, endpoints) = (self.allow_private, self.endpoints.clone());
        self.busy.insert(due.id, due.webhook_id);
        self.tasks.spawn(async move {
            let Some(endpoint) = endpoints.get(&due.webhook_id) else {
                return due.id;
            };
            let target = (due.webhook_id, endpoint);
            let done = attempt::send(&http, allow_private, target, (&due, event.as_ref())).await;
            if let Err(e) = record(&pool, &due, &done).await {
                tracing::warn!(error = %e, delivery = due.id, "attempt not recorded; it will be sent again");
            }
            due.id
        });
    }

    fn finished(&mut self, done: Result<i64, tokio::task::JoinError>) {
        match done {
            Ok(id) => {
                self.busy.remove(&id);
            }
            // A panicked attempt: its id is unknown here, so start afresh
            // once the others end (the row is still pending).
            Err(e) => {
                tracing::error!(error = %e, "a webhook attempt panicked");
                if self.tasks.is_empty() {
                    self.busy.clear();
                }
            }
        }
    }
}

async fn record(pool: &Pool, due: &Due, done: &attempt::Outcome) -> anyhow::Result<()> {
    let db = pool.get().await?;
    deliveries::record(&**db, due, &done.attempt, &done.next, done.at).await?;
    Ok(())
}
