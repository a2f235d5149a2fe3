//! The hash chain against tampering by someone who can disable the
//! triggers (docs/design.md §11): each kind of edit is detected and named with its
//! position; an attacker who recomputes the whole chain is caught by the
//! head finance kept outside.

use crate::sealing::seal_all;
use chrono::Utc;
use ledger::audit::chain::Hash;
use ledger::audit::seal::{Head, checkpoints};
use ledger::audit::verify::{Finding, Verified, verify};
use ledger::store::{self, NewEvent};
use ledger::testkit::TestDb;
use serde_json::json;
use uuid::Uuid;

/// `streams` streams of `per_stream` events each, one transaction per stream.
async fn append(db: &TestDb, streams: usize, per_stream: usize) {
    let mut client = db.pool.get().await.unwrap();
    for s in 0..streams {
        let tx = client.transaction().await.unwrap();
        let events: Vec<NewEvent> = (0..per_stream)
            .map(|i| NewEvent {
                event_id: Uuid::now_v7(),
                event_type: ledger::domain::EventType::ChannelCreated,
                schema_version: 1,
                payload: json!({ "n": i, "amount": format!("{s}.{i:02}") }),
                metadata: json!({ "actor": "test" }),
                occurred_at: Utc::now(),
            })
            .collect();
        store::append(&tx, &format!("test-{s}"), 0, &events)
            .await
            .unwrap();
        tx.commit().await.unwrap();
    }
}

async fn verdict(db: &TestDb, expect: Option<Hash>) -> Result<Verified, Finding> {
    verify(&db.config, None, expect, |_| {}).await.unwrap()
}

/// Runs `sql` as an attacker would: with the append-only triggers off.
async fn tamper(db: &TestDb, sql: &str) {
    let client = db.client().await.unwrap();
    let off = "ALTER TABLE events DISABLE TRIGGER USER;
               ALTER TABLE event_seals DISABLE TRIGGER USER;
               ALTER TABLE seal_checkpoints DISABLE TRIGGER USER;";
    client.batch_execute(off).await.unwrap();
    client.batch_execute(sql).await.unwrap();
}

/// The position of the `n`th event in the chain (1-based).
async fn position_at(db: &TestDb, seq: i64) -> i64 {
    let client = db.client().await.unwrap();
    let row = client
        .query_one("SELECT position FROM event_seals WHERE seq = $1", &[&seq])
        .await
        .unwrap();
    row.get(0)
}

async fn sealed_log(db: &TestDb) -> Head {
    append(db, 10, 5).await;
    seal_all(db, 7, true).await
}

#[tokio::test]
async fn an_untouched_log_verifies_from_the_start_and_from_a_checkpoint() {
    let db = TestDb::new().await.unwrap();
    let at = sealed_log(&db).await;
    assert_eq!(at.seq, 50);
    let v = verdict(&db, Some(at.hash)).await.unwrap();
    assert_eq!((v.events, v.head), (50, at.hash));
    assert_eq!(v.checkpoints, 8, "one per batch of 7");
    let client = db.client().await.unwrap();
    let third = &checkpoints(&client).await.unwrap()[2];
    assert_eq!((third.first_seq, third.last_seq), (15, 21));
    assert!(third.to_string().starts_with("checkpoint 3 at "));
    let from = verify(&db.config, Some(3), None, |_| {})
        .await
        .unwrap()
        .unwrap();
    assert_eq!((from.events, from.head), (29, at.hash));
    assert_eq!(
        verify(&db.config, Some(99), None, |_| {}).await.unwrap(),
        Err(Finding::NoSuchCheckpoint { id: 99 })
    );
}

#[tokio::test]
async fn a_changed_payload_field_is_named_by_its_position() {
    let db = TestDb::new().await.unwrap();
    sealed_log(&db).await;
    let p = position_at(&db, 23).await;
    tamper(&db, &format!(
        "UPDATE events SET payload = jsonb_set(payload, '{{amount}}', '\"999.00\"') WHERE position = {p}"
    ))
    .await;
    assert_eq!(
        verdict(&db, None).await,
        Err(Finding::EventAltered {
            seq: 23,
            position: p
        })
    );
}

#[tokio::test]
async fn a_deleted_event_is_named_by_its_position() {
    let db = TestDb::new().await.unwrap();
    sealed_log(&db).await;
    let p = position_at(&db, 31).await;
    tamper(&db, &format!("DELETE FROM events WHERE position = {p}")).await;
    assert_eq!(
        verdict(&db, None).await,
        Err(Finding::EventMissing {
            seq: 31,
            position: p
        })
    );
}

#[tokio::test]
async fn an_event_inserted_with_a_plausible_position_is_found() {
    let db = TestDb::new().await.unwrap();
    sealed_log(&db).await;
    // Position 1,000 is free; the attacker also copies an old transaction id
    // so that the row sorts among the sealed ones.
    let p = position_at(&db, 10).await;
    tamper(
        &db,
        &format!(
            "INSERT INTO events (position, event_id, stream_id, stream_version, event_type,
                             schema_version, payload, metadata, occurred_at, tx_id)
         OVERRIDING SYSTEM VALUE
         SELECT 1000, gen_random_uuid(), 'test-forged', 1, 'TestHappened', 1, '{{\"n\": 0}}',
                '{{}}', now(), tx_id FROM events WHERE position = {p}"
        ),
    )
    .await;
    assert_eq!(
        verdict(&db, None).await,
        Err(Finding::EventInserted { position: 1000 })
    );
}

#[tokio::test]
async fn two_swapped_payloads_are_found_at_the_first() {
    let db = TestDb::new().await.unwrap();
    sealed_log(&db).await;
    let (a, b) = (position_at(&db, 12).await, position_at(&db, 40).await);
    tamper(
        &db,
        &format!(
            "UPDATE events e SET payload = o.payload
           FROM events o
          WHERE (e.position, o.position) IN (({a}, {b}), ({b}, {a}))"
        ),
    )
    .await;
    assert_eq!(
        verdict(&db, None).await,
        Err(Finding::EventAltered {
            seq: 12,
            position: a
        })
    );
}

#[tokio::test]
async fn a_rewritten_checkpoint_is_named() {
    let db = TestDb::new().await.unwrap();
    sealed_log(&db).await;
    tamper(
        &db,
        "UPDATE seal_checkpoints SET head = sha256('forged') WHERE id = 4",
    )
    .await;
    let p = position_at(&db, 28).await;
    assert_eq!(
        verdict(&db, None).await,
        Err(Finding::CheckpointDiffers {
            id: 4,
            last_seq: 28,
            position: p
        })
    );
}

#[tokio::test]
async fn a_recomputed_chain_is_caught_by_the_head_kept_outside() {
    let db = TestDb::new().await.unwrap();
    let kept = sealed_log(&db).await.hash;
    let p = position_at(&db, 5).await;
    // The attacker edits an event, then rebuilds every seal and checkpoint.
    tamper(
        &db,
        &format!(
            "UPDATE events SET payload = '{{\"n\": 0, \"amount\": \"0.01\"}}' WHERE position = {p};
         DELETE FROM seal_checkpoints; DELETE FROM event_seals;"
        ),
    )
    .await;
    let rebuilt = seal_all(&db, 7, true).await;
    assert_ne!(rebuilt.hash, kept);
    assert!(verdict(&db, None).await.is_ok(), "consistent with itself");
    assert_eq!(
        verdict(&db, Some(kept)).await,
        Err(Finding::ExpectedHeadAbsent { expected: kept })
    );
}

#[tokio::test]
async fn the_seals_and_checkpoints_are_append_only() {
    let db = TestDb::new().await.unwrap();
    sealed_log(&db).await;
    let client = db.client().await.unwrap();
    for sql in [
        "UPDATE event_seals SET hash = sha256('x') WHERE seq = 1",
        "DELETE FROM event_seals WHERE seq = 50",
        "TRUNCATE event_seals CASCADE",
        "UPDATE seal_checkpoints SET head = sha256('x')",
        "DELETE FROM seal_checkpoints",
    ] {
        let e = client.batch_execute(sql).await.unwrap_err();
        let message = e.as_db_error().map(|d| d.message().to_owned());
        assert!(
            message
                .as_deref()
                .is_some_and(|m| m.contains("append-only")),
            "{sql}: {message:?}"
        );
    }
}
