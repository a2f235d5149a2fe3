//! Consumer lag as operators see it (`queries::lag`, behind `/metrics` and
//! `/readyz`): events after each consumer's cursor and the age of the
//! oldest of them, zero once it caught up.

use chrono::Utc;
use ledger::messaging::routes::PUBLIC;
use ledger::queries::lag::consumer_lags;
use ledger::store::{self, NewEvent};
use ledger::testkit::TestDb;
use serde_json::json;
use uuid::Uuid;

async fn append(db: &TestDb, stream: &str, n: usize) -> Vec<i64> {
    let mut client = db.pool.get().await.unwrap();
    let tx = client.transaction().await.unwrap();
    let events: Vec<NewEvent> = (0..n)
        .map(|i| NewEvent {
            event_id: Uuid::now_v7(),
            event_type: ledger::domain::EventType::ChannelCreated,
            schema_version: 1,
            payload: json!({ "n": i }),
            metadata: json!({ "actor": "test" }),
            occurred_at: Utc::now(),
        })
        .collect();
    store::append(&tx, stream, 0, &events).await.unwrap();
    let rows = tx
        .query("SELECT position FROM events ORDER BY tx_id, position", &[])
        .await
        .unwrap();
    tx.commit().await.unwrap();
    rows.iter().map(|r| r.get(0)).collect()
}

async fn lag_of(db: &TestDb, consumer: &str) -> (i64, f64) {
    let client = db.pool.get().await.unwrap();
    let lags = consumer_lags(&**client).await.unwrap();
    let lag = lags.iter().find(|l| l.consumer == consumer).unwrap();
    (lag.events_behind, lag.seconds_behind)
}

#[tokio::test]
async fn each_consumer_is_as_far_behind_as_its_cursor_says() {
    let db = TestDb::new().await.unwrap();
    let positions = append(&db, "test-1", 10).await;
    tokio::time::sleep(std::time::Duration::from_millis(300)).await;
    let consumers = [
        "relay:coupon.events",
        "relay:coupon.events.balances",
        "relay:coupon.events.template_stats",
        "relay:coupon.events.notify",
        "balances",
        "template_stats",
        "notify",
    ];
    for consumer in consumers {
        let (behind, secs) = lag_of(&db, consumer).await;
        assert_eq!(behind, 10, "{consumer}: nothing handled yet");
        assert!(
            secs >= 0.3,
            "{consumer}: the oldest waits since the append ({secs})"
        );
    }
    let client = db.client().await.unwrap();
    client
        .execute(
            "INSERT INTO relay_cursors (name, tx_id, position)
             SELECT $1, tx_id, position FROM events WHERE position = $2",
            &[&PUBLIC.name, &positions[9]],
        )
        .await
        .unwrap();
    client
        .execute(
            "INSERT INTO projection_positions (projection, position, applied) VALUES ('balances', $1, 4)",
            &[&positions[3]],
        )
        .await
        .unwrap();
    assert_eq!(
        lag_of(&db, "relay:coupon.events").await,
        (0, 0.0),
        "the public route caught up"
    );
    assert_eq!(
        lag_of(&db, "relay:coupon.events.balances").await.0,
        10,
        "each route has its own cursor"
    );
    assert_eq!(
        lag_of(&db, "balances").await.0,
        6,
        "balances applied 4 of 10"
    );
    assert_eq!(lag_of(&db, "template_stats").await.0, 10);
}
