//! The sealer worker under concurrent writers, a transaction held open and
//! SIGKILLs: no event skipped, none sealed twice, and `ledger audit verify`
//! finds the chain intact (docs/design.md §11).

use std::time::Duration;

use chrono::Utc;
use ledger::store::{self, NewEvent};
use serde_json::json;
use tests::Env;
use tests::reminders::pool;
use tests::workers::{Workers, ledger};
use uuid::Uuid;

const SEALER_ARGS: [&str; 4] = ["--checkpoint-events", "500", "--checkpoint-secs", "1"];

fn events(n: usize) -> Vec<NewEvent> {
    (0..n)
        .map(|i| NewEvent {
            event_id: Uuid::now_v7(),
            event_type: ledger::domain::EventType::ChannelCreated,
            schema_version: 1,
            payload: json!({ "n": i }),
            metadata: json!({ "actor": "test" }),
            occurred_at: Utc::now(),
        })
        .collect()
}

/// `txs` transactions of 10 events, each its own stream.
async fn write(pool: &deadpool_postgres::Pool, writer: usize, txs: usize) {
    let mut client = pool.get().await.unwrap();
    for t in 0..txs {
        let tx = client.transaction().await.unwrap();
        let stream = format!("test-{writer}-{t}");
        store::append(&tx, &stream, 0, &events(10)).await.unwrap();
        tx.commit().await.unwrap();
    }
}

/// (events, seals, highest seq).
async fn counts(env: &Env) -> (i64, i64, i64) {
    let client = env.db.client().await.unwrap();
    let row = client
        .query_one(
            "SELECT (SELECT count(*) FROM events), (SELECT count(*) FROM event_seals),
                    (SELECT coalesce(max(seq), 0) FROM event_seals)",
            &[],
        )
        .await
        .unwrap();
    (row.get(0), row.get(1), row.get(2))
}

async fn sealed_up_to(env: &Env, n: i64) {
    for _ in 0..600 {
        if counts(env).await.1 >= n {
            return;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    panic!("sealed {:?}, wanted {n}", counts(env).await);
}

#[tokio::test(flavor = "multi_thread")]
async fn writers_an_open_transaction_and_kills_leave_every_event_sealed_once() {
    let env = Env::new().await.unwrap();
    let pool = pool(&env, 8).unwrap();
    write(&pool, 99, 5).await;
    // A transaction that wrote an event and stays open.
    let mut open = pool.get().await.unwrap();
    let held = open.transaction().await.unwrap();
    store::append(&held, "test-held", 0, &events(1))
        .await
        .unwrap();

    let mut sealer = Workers::start_with(&env, "sealer", &SEALER_ARGS).unwrap();
    let writers = futures_util::future::join_all((0..4).map(|w| write(&pool, w, 150)));
    let chaos = async {
        for _ in 0..3 {
            tokio::time::sleep(Duration::from_millis(400)).await;
            let fresh = Workers::start_with(&env, "sealer", &SEALER_ARGS).unwrap();
            std::mem::replace(&mut sealer, fresh).kill().await.unwrap();
        }
    };
    tokio::join!(writers, chaos);

    // Only what committed before the held transaction began can be sealed.
    sealed_up_to(&env, 50).await;
    tokio::time::sleep(Duration::from_millis(500)).await;
    let (events_now, sealed, _) = counts(&env).await;
    assert!(sealed < events_now, "the held transaction stops the seal");
    held.commit().await.unwrap();
    let (events_now, ..) = counts(&env).await;
    assert_eq!(events_now, 6_051);
    sealed_up_to(&env, events_now).await;
    let (_, sealed, last_seq) = counts(&env).await;
    assert_eq!(
        (sealed, last_seq),
        (events_now, events_now),
        "each once, no gap"
    );

    tokio::time::sleep(Duration::from_millis(1_500)).await; // a last checkpoint
    let out = ledger(&env, &["audit", "verify"]).await.unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{stdout}");
    assert!(stdout.contains("6051 events verified"), "{stdout}");
    let out = ledger(&env, &["audit", "checkpoints"]).await.unwrap();
    let lines = String::from_utf8_lossy(&out.stdout);
    let last = lines.lines().last().unwrap_or_default();
    assert!(last.contains("count 6051 head "), "{lines}");
    let head = last.rsplit(' ').next().unwrap();
    let out = ledger(&env, &["audit", "verify", "--expect", head])
        .await
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let forged = "ab".repeat(32);
    let out = ledger(&env, &["audit", "verify", "--expect", &forged])
        .await
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(1),
        "a head that is not in the chain"
    );
    assert!(String::from_utf8_lossy(&out.stdout).contains("TAMPERED"));
    snapshots_beside_checkpoints(&env).await;
    sealer.terminate().await.unwrap();
}

/// The sealer builds every checkpoint's liability snapshot beside the seals.
async fn snapshots_beside_checkpoints(env: &Env) {
    let client = env.db.client().await.unwrap();
    let sql = "SELECT (SELECT count(*) FROM seal_checkpoints),
                      (SELECT count(*) FROM liability_snapshots)";
    for _ in 0..100 {
        let row = client.query_one(sql, &[]).await.unwrap();
        let (checkpoints, snapshots): (i64, i64) = (row.get(0), row.get(1));
        if checkpoints > 0 && snapshots == checkpoints {
            return;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    panic!("the checkpoints' liability snapshots were not all built");
}

/// `n` events, each a stream of its own, appended by binary COPY in
/// transactions of 5,000.
async fn copy(pool: &deadpool_postgres::Pool, n: usize) {
    let mut client = pool.get().await.unwrap();
    for chunk in events(n).chunks(5_000) {
        let streams: Vec<store::StreamEvent> = chunk
            .iter()
            .map(|event| store::StreamEvent {
                stream_id: format!("test-{}", event.event_id),
                stream_version: 1,
                event: event.clone(),
            })
            .collect();
        let tx = client.transaction().await.unwrap();
        store::copy_events(&tx, &streams).await.unwrap();
        tx.commit().await.unwrap();
    }
}

/// (checkpoints, the newest one's last seq).
async fn checkpoints(env: &Env) -> (i64, i64) {
    let client = env.db.client().await.unwrap();
    let row = client
        .query_one(
            "SELECT count(*), coalesce(max(last_seq), 0) FROM seal_checkpoints",
            &[],
        )
        .await
        .unwrap();
    (row.get(0), row.get(1))
}

/// Checkpoints by time only (the event count is out of reach).
const EVERY_3_SECS: [&str; 4] = ["--checkpoint-events", "100000000", "--checkpoint-secs", "3"];

#[tokio::test(flavor = "multi_thread")]
async fn sealers_killed_more_often_than_the_interval_still_checkpoint_and_an_idle_one_covers_the_last_event()
 {
    let env = Env::new().await.unwrap();
    let pool = pool(&env, 4).unwrap();
    let mut sealer = Workers::start_with(&env, "sealer", &EVERY_3_SECS).unwrap();
    // 200,000 events while the sealer is killed every 1.5 s: no process
    // lives the 3 s interval, yet the interval counts from the stored
    // checkpoint, so checkpoints keep coming.
    let writing = async {
        for _ in 0..8 {
            copy(&pool, 25_000).await;
        }
    };
    let killing = async {
        for _ in 0..8 {
            tokio::time::sleep(Duration::from_millis(1_500)).await;
            let fresh = Workers::start_with(&env, "sealer", &EVERY_3_SECS).unwrap();
            std::mem::replace(&mut sealer, fresh).kill().await.unwrap();
        }
    };
    tokio::join!(writing, killing);
    let (during, _) = checkpoints(&env).await;
    assert!(
        during >= 2,
        "checkpoints while sealers were being killed: {during}"
    );

    for _ in 0..1_200 {
        if counts(&env).await.1 >= 200_000 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    // Idle for one interval: the newest checkpoint reaches the last event.
    let mut last = (0, 0);
    for _ in 0..100 {
        last = checkpoints(&env).await;
        if last.1 == 200_000 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert_eq!(
        last.1, 200_000,
        "the newest checkpoint covers the last event"
    );
    let out = ledger(&env, &["audit", "verify"]).await.unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{stdout}");
    assert!(stdout.contains("200000 events verified"), "{stdout}");
    assert!(
        stdout.contains(&format!("{} checkpoints", last.0)),
        "{stdout}"
    );
    sealer.terminate().await.unwrap();
}

#[tokio::test(flavor = "multi_thread")]
async fn a_clean_stop_checkpoints_what_was_sealed() {
    let env = Env::new().await.unwrap();
    let pool = pool(&env, 2).unwrap();
    let hourly = [
        "--checkpoint-events",
        "100000000",
        "--checkpoint-secs",
        "3600",
    ];
    let sealer = Workers::start_with(&env, "sealer", &hourly).unwrap();
    write(&pool, 1, 10).await;
    sealed_up_to(&env, 100).await;
    // The first checkpoint is due at once (none yet); then an hour away.
    write(&pool, 2, 5).await;
    sealed_up_to(&env, 150).await;
    assert_ne!(
        checkpoints(&env).await.1,
        150,
        "no checkpoint before the stop"
    );
    assert!(sealer.terminate().await.unwrap().success());
    assert_eq!(
        checkpoints(&env).await.1,
        150,
        "the stop checkpointed the head"
    );
}
