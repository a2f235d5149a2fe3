//! cqrs-es with postgres-es, driven the way `tests/benches/peer.rs` drives
//! the ledger's store: the same events (one payload and metadata, given by
//! the bench), the same number of clients, one phase per run, one JSON line
//! of figures on stdout.
//!
//! `peer-cqrs-es <phase>` with DATABASE_URL (a database of its own: the peer's
//! table is also called `events`), PEER_EVENTS, PEER_CLIENTS, PEER_LOADS,
//! PEER_PAYLOAD and PEER_METADATA. Phases:
//! - `new`: PEER_EVENTS events, each the first of a new aggregate, one
//!   `persist` (one transaction) each;
//! - `hundred`: PEER_EVENTS / 100 aggregates of 100 events, one `persist`
//!   per event, at the aggregate's next sequence;
//! - `batched`: the same shape, the 100 events of an aggregate in one `persist`;
//! - `load`: PEER_LOADS aggregates of `hundred` read back whole (`get_events`).

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Instant;

use cqrs_es::persist::{PersistedEventRepository, SerializedEvent};
use cqrs_es::event_sink::EventSink;
use cqrs_es::{Aggregate, DomainEvent};
use postgres_es::PostgresEventRepository;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use sqlx::postgres::PgPoolOptions;

/// The table postgres-es reads and writes, as its `db/init.sql` makes it.
const SCHEMA: &str = "
CREATE TABLE IF NOT EXISTS events (
    aggregate_type text NOT NULL,
    aggregate_id   text NOT NULL,
    sequence       bigint CHECK (sequence >= 0) NOT NULL,
    event_type     text NOT NULL,
    event_version  text NOT NULL,
    payload        json NOT NULL,
    metadata       json NOT NULL,
    PRIMARY KEY (aggregate_type, aggregate_id, sequence))";

/// Events of one aggregate in the `hundred`, `batched` and `load` phases.
const PER_AGGREGATE: usize = 100;

/// A coupon as the peer's aggregate: the repository needs the type's name only.
#[derive(Default, Serialize, Deserialize)]
struct Coupon;

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
struct CouponIssued;

impl DomainEvent for CouponIssued {
    fn event_type(&self) -> String {
        "CouponIssued".into()
    }
    fn event_version(&self) -> String {
        "1".into()
    }
}

impl Aggregate for Coupon {
    const TYPE: &'static str = "Coupon";
    type Command = ();
    type Event = CouponIssued;
    type Error = std::convert::Infallible;
    type Services = ();

    async fn handle(&mut self, _: (), _: &(), _: &EventSink<Self>) -> Result<(), Self::Error> {
        Ok(())
    }

    fn apply(&mut self, _: CouponIssued) {}
}

struct Settings {
    events: usize,
    clients: usize,
    loads: usize,
    payload: Value,
    metadata: Value,
}

fn env(name: &str, default: &str) -> String {
    std::env::var(name).unwrap_or_else(|_| default.to_owned())
}

fn number(name: &str, default: usize) -> usize {
    let text = env(name, &default.to_string());
    text.parse().unwrap_or_else(|_| panic!("{name}: not a number: {text}"))
}

fn settings() -> Settings {
    let json = |name| serde_json::from_str(&env(name, "{}")).expect("PEER_PAYLOAD/METADATA: JSON");
    Settings {
        events: number("PEER_EVENTS", 1_000_000),
        clients: number("PEER_CLIENTS", 16),
        loads: number("PEER_LOADS", 10_000),
        payload: json("PEER_PAYLOAD"),
        metadata: json("PEER_METADATA"),
    }
}

fn event(s: &Settings, aggregate: String, sequence: usize) -> SerializedEvent {
    SerializedEvent::new(
        aggregate,
        sequence,
        Coupon::TYPE.into(),
        "CouponIssued".into(),
        "1".into(),
        s.payload.clone(),
        s.metadata.clone(),
    )
}

/// Runs `unit(i)` for i in 0..units over `clients` tasks; the seconds it took.
async fn spread<F, Fut>(clients: usize, units: usize, unit: F) -> f64
where
    F: Fn(usize) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = ()> + Send,
{
    let unit = Arc::new(unit);
    let next = Arc::new(AtomicUsize::new(0));
    let started = Instant::now();
    let tasks: Vec<_> = (0..clients)
        .map(|_| {
            let (unit, next) = (Arc::clone(&unit), Arc::clone(&next));
            tokio::spawn(async move {
                loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    if i >= units {
                        break;
                    }
                    unit(i).await;
                }
            })
        })
        .collect();
    for task in tasks {
        task.await.expect("a client panicked");
    }
    started.elapsed().as_secs_f64()
}

/// One phase; the events it wrote or read, and its seconds.
async fn run(phase: &str, s: Arc<Settings>, repo: Arc<PostgresEventRepository>) -> (usize, f64) {
    let aggregates = s.events / PER_AGGREGATE;
    let clients = s.clients;
    let job = Arc::new((s, repo));
    match phase {
        "new" => {
            let units = job.0.events;
            let seconds = spread(clients, units, move |i| {
                let job = Arc::clone(&job);
                async move {
                    let e = event(&job.0, format!("c-{i}"), 1);
                    job.1.persist::<Coupon>(&[e], None).await.expect("persist");
                }
            });
            (units, seconds.await)
        }
        "hundred" => {
            let seconds = spread(clients, aggregates, move |i| {
                let job = Arc::clone(&job);
                async move {
                    for sequence in 1..=PER_AGGREGATE {
                        let e = event(&job.0, format!("h-{i}"), sequence);
                        job.1.persist::<Coupon>(&[e], None).await.expect("persist");
                    }
                }
            });
            (aggregates * PER_AGGREGATE, seconds.await)
        }
        "batched" => {
            let seconds = spread(clients, aggregates, move |i| {
                let job = Arc::clone(&job);
                async move {
                    let all: Vec<_> = (1..=PER_AGGREGATE)
                        .map(|sequence| event(&job.0, format!("b-{i}"), sequence))
                        .collect();
                    job.1.persist::<Coupon>(&all, None).await.expect("persist");
                }
            });
            (aggregates * PER_AGGREGATE, seconds.await)
        }
        "load" => load(job, clients, aggregates).await,
        other => panic!("unknown phase {other}: new, hundred, batched or load"),
    }
}

/// Reads PEER_LOADS aggregates of the `hundred` phase back, each whole.
async fn load(
    job: Arc<(Arc<Settings>, Arc<PostgresEventRepository>)>,
    clients: usize,
    aggregates: usize,
) -> (usize, f64) {
    let loads = job.0.loads;
    assert!(aggregates > 0, "the load phase reads what `hundred` wrote");
    let read = Arc::new(AtomicUsize::new(0));
    let counted = Arc::clone(&read);
    let seconds = spread(clients, loads, move |i| {
        let (job, read) = (Arc::clone(&job), Arc::clone(&counted));
        async move {
            // Spread over every aggregate written, as a service's loads would be.
            let id = format!("h-{}", (i * 7_919) % aggregates);
            let events = job.1.get_events::<Coupon>(&id).await.expect("load");
            assert_eq!(events.len(), PER_AGGREGATE, "{id} holds its 100 events");
            read.fetch_add(events.len(), Ordering::Relaxed);
        }
    });
    let seconds = seconds.await;
    (read.load(Ordering::Relaxed), seconds)
}

#[tokio::main]
async fn main() {
    let phase = std::env::args().nth(1).expect("a phase: new, hundred, batched or load");
    let s = Arc::new(settings());
    let url = std::env::var("DATABASE_URL").expect("DATABASE_URL");
    let pool = PgPoolOptions::new()
        .max_connections(u32::try_from(s.clients).expect("clients"))
        .connect(&url)
        .await
        .expect("connecting to DATABASE_URL");
    sqlx::query(SCHEMA).execute(&pool).await.expect("the peer's schema");
    let repo = Arc::new(PostgresEventRepository::new(pool));
    let (events, seconds) = run(&phase, s, repo).await;
    let figures = serde_json::json!({ "phase": phase, "events": events, "seconds": seconds });
    println!("{figures}");
}
