//! The ledger's event store side by side with two peers (issue 33, point
//! 4; issue 51, point 2): `cqrs-es` with `postgres-es` (crates.io) and
//! Eventide's Message DB (`tests::message_db`), on the same Postgres, in
//! the same run, phase by phase, the peers first, each side in a database
//! of its own.
//!
//! Phases (BENCH_EVENTS, default 1,000,000; BENCH_CLIENTS, default 16,
//! connections on each side):
//! - `new`: BENCH_EVENTS events, each the first of a new stream (aggregate),
//!   one append (one transaction) each;
//! - `hundred`: BENCH_EVENTS / 100 streams of 100 events, one append per
//!   event at the stream's expected version, as commands append them;
//! - `batched`: the same shape, the 100 events of a stream in one append;
//! - `load`: BENCH_LOADS (default 10,000) streams of `hundred` read back
//!   whole, as a command loads an aggregate.
//!
//! Every event carries the same payload and metadata on both sides (a
//! `CouponIssued` as the ledger writes one). The ledger appends with
//! `store::append` (its command path: idempotent by event id, a global
//! position, the stream's version kept in `streams`) and loads with
//! `store::read_stream`; cqrs-es with `PersistedEventRepository::persist`
//! and `get_events`; Message DB with `write_message` (one call per event,
//! a batch's calls in one transaction, as its clients write) and
//! `get_stream_messages`. A CHECKPOINT and a `sync` come before every
//! timed phase.
//!
//! ```sh
//! cargo build --release --manifest-path peers/cqrs-es/Cargo.toml
//! cargo bench -p tests --bench peer   # installs Message DB with npm, once
//! ```

use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Instant;

use deadpool_postgres::Pool;
use ledger::domain::ledger_event::EventType;
use ledger::store::{self, NewEvent};
use serde_json::{Value, json};
use tests::Env;
use tests::bench::{env_number, settle_disk};
use tests::message_db;
use uuid::Uuid;

/// Events of one stream in the `hundred`, `batched` and `load` phases.
const PER_STREAM: usize = 100;
const PHASES: [&str; 4] = ["new", "hundred", "batched", "load"];

struct Settings {
    events: usize,
    clients: usize,
    loads: usize,
}

/// A `CouponIssued` payload and its metadata as the ledger writes them.
fn payload() -> (Value, Value) {
    let payload = json!({
        "coupon_id": "0190c1f2-7a3b-7c4d-8e5f-60718293a4b5",
        "template_sn": "TPL0000000000000000001",
        "user_id": "u00012345",
        "kind": "cash",
        "face_value": "10.00",
        "currency": "CNY",
        "threshold": "100.00",
        "valid_from": "2026-11-27T00:00:00Z",
        "valid_until": "2026-12-27T00:00:00Z",
        "channel_id": "app",
        "issued_by": "claim",
        "request_id": "0190c1f2-7a3b-7c4d-8e5f-60718293a4b6"
    });
    let metadata = json!({
        "actor": "u00012345",
        "channel": "app",
        "correlation_id": "0190c1f2-7a3b-7c4d-8e5f-60718293a4b7",
        "idempotency_key": "claim-u00012345-TPL0000000000000000001"
    });
    (payload, metadata)
}

/// The peer's binary, built by its own manifest (outside the workspace).
fn peer_binary() -> PathBuf {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..");
    let bin = root.join("peers/cqrs-es/target/release/peer-cqrs-es");
    assert!(
        bin.exists(),
        "build the peer first: cargo build --release --manifest-path peers/cqrs-es/Cargo.toml"
    );
    bin
}

/// A plain database for the peer on the ledger's server, dropped with the value.
struct PeerDb {
    name: String,
    admin: tokio_postgres::Client,
    url: String,
}

impl PeerDb {
    async fn new(env: &Env, peer: &str) -> PeerDb {
        let admin = ledger::db::connect(&admin_config(env)).await.unwrap();
        let name = format!("peer_{peer}_{}", std::process::id());
        let drop = format!("DROP DATABASE IF EXISTS {name}");
        admin.batch_execute(&drop).await.unwrap();
        let create = format!("CREATE DATABASE {name}");
        admin.batch_execute(&create).await.unwrap();
        let url = env.db.url().replace(&env.db.name, &name);
        PeerDb { name, admin, url }
    }

    async fn drop_now(self) {
        let sql = format!("DROP DATABASE IF EXISTS {} WITH (FORCE)", self.name);
        self.admin.batch_execute(&sql).await.unwrap();
    }

    fn config(&self, env: &Env) -> tokio_postgres::Config {
        let mut config = env.db.config.clone();
        config.dbname(&self.name);
        config
    }

    async fn client(&self, env: &Env) -> tokio_postgres::Client {
        ledger::db::connect(&self.config(env)).await.unwrap()
    }
}

fn admin_config(env: &Env) -> tokio_postgres::Config {
    let mut config = env.db.config.clone();
    config.dbname("postgres");
    config
}

/// Runs the peer's `phase`: the events it wrote or read, and its seconds.
async fn peer(db: &PeerDb, s: &Settings, phase: &str) -> (usize, f64) {
    let (payload, metadata) = payload();
    let out = tokio::process::Command::new(peer_binary())
        .arg(phase)
        .env("DATABASE_URL", &db.url)
        .env("PEER_EVENTS", s.events.to_string())
        .env("PEER_CLIENTS", s.clients.to_string())
        .env("PEER_LOADS", s.loads.to_string())
        .env("PEER_PAYLOAD", payload.to_string())
        .env("PEER_METADATA", metadata.to_string())
        .output()
        .await
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "the peer's {phase} failed: {stderr}");
    let figures: Value = serde_json::from_slice(&out.stdout).unwrap();
    let events = figures["events"].as_u64().unwrap() as usize;
    (events, figures["seconds"].as_f64().unwrap())
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
        task.await.unwrap();
    }
    started.elapsed().as_secs_f64()
}

fn new_event() -> NewEvent {
    let (payload, metadata) = payload();
    NewEvent {
        event_id: Uuid::now_v7(),
        event_type: EventType::CouponIssued,
        schema_version: EventType::CouponIssued.schema_version(),
        payload,
        metadata,
        occurred_at: store::now(),
    }
}

/// Appends `events` to `stream` at version `expected`, in a transaction of its own.
async fn append(pool: &Pool, stream: &str, expected: i32, events: &[NewEvent]) {
    let mut client = pool.get().await.unwrap();
    let tx = client.transaction().await.unwrap();
    let outcome = store::append(&tx, stream, expected, events).await.unwrap();
    assert!(!outcome.duplicate);
    tx.commit().await.unwrap();
}

/// Runs the ledger's `phase`: the events it wrote or read, and its seconds.
async fn ours(pool: &Pool, s: &Settings, phase: &str) -> (usize, f64) {
    let streams = s.events / PER_STREAM;
    let pool = pool.clone();
    match phase {
        "new" => {
            let seconds = spread(s.clients, s.events, move |i| {
                let pool = pool.clone();
                async move { append(&pool, &format!("coupon-c{i}"), 0, &[new_event()]).await }
            });
            (s.events, seconds.await)
        }
        "hundred" => {
            let seconds = spread(s.clients, streams, move |i| {
                let pool = pool.clone();
                async move {
                    for version in 0..PER_STREAM as i32 {
                        append(&pool, &format!("coupon-h{i}"), version, &[new_event()]).await;
                    }
                }
            });
            (streams * PER_STREAM, seconds.await)
        }
        "batched" => {
            let seconds = spread(s.clients, streams, move |i| {
                let pool = pool.clone();
                async move {
                    let events: Vec<NewEvent> = (0..PER_STREAM).map(|_| new_event()).collect();
                    append(&pool, &format!("coupon-b{i}"), 0, &events).await;
                }
            });
            (streams * PER_STREAM, seconds.await)
        }
        "load" => loads(pool, s, streams, load).await,
        other => panic!("unknown phase {other}"),
    }
}

/// Reads `s.loads` streams of the `hundred` phase back, each whole, in the
/// order the peer reads its aggregates, with `read` (which returns how many
/// events it got): the events read and the seconds.
async fn loads<F, Fut>(pool: Pool, s: &Settings, streams: usize, read: F) -> (usize, f64)
where
    F: Fn(Pool, String) -> Fut + Send + Sync + Copy + 'static,
    Fut: Future<Output = usize> + Send,
{
    let total = Arc::new(AtomicUsize::new(0));
    let counted = Arc::clone(&total);
    let seconds = spread(s.clients, s.loads, move |i| {
        let (pool, total) = (pool.clone(), Arc::clone(&counted));
        async move {
            let stream = format!("coupon-h{}", (i * 7_919) % streams);
            let got = read(pool, stream.clone()).await;
            assert_eq!(got, PER_STREAM, "{stream} holds its 100 events");
            total.fetch_add(got, Ordering::Relaxed);
        }
    });
    let seconds = seconds.await;
    (total.load(Ordering::Relaxed), seconds)
}

/// The ledger's load of one stream: its events' count.
async fn load(pool: Pool, stream: String) -> usize {
    let client = pool.get().await.unwrap();
    let events = store::read_stream(&**client, &stream, 0, store::read::MAX_READ).await;
    events.unwrap().len()
}

/// Message DB's load of one stream: its messages' count.
async fn message_db_load(pool: Pool, stream: String) -> usize {
    let client = pool.get().await.unwrap();
    message_db::read(&client, &stream).await.unwrap().len()
}

/// Runs Message DB's `phase`: the events it wrote or read, and its seconds.
async fn message_db_side(pool: &Pool, s: &Settings, phase: &str) -> (usize, f64) {
    let streams = s.events / PER_STREAM;
    let pool = pool.clone();
    let seconds = match phase {
        "new" => {
            spread(s.clients, s.events, move |i| {
                let pool = pool.clone();
                async move {
                    let client = pool.get().await.unwrap();
                    let (data, metadata) = payload();
                    let stream = format!("coupon-c{i}");
                    let at = message_db::write(&client, &stream, -1, &data, &metadata).await;
                    assert_eq!(at.unwrap(), 0);
                }
            })
            .await
        }
        "hundred" => {
            spread(s.clients, streams, move |i| {
                let pool = pool.clone();
                async move {
                    let (data, metadata) = payload();
                    let stream = format!("coupon-h{i}");
                    for version in 0..PER_STREAM as i64 {
                        let client = pool.get().await.unwrap();
                        let at = message_db::write(&client, &stream, version - 1, &data, &metadata);
                        assert_eq!(at.await.unwrap(), version);
                    }
                }
            })
            .await
        }
        "batched" => {
            spread(s.clients, streams, move |i| {
                let pool = pool.clone();
                async move {
                    let (data, metadata) = payload();
                    let stream = format!("coupon-b{i}");
                    let mut client = pool.get().await.unwrap();
                    let tx = client.transaction().await.unwrap();
                    for version in 0..PER_STREAM as i64 {
                        let at = message_db::write(&tx, &stream, version - 1, &data, &metadata);
                        assert_eq!(at.await.unwrap(), version);
                    }
                    tx.commit().await.unwrap();
                }
            })
            .await
        }
        "load" => return loads(pool, s, streams, message_db_load).await,
        other => panic!("unknown phase {other}"),
    };
    let events = if phase == "new" {
        s.events
    } else {
        streams * PER_STREAM
    };
    (events, seconds)
}

/// One side's figure: seconds and rate.
fn figure(events: usize, seconds: f64) -> String {
    format!("{seconds:.1} s ({:.0} events/s)", events as f64 / seconds)
}

#[tokio::main]
async fn main() {
    let s = Settings {
        events: env_number("BENCH_EVENTS", 1_000_000) as usize,
        clients: env_number("BENCH_CLIENTS", 16) as usize,
        loads: env_number("BENCH_LOADS", 10_000) as usize,
    };
    assert!(
        s.events >= PER_STREAM,
        "BENCH_EVENTS: at least {PER_STREAM}"
    );
    peer_binary();
    let env = Env::new().await.unwrap();
    let peer_db = PeerDb::new(&env, "cqrs").await;
    let mdb = PeerDb::new(&env, "mdb").await;
    message_db::install(&mdb.name).unwrap();
    let pool = ledger::db::pool(&env.db.config, s.clients);
    let mdb_pool = message_db::pool(&mdb.config(&env), s.clients);
    let ours_client = env.db.client().await.unwrap();
    let (peer_client, mdb_client) = (peer_db.client(&env).await, mdb.client(&env).await);
    println!(
        "{} events, {} clients a side, {} loads; Message DB {}",
        s.events,
        s.clients,
        s.loads,
        message_db::VERSION
    );
    println!(
        "| phase | cqrs-es + postgres-es | Message DB | ledger | ledger / cqrs-es | ledger / Message DB |"
    );
    println!("|---|---|---|---|---|---|");
    for phase in PHASES {
        settle_disk(&peer_client, "").await;
        let (peer_events, peer_s) = peer(&peer_db, &s, phase).await;
        settle_disk(&mdb_client, "").await;
        let (mdb_events, mdb_s) = message_db_side(&mdb_pool, &s, phase).await;
        settle_disk(&ours_client, "").await;
        let (our_events, our_s) = ours(&pool, &s, phase).await;
        assert_eq!(
            peer_events, our_events,
            "cqrs-es and the ledger did the same work"
        );
        assert_eq!(
            mdb_events, our_events,
            "Message DB and the ledger did the same work"
        );
        println!(
            "| {phase} | {} | {} | {} | {:.2}x | {:.2}x |",
            figure(peer_events, peer_s),
            figure(mdb_events, mdb_s),
            figure(our_events, our_s),
            peer_s / our_s,
            mdb_s / our_s,
        );
    }
    peer_db.drop_now().await;
    mdb_pool.close();
    mdb.drop_now().await;
}
