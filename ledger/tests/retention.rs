//! Pruning by age (`ledger::retention`) against the real Postgres.

use chrono::{Duration, Utc};
use ledger::retention::{self, PRUNE_BATCH, Pruned};
use ledger::testkit::TestDb;

/// Rows of each pruned table `age` old: `n` nonces, one key, one inbox row.
async fn rows_aged(db: &TestDb, tag: &str, n: i64, age: Duration) {
    let client = db.pool.get().await.unwrap();
    let at = Utc::now() - age;
    client
        .execute(
            "INSERT INTO channel_nonces (channel_id, nonce, seen_at)
             SELECT gen_random_uuid(), $1 || i, $3 FROM generate_series(1, $2::bigint) i",
            &[&tag, &n, &at],
        )
        .await
        .unwrap();
    client
        .execute(
            "INSERT INTO idempotency_keys (scope, key, request_hash, created_at)
             VALUES ('admin', $1, '\\x00', $2)",
            &[&tag, &at],
        )
        .await
        .unwrap();
    client
        .execute(
            "INSERT INTO inbox (consumer, message_id, processed_at) VALUES ('balances', $1, $2)",
            &[&tag, &at],
        )
        .await
        .unwrap();
}

async fn count(db: &TestDb, table: &str) -> i64 {
    let client = db.pool.get().await.unwrap();
    let sql = format!("SELECT count(*) FROM {table}");
    client.query_one(&sql, &[]).await.unwrap().get(0)
}

#[tokio::test]
async fn each_table_loses_only_rows_older_than_its_retention() {
    let db = TestDb::new().await.unwrap();
    let margin = Duration::minutes(1);
    // Just inside each retention: kept. Just outside: pruned.
    rows_aged(&db, "nonce-kept", 1, retention::NONCE_RETENTION - margin).await;
    rows_aged(&db, "all-old", 1, retention::INBOX_RETENTION + margin).await;
    rows_aged(&db, "key-old", 1, retention::IDEMPOTENCY_RETENTION + margin).await;
    let client = db.pool.get().await.unwrap();
    let pruned = retention::prune(&**client, Utc::now()).await.unwrap();
    // The 25-hour-old rows: the key is pruned, the nonce too, the inbox row kept.
    let expected = Pruned {
        nonces: 2,
        idempotency_keys: 2,
        inbox: 1,
    };
    assert_eq!(pruned, expected);
    assert_eq!(count(&db, "channel_nonces").await, 1);
    assert_eq!(count(&db, "idempotency_keys").await, 1);
    assert_eq!(count(&db, "inbox").await, 2);
    let again = retention::prune(&**client, Utc::now()).await.unwrap();
    assert_eq!(again, Pruned::default());
}

#[tokio::test]
async fn one_prune_deletes_at_most_a_batch_per_table() {
    let db = TestDb::new().await.unwrap();
    rows_aged(&db, "old-", PRUNE_BATCH + 5, Duration::hours(1)).await;
    let client = db.pool.get().await.unwrap();
    let batch = u64::try_from(PRUNE_BATCH).unwrap();
    let first = retention::prune(&**client, Utc::now()).await.unwrap();
    assert_eq!(first.nonces, batch);
    assert!(first.full());
    let second = retention::prune(&**client, Utc::now()).await.unwrap();
    assert_eq!(second.nonces, 5);
    assert!(!second.full());
    assert_eq!(count(&db, "channel_nonces").await, 0);
}
