//! The partitioned event store against the real Postgres (docs/design.md
//! §16): an event id and a (stream, version) stay unique whatever
//! partition their twin lies in, through every way of appending; a stream
//! and the commit-safe order read across partitions; partitions are made
//! ahead and refuse TRUNCATE like the table.

use chrono::Utc;
use ledger::store::{
    self, GlobalCursor, NewEvent, StoreError, StreamEvent, partitions, read_stream,
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

async fn append(
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

async fn copy(db: &TestDb, events: &[StreamEvent]) -> Result<u64, StoreError> {
    let mut client = db.pool.get().await.unwrap();
    let tx = client.transaction().await.unwrap();
    let written = store::copy_events(&tx, events).await?;
    tx.commit().await.unwrap();
    Ok(written)
}

/// The partition holding `position`.
async fn partition_of(db: &TestDb, position: i64) -> String {
    let client = db.pool.get().await.unwrap();
    let sql = "SELECT tableoid::regclass::text FROM events WHERE position = $1";
    client.query_one(sql, &[&position]).await.unwrap().get(0)
}

/// The next appends land in the partition after the first one.
async fn next_partition(db: &TestDb) {
    let client = db.pool.get().await.unwrap();
    let size = partitions::size(&**client).await.unwrap();
    client
        .execute("SELECT setval('events_position_seq', $1)", &[&size])
        .await
        .unwrap();
}

#[tokio::test]
async fn twins_in_another_partition_are_refused_by_every_way_of_appending() {
    let db = TestDb::new().await.unwrap();
    let first = event(1);
    let out = append(&db, "twin-1", 0, &first).await.unwrap();
    assert_eq!(partition_of(&db, out.positions[0]).await, "events_p0");
    next_partition(&db).await;

    // The same id in another stream: its twin is in the first partition.
    let mut twin = event(2);
    twin.event_id = first.event_id;
    let refused = append(&db, "twin-2", 0, &twin).await.unwrap_err();
    assert!(
        matches!(refused, StoreError::EventIdReused { event_id } if event_id == first.event_id),
        "{refused}"
    );
    let batch = [StreamEvent {
        stream_id: "twin-3".into(),
        stream_version: 1,
        event: twin.clone(),
    }];
    let refused = copy(&db, &batch).await.unwrap_err();
    assert!(
        matches!(refused, StoreError::EventIdReused { event_id } if event_id == first.event_id),
        "{refused}"
    );

    // Version 1 of the first stream again, with a new id, both ways.
    let refused = append(&db, "twin-1", 0, &event(3)).await.unwrap_err();
    assert!(
        matches!(refused, StoreError::VersionConflict { .. }),
        "{refused}"
    );
    let batch = [StreamEvent {
        stream_id: "twin-1".into(),
        stream_version: 1,
        event: event(4),
    }];
    let refused = copy(&db, &batch).await.unwrap_err();
    assert!(
        matches!(refused, StoreError::VersionConflict { .. }),
        "{refused}"
    );

    // The stream goes on in the new partition; read back across both.
    let second = append(&db, "twin-1", 1, &event(5)).await.unwrap();
    assert_eq!(
        partition_of(&db, second.positions[0]).await,
        "events_p50000000"
    );
    let batch = [StreamEvent {
        stream_id: "twin-1".into(),
        stream_version: 2,
        event: event(6),
    }];
    let refused = copy(&db, &batch).await.unwrap_err();
    assert!(
        matches!(refused, StoreError::VersionConflict { .. }),
        "{refused}"
    );

    let client = db.pool.get().await.unwrap();
    let stream = read_stream(&**client, "twin-1", 0, 10).await.unwrap();
    let versions: Vec<i32> = stream.iter().map(|e| e.stream_version).collect();
    assert_eq!(versions, [1, 2]);
    let all = ledger::testkit::read_all_settled(&**client, GlobalCursor::START, 100)
        .await
        .unwrap();
    assert_eq!(all.len(), 2, "nothing refused was written");
    let ids: i64 = client
        .query_one("SELECT count(*) FROM event_ids", &[])
        .await
        .unwrap()
        .get(0);
    assert_eq!(ids, 2);
}

/// A plain INSERT into `events`, past the store: the twin of an event id or
/// of a (stream, version) whose original lies in another partition.
const RAW_INSERT: &str = "INSERT INTO events (event_id, stream_id, stream_version, event_type,
                          schema_version, payload, occurred_at)
                 VALUES ($1, $2, $3, 'ChannelCreated', 1, '{}', now())";

/// Runs [`RAW_INSERT`] as `role` (none: the connection's own, a superuser)
/// in a transaction of its own; the SQLSTATE and constraint it failed on.
async fn raw_insert(
    db: &TestDb,
    role: Option<&str>,
    id: Uuid,
    stream: &str,
    version: i32,
) -> Result<(), (String, Option<String>)> {
    let mut client = db.pool.get().await.unwrap();
    let tx = client.transaction().await.unwrap();
    if let Some(role) = role {
        tx.batch_execute(&format!("SET LOCAL ROLE {role}"))
            .await
            .unwrap();
    }
    let done = tx.execute(RAW_INSERT, &[&id, &stream, &version]).await;
    match done {
        Ok(_) => {
            tx.commit().await.unwrap();
            Ok(())
        }
        Err(e) => {
            let db_error = e.as_db_error().expect("a database error");
            let constraint = db_error.constraint().map(str::to_owned);
            Err((db_error.code().code().to_owned(), constraint))
        }
    }
}

/// The database itself refuses a twin, whoever writes it and however: a
/// plain INSERT of the superuser the tests run as, and of a plain role
/// that may only insert (docs/design.md §16, "Uniqueness the database
/// keeps"). A plain INSERT of a new stream's next versions goes in, with
/// its keys.
#[tokio::test]
async fn raw_inserts_of_twins_are_refused_by_the_database_for_every_role() {
    let db = TestDb::new().await.unwrap();
    let first = append(&db, "raw-1", 0, &event(1)).await.unwrap();
    let original = event(2);
    append(&db, "raw-1", 1, &original).await.unwrap();
    assert_eq!(partition_of(&db, first.positions[0]).await, "events_p0");
    next_partition(&db).await;
    let role = "couponledger_test_inserter";
    let client = db.pool.get().await.unwrap();
    // Roles are the cluster's: made once, by whichever test comes first.
    let _ = client
        .batch_execute(&format!("CREATE ROLE {role} NOLOGIN"))
        .await;
    client
        .batch_execute(&format!(
            "GRANT SELECT, INSERT ON events, event_ids, streams TO {role};
             GRANT UPDATE ON streams TO {role};
             GRANT USAGE ON SEQUENCE events_position_seq TO {role};"
        ))
        .await
        .unwrap();
    let unique = |constraint: &str| Err(("23505".to_owned(), Some(constraint.to_owned())));
    for who in [None, Some(role)] {
        let twin_version = raw_insert(&db, who, Uuid::now_v7(), "raw-1", 2).await;
        assert_eq!(twin_version, unique("streams_pkey"), "{who:?}");
        let twin_first = raw_insert(&db, who, Uuid::now_v7(), "raw-1", 1).await;
        assert_eq!(twin_first, unique("streams_pkey"), "{who:?}");
        let twin_id = raw_insert(&db, who, original.event_id, "raw-other", 1).await;
        assert_eq!(twin_id, unique("event_ids_pkey"), "{who:?}");
        let skipped = raw_insert(&db, who, Uuid::now_v7(), "raw-1", 4).await;
        assert_eq!(
            skipped,
            unique("streams_pkey"),
            "a version skipped: {who:?}"
        );
    }
    // The next version, written plainly, goes in and moves the stream on.
    raw_insert(&db, Some(role), Uuid::now_v7(), "raw-1", 3)
        .await
        .unwrap();
    raw_insert(&db, None, Uuid::now_v7(), "raw-new", 1)
        .await
        .unwrap();
    let version: i32 = client
        .query_one("SELECT version FROM streams WHERE stream_id = 'raw-1'", &[])
        .await
        .unwrap()
        .get(0);
    assert_eq!(version, 3);
    let (events, ids): (i64, i64) = {
        let r = client
            .query_one(
                "SELECT (SELECT count(*) FROM events), (SELECT count(*) FROM event_ids)",
                &[],
            )
            .await
            .unwrap();
        (r.get(0), r.get(1))
    };
    assert_eq!(
        (events, ids),
        (4, 4),
        "every event has its key, no twin went in"
    );
    // The keys themselves cannot be forgotten or moved back.
    for sql in [
        "DELETE FROM event_ids",
        "UPDATE streams SET version = 1 WHERE stream_id = 'raw-1'",
        "DELETE FROM streams",
        "TRUNCATE event_ids",
    ] {
        let refused = client.batch_execute(sql).await.unwrap_err();
        assert_eq!(
            refused.as_db_error().map(|e| e.code().code()),
            Some("42501"),
            "{sql}"
        );
    }
}

/// Sixteen plain INSERTs of a stream's next version at once, each holding
/// its transaction open a moment after its insert: the stream's row,
/// locked by the first, settles them. Exactly one commits; the others
/// wait for it, then find the version taken.
#[tokio::test]
async fn racing_plain_inserts_of_one_version_leave_exactly_one() {
    let db = TestDb::new().await.unwrap();
    append(&db, "race-1", 0, &event(1)).await.unwrap();
    let racers = (0..16).map(|_| async {
        let mut client = db.pool.get().await.unwrap();
        let tx = client.transaction().await.unwrap();
        let inserted = tx
            .execute(RAW_INSERT, &[&Uuid::now_v7(), &"race-1", &2_i32])
            .await;
        match inserted {
            Ok(_) => {
                tokio::time::sleep(std::time::Duration::from_millis(100)).await;
                tx.commit().await.map(|()| None)
            }
            Err(e) => Ok(e
                .as_db_error()
                .and_then(|d| d.constraint().map(str::to_owned))),
        }
    });
    let outcomes = futures_util::future::join_all(racers).await;
    let won = outcomes.iter().filter(|o| matches!(o, Ok(None))).count();
    let refused = outcomes
        .iter()
        .filter(|o| matches!(o, Ok(Some(c)) if c == "streams_pkey"))
        .count();
    assert_eq!((won, refused), (1, 15), "{outcomes:?}");
    let client = db.pool.get().await.unwrap();
    let stream = read_stream(&**client, "race-1", 0, 10).await.unwrap();
    let versions: Vec<i32> = stream.iter().map(|e| e.stream_version).collect();
    assert_eq!(versions, [1, 2]);
}

/// The same events appended again are still a no-op reporting their first
/// positions, when those lie in an earlier partition.
#[tokio::test]
async fn a_replayed_append_reports_its_first_positions_across_partitions() {
    let db = TestDb::new().await.unwrap();
    let e = event(1);
    let first = append(&db, "again-1", 0, &e).await.unwrap();
    next_partition(&db).await;
    let again = append(&db, "again-1", 0, &e).await.unwrap();
    assert!(again.duplicate);
    assert_eq!(again.positions, first.positions);
}

#[tokio::test]
async fn partitions_are_made_ahead_and_refuse_truncate() {
    let db = TestDb::new().await.unwrap();
    let client = db.pool.get().await.unwrap();
    let before = partitions::list(&**client).await.unwrap();
    let ranged: Vec<_> = before.iter().filter(|p| p.range.is_some()).collect();
    assert!(ranged.len() >= 5, "the first and four ahead: {before:?}");
    assert_eq!(ranged[0].number, Some(0));
    // Appends far ahead: maintenance makes the partitions after them.
    let size = partitions::size(&**client).await.unwrap();
    client
        .execute(
            "SELECT setval('events_position_seq', $1)",
            &[&(size * 4 + 1)],
        )
        .await
        .unwrap();
    drop(client);
    append(&db, "far-1", 0, &event(1)).await.unwrap();
    let mut client = db.pool.get().await.unwrap();
    let tx = client.transaction().await.unwrap();
    assert!(partitions::make_ahead(&tx).await.unwrap());
    tx.commit().await.unwrap();
    let after = partitions::list(&**client).await.unwrap();
    let last = after.iter().filter_map(|p| p.range).map(|r| r.1).max();
    assert_eq!(
        last,
        Some(size * 9),
        "four partitions after the one written: {after:?}"
    );
    for p in &after {
        let refused = client
            .batch_execute(&format!("TRUNCATE {}", p.name))
            .await
            .unwrap_err();
        let message = refused.as_db_error().map(|d| d.message().to_owned());
        let message = message.unwrap_or_else(|| refused.to_string());
        assert!(message.contains("append-only"), "{}: {message}", p.name);
    }
}
