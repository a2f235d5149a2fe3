//! Pruning by age (`ledger::exactly_once::retention`) against the real Postgres.

use chrono::{Duration, Utc};
use ledger::exactly_once::retention::{self, PRUNE_BATCH, Pruned};
use ledger::testkit::TestDb;

/// `n` rows of each pruned table, `age` old.
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
             SELECT 'admin', $1 || i, '\\x00', $3 FROM generate_series(1, $2::bigint) i",
            &[&tag, &n, &at],
        )
        .await
        .unwrap();
    client
        .execute(
            "INSERT INTO inbox (consumer, message_id, processed_at)
             SELECT 'balances', $1 || i, $3 FROM generate_series(1, $2::bigint) i",
            &[&tag, &n, &at],
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
    // A minute inside and a minute outside each table's retention.
    for (tag, age) in [
        ("nonce-in", retention::NONCE_RETENTION - margin),
        ("key-in", retention::IDEMPOTENCY_RETENTION - margin),
        ("key-out", retention::IDEMPOTENCY_RETENTION + margin),
        ("inbox-in", retention::INBOX_RETENTION - margin),
        ("inbox-out", retention::INBOX_RETENTION + margin),
    ] {
        rows_aged(&db, tag, 1, age).await;
    }
    let client = db.pool.get().await.unwrap();
    let pruned = retention::prune(&**client, Utc::now()).await.unwrap();
    // Nonces: all but nonce-in; keys: key-out and older; inbox: inbox-out.
    let expected = Pruned {
        nonces: 4,
        idempotency_keys: 3,
        inbox: 1,
    };
    assert_eq!(pruned, expected);
    assert_eq!(count(&db, "channel_nonces").await, 1);
    assert_eq!(count(&db, "idempotency_keys").await, 2);
    assert_eq!(count(&db, "inbox").await, 4);
    let again = retention::prune(&**client, Utc::now()).await.unwrap();
    assert_eq!(again, Pruned::default());
}

#[tokio::test]
async fn one_prune_deletes_at_most_a_batch_per_table() {
    let db = TestDb::new().await.unwrap();
    // Past every table's retention.
    let age = retention::INBOX_RETENTION + Duration::hours(1);
    rows_aged(&db, "old-", PRUNE_BATCH + 5, age).await;
    let client = db.pool.get().await.unwrap();
    let batch = u64::try_from(PRUNE_BATCH).unwrap();
    let first = retention::prune(&**client, Utc::now()).await.unwrap();
    let full = Pruned {
        nonces: batch,
        idempotency_keys: batch,
        inbox: batch,
    };
    assert_eq!(first, full);
    assert!(first.full());
    let second = retention::prune(&**client, Utc::now()).await.unwrap();
    let rest = Pruned {
        nonces: 5,
        idempotency_keys: 5,
        inbox: 5,
    };
    assert_eq!(second, rest);
    assert!(!second.full());
    for table in ["channel_nonces", "idempotency_keys", "inbox"] {
        assert_eq!(count(&db, table).await, 0, "{table}");
    }
}
