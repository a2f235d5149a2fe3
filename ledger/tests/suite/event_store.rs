//! The event store against the real Postgres: concurrency, append-only,
//! idempotency and commit-order-safe reads.

use std::collections::HashSet;
use std::sync::Arc;
use std::time::Duration;

use chrono::Utc;
use ledger::store::{
    self, GlobalCursor, NewEvent, RecordedEvent, StoreError, StreamEvent, read_all, read_stream,
};
use ledger::testkit::TestDb;
use serde_json::json;
use uuid::Uuid;

fn event(n: usize) -> NewEvent {
    NewEvent {
        event_id: Uuid::now_v7(),
        event_type: ledger::domain::EventType::ChannelCreated,
        schema_version: 1,
        payload: json!({ "n": n }),
        metadata: json!({ "actor": "test" }),
        occurred_at: Utc::now(),
    }
}

async fn append_one(
    db: &TestDb,
    stream: &str,
    expected: i32,
    e: &NewEvent,
) -> Result<store::AppendOutcome, StoreError> {
    let mut client = db.pool.get().await.unwrap();
    let tx = client.transaction().await.unwrap();
    let out = store::append(&tx, stream, expected, std::slice::from_ref(e)).await?;
    tx.commit().await.unwrap();
    Ok(out)
}

/// Every stored event through the commit-safe read. That read stops below
/// the oldest transaction still open on the server, any database's: under
/// the parallel suite another test's transaction can hold it back for an
/// instant, so this reads again (for at most 30 s) until it sees as many
/// events as the table holds.
async fn read_everything(db: &TestDb) -> Vec<RecordedEvent> {
    let client = db.pool.get().await.unwrap();
    let stored: i64 = client
        .query_one("SELECT count(*) FROM events", &[])
        .await
        .unwrap()
        .get(0);
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
    loop {
        let mut all = Vec::new();
        let mut cursor = GlobalCursor::START;
        loop {
            let page = read_all(&**client, cursor, 1000).await.unwrap();
            let Some(last) = page.last() else { break };
            cursor = last.cursor();
            all.extend(page);
        }
        if all.len() as i64 >= stored || std::time::Instant::now() > deadline {
            return all;
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn only_one_of_32_concurrent_appends_at_a_version_wins() {
    let db = Arc::new(TestDb::new().await.unwrap());
    let tasks: Vec<_> = (0..32)
        .map(|n| {
            let db = db.clone();
            tokio::spawn(async move { append_one(&db, "race-1", 0, &event(n)).await })
        })
        .collect();
    let mut wins = 0;
    for t in tasks {
        match t.await.unwrap() {
            Ok(out) => {
                assert_eq!(out.version, 1);
                wins += 1;
            }
            Err(StoreError::VersionConflict { expected: 0, .. }) => {}
            Err(other) => panic!("expected a version conflict, got {other}"),
        }
    }
    assert_eq!(wins, 1);
    let client = db.pool.get().await.unwrap();
    assert_eq!(
        read_stream(&**client, "race-1", 0, 100)
            .await
            .unwrap()
            .len(),
        1
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn concurrent_writers_retrying_on_conflict_lose_and_duplicate_nothing() {
    let db = Arc::new(TestDb::new().await.unwrap());
    let tasks: Vec<_> = (0..32)
        .map(|n| {
            let db = db.clone();
            tokio::spawn(async move {
                let mine = event(n);
                let mut conflicts = 0;
                loop {
                    let client = db.pool.get().await.unwrap();
                    let seen = read_stream(&**client, "race-2", 0, 100).await.unwrap();
                    drop(client);
                    match append_one(&db, "race-2", seen.len() as i32, &mine).await {
                        Ok(_) => return (mine.event_id, conflicts),
                        Err(StoreError::VersionConflict { .. }) => conflicts += 1,
                        Err(other) => panic!("{other}"),
                    }
                }
            })
        })
        .collect();
    let mut ids = HashSet::new();
    let mut conflicts = 0;
    for t in tasks {
        let (id, c) = t.await.unwrap();
        ids.insert(id);
        conflicts += c;
    }
    assert!(conflicts > 0, "32 writers at once must have collided");
    let client = db.pool.get().await.unwrap();
    let stream = read_stream(&**client, "race-2", 0, 100).await.unwrap();
    let versions: Vec<i32> = stream.iter().map(|e| e.stream_version).collect();
    assert_eq!(versions, (1..=32).collect::<Vec<_>>());
    let stored: HashSet<Uuid> = stream.iter().map(|e| e.event_id).collect();
    assert_eq!(stored, ids);
}

#[tokio::test]
async fn an_append_at_a_version_the_stream_has_not_reached_is_a_conflict() {
    let db = TestDb::new().await.unwrap();
    append_one(&db, "gap", 0, &event(1)).await.unwrap();
    let err = append_one(&db, "gap", 5, &event(2)).await.unwrap_err();
    assert!(
        matches!(err, StoreError::VersionConflict { expected: 5, .. }),
        "{err}"
    );
}

#[tokio::test]
async fn events_reject_update_delete_and_truncate() {
    let db = TestDb::new().await.unwrap();
    append_one(&db, "s", 0, &event(1)).await.unwrap();
    let client = db.client().await.unwrap();
    for sql in [
        "UPDATE events SET payload = '{}'",
        "DELETE FROM events",
        "TRUNCATE events",
    ] {
        let err = client.batch_execute(sql).await.unwrap_err();
        let message = err
            .as_db_error()
            .map(|d| d.message().to_owned())
            .unwrap_or_default();
        assert!(message.contains("append-only"), "{sql}: {err}");
    }
    assert_eq!(read_everything(&db).await.len(), 1);
}

#[tokio::test]
async fn appending_the_same_event_again_reports_the_original_position() {
    let db = TestDb::new().await.unwrap();
    let e = event(1);
    let first = append_one(&db, "idem", 0, &e).await.unwrap();
    assert!(!first.duplicate);
    let again = append_one(&db, "idem", 0, &e).await.unwrap();
    assert!(again.duplicate);
    assert_eq!(again.positions, first.positions);
    assert_eq!(again.version, 1);
    let mut changed = e.clone();
    changed.payload = json!({"n": 2});
    let err = append_one(&db, "idem", 1, &changed).await.unwrap_err();
    assert!(matches!(err, StoreError::EventIdReused { event_id } if event_id == e.event_id));
    assert_eq!(read_everything(&db).await.len(), 1);
}

#[tokio::test]
async fn batch_append_writes_ten_thousand_events_in_one_copy() {
    let db = TestDb::new().await.unwrap();
    let events: Vec<StreamEvent> = (0..12_000)
        .map(|n| StreamEvent {
            stream_id: format!("coupon-{n}"),
            stream_version: 1,
            event: event(n),
        })
        .collect();
    let mut client = db.pool.get().await.unwrap();
    let tx = client.transaction().await.unwrap();
    assert_eq!(store::copy_events(&tx, &events).await.unwrap(), 12_000);
    tx.commit().await.unwrap();
    let all = read_everything(&db).await;
    assert_eq!(all.len(), 12_000);
    assert_eq!(all[11_999].event_id, events[11_999].event.event_id);

    // A batch that reuses a (stream, version) fails whole and writes nothing.
    let clash = [
        StreamEvent {
            stream_id: "coupon-new".into(),
            stream_version: 1,
            event: event(0),
        },
        StreamEvent {
            stream_id: "coupon-7".into(),
            stream_version: 1,
            event: event(0),
        },
    ];
    let tx = client.transaction().await.unwrap();
    let err = store::copy_events(&tx, &clash).await.unwrap_err();
    assert!(matches!(err, StoreError::VersionConflict { .. }), "{err}");
    drop(tx);
    assert_eq!(read_everything(&db).await.len(), 12_000);
}

/// docs/design.md §4: a reader by position never skips an event whose transaction
/// committed late, and never stalls on one that rolled back.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn reads_never_skip_a_late_commit_nor_stall_on_a_rollback() {
    let db = TestDb::new().await.unwrap();
    let mut held_client = db.pool.get().await.unwrap();
    let held = held_client.transaction().await.unwrap();
    let late = event(0);
    store::append(&held, "held", 0, std::slice::from_ref(&late))
        .await
        .unwrap();

    let mut later = Vec::new();
    for n in 1..=100 {
        let e = event(n);
        append_one(&db, &format!("later-{n}"), 0, &e).await.unwrap();
        later.push(e.event_id);
    }
    assert!(
        read_everything(&db).await.is_empty(),
        "nothing past the open transaction"
    );

    held.commit().await.unwrap();
    let all = read_everything(&db).await;
    let ids: Vec<Uuid> = all.iter().map(|e| e.event_id).collect();
    let expected: Vec<Uuid> = std::iter::once(late.event_id).chain(later).collect();
    assert_eq!(ids, expected, "all 101, the late commit first, in order");
    let cursor = all.last().unwrap().cursor();

    // A transaction that rolls back holds the reader only while it is open.
    let mut doomed_client = db.pool.get().await.unwrap();
    let doomed = doomed_client.transaction().await.unwrap();
    store::append(&doomed, "doomed", 0, &[event(0)])
        .await
        .unwrap();
    let after = event(1);
    append_one(&db, "after-rollback", 0, &after).await.unwrap();
    let client = db.pool.get().await.unwrap();
    assert!(read_all(&**client, cursor, 10).await.unwrap().is_empty());
    doomed.rollback().await.unwrap();
    let next = tokio::time::timeout(Duration::from_secs(5), async {
        loop {
            let page = read_all(&**client, cursor, 10).await.unwrap();
            if !page.is_empty() {
                return page;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    })
    .await
    .expect("the reader moves on after a rollback");
    assert_eq!(
        next.iter().map(|e| e.event_id).collect::<Vec<_>>(),
        vec![after.event_id]
    );
}

/// Xids are cluster-wide: another database's open transaction must not hold
/// this database's readers back.
#[tokio::test]
async fn another_databases_open_transaction_does_not_hold_readers_back() {
    let db = TestDb::new().await.unwrap();
    let other = TestDb::new().await.unwrap();
    let mut other_client = other.pool.get().await.unwrap();
    let other_tx = other_client.transaction().await.unwrap();
    store::append(&other_tx, "elsewhere", 0, &[event(0)])
        .await
        .unwrap();

    append_one(&db, "here", 0, &event(1)).await.unwrap();
    assert_eq!(read_everything(&db).await.len(), 1);
    other_tx.rollback().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_stream_reads_in_version_order_even_when_its_next_writer_started_first() {
    let db = TestDb::new().await.unwrap();
    append_one(&db, "s", 0, &event(1)).await.unwrap();
    // The writer of version 3 takes its transaction id first (any write does)...
    let mut early_client = db.pool.get().await.unwrap();
    let early = early_client.transaction().await.unwrap();
    early
        .execute(
            "INSERT INTO inbox (consumer, message_id) VALUES ('t', 'x')",
            &[],
        )
        .await
        .unwrap();
    // ...then version 2 is written and committed by a younger transaction...
    append_one(&db, "s", 1, &event(2)).await.unwrap();
    // ...and only then does the older transaction append version 3.
    store::append(&early, "s", 2, &[event(3)]).await.unwrap();
    early.commit().await.unwrap();

    let versions: Vec<i32> = read_everything(&db)
        .await
        .iter()
        .map(|e| e.stream_version)
        .collect();
    assert_eq!(versions, [1, 2, 3]);
}

/// A write-model table whose rows carry their stream's version, for
/// `append_with_row`.
async fn widgets(db: &TestDb) {
    let client = db.pool.get().await.unwrap();
    client
        .batch_execute(
            "CREATE TABLE widgets (id text PRIMARY KEY, version int NOT NULL);
             INSERT INTO widgets VALUES ('w-1', 0);",
        )
        .await
        .unwrap();
}

const BUMP: &str =
    "UPDATE widgets SET version = version + 1 WHERE id = $1 AND version = $2 RETURNING version";

async fn bump(db: &TestDb, expected: i32, e: &NewEvent) -> Result<i64, StoreError> {
    let mut client = db.pool.get().await.unwrap();
    let tx = client.transaction().await.unwrap();
    let position =
        store::append_with_row(&tx, BUMP, &[&"w-1", &expected], "widget-w-1", expected, e).await?;
    tx.commit().await.unwrap();
    Ok(position)
}

async fn widget_version(db: &TestDb) -> i32 {
    let client = db.pool.get().await.unwrap();
    let row = client
        .query_one("SELECT version FROM widgets WHERE id = 'w-1'", &[])
        .await
        .unwrap();
    row.get(0)
}

#[tokio::test]
async fn a_row_write_and_its_event_are_one_append_at_the_rows_new_version() {
    let db = TestDb::new().await.unwrap();
    widgets(&db).await;
    let (first, second) = (event(1), event(2));
    let p1 = bump(&db, 0, &first).await.unwrap();
    let p2 = bump(&db, 1, &second).await.unwrap();
    assert!(p2 > p1);
    let client = db.pool.get().await.unwrap();
    let stream = read_stream(&**client, "widget-w-1", 0, 10).await.unwrap();
    let got: Vec<_> = stream
        .iter()
        .map(|e| (e.event_id, e.stream_version, e.position))
        .collect();
    assert_eq!(got, vec![(first.event_id, 1, p1), (second.event_id, 2, p2)]);
    assert_eq!(widget_version(&db).await, 2);
}

#[tokio::test]
async fn a_row_write_whose_guard_fails_or_whose_stream_is_ahead_writes_nothing() {
    let db = TestDb::new().await.unwrap();
    widgets(&db).await;
    // The row is at 0, not 3: the guard matches nothing.
    let stale = bump(&db, 3, &event(1)).await;
    assert!(matches!(
        stale,
        Err(StoreError::VersionConflict { expected: 3, .. })
    ));
    // The stream got ahead of its row (a writer that bypassed the row): the
    // unique (stream, version) key refuses, and the row's bump rolls back.
    append_one(&db, "widget-w-1", 0, &event(2)).await.unwrap();
    let behind = bump(&db, 0, &event(3)).await;
    assert!(matches!(
        behind,
        Err(StoreError::VersionConflict { expected: 0, .. })
    ));
    assert_eq!(widget_version(&db).await, 0);
    let client = db.pool.get().await.unwrap();
    assert_eq!(
        read_stream(&**client, "widget-w-1", 0, 10)
            .await
            .unwrap()
            .len(),
        1
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn only_one_of_32_concurrent_row_writes_at_a_version_wins() {
    let db = Arc::new(TestDb::new().await.unwrap());
    widgets(&db).await;
    let tasks: Vec<_> = (0..32)
        .map(|n| {
            let db = db.clone();
            tokio::spawn(async move { bump(&db, 0, &event(n)).await })
        })
        .collect();
    let mut won = 0;
    for t in tasks {
        match t.await.unwrap() {
            Ok(_) => won += 1,
            Err(StoreError::VersionConflict { .. }) => {}
            Err(e) => panic!("unexpected: {e}"),
        }
    }
    assert_eq!(won, 1);
    assert_eq!(widget_version(&db).await, 1);
    let client = db.pool.get().await.unwrap();
    assert_eq!(
        read_stream(&**client, "widget-w-1", 0, 100)
            .await
            .unwrap()
            .len(),
        1
    );
}
