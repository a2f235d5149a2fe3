//! Idempotency keys and the consumer inbox against the real Postgres.

use std::sync::Arc;

use ledger::exactly_once::idempotency::{
    self, Claim, IdempotencyError, StoredResponse, request_hash,
};
use ledger::exactly_once::inbox;
use ledger::testkit::TestDb;
use serde_json::json;

#[tokio::test]
async fn same_key_same_request_replays_the_first_response() {
    let db = TestDb::new().await.unwrap();
    let mut client = db.pool.get().await.unwrap();
    let hash = request_hash(&[b"POST /v1/claims", br#"{"user_id":"u1"}"#]);
    let response = StoredResponse {
        status: 201,
        body: json!({"id": "c-1"}),
    };

    let tx = client.transaction().await.unwrap();
    assert_eq!(
        idempotency::claim(&tx, "svc", "k-1", &hash).await.unwrap(),
        Claim::Fresh
    );
    idempotency::record_response(&tx, "svc", "k-1", &response)
        .await
        .unwrap();
    tx.commit().await.unwrap();

    let tx = client.transaction().await.unwrap();
    let again = idempotency::claim(&tx, "svc", "k-1", &hash).await.unwrap();
    assert_eq!(again, Claim::Replay(response));

    let other = request_hash(&[b"POST /v1/claims", br#"{"user_id":"u2"}"#]);
    let err = idempotency::claim(&tx, "svc", "k-1", &other)
        .await
        .unwrap_err();
    assert!(matches!(err, IdempotencyError::KeyReused));
    drop(tx);

    // Keys are per scope: another caller may use the same key.
    let tx = client.transaction().await.unwrap();
    assert_eq!(
        idempotency::claim(&tx, "admin", "k-1", &other)
            .await
            .unwrap(),
        Claim::Fresh
    );
}

#[tokio::test]
async fn a_rolled_back_claim_leaves_the_key_free() {
    let db = TestDb::new().await.unwrap();
    let mut client = db.pool.get().await.unwrap();
    let hash = request_hash(&[b"x"]);
    let tx = client.transaction().await.unwrap();
    assert_eq!(
        idempotency::claim(&tx, "svc", "k", &hash).await.unwrap(),
        Claim::Fresh
    );
    tx.rollback().await.unwrap();
    let tx = client.transaction().await.unwrap();
    assert_eq!(
        idempotency::claim(&tx, "svc", "k", &hash).await.unwrap(),
        Claim::Fresh
    );
}

#[tokio::test]
async fn malformed_keys_are_refused() {
    for key in ["", "has space", &"k".repeat(256), "naïve"] {
        assert!(
            matches!(
                idempotency::validate_key(key),
                Err(IdempotencyError::InvalidKey)
            ),
            "{key:?}"
        );
    }
    assert!(idempotency::validate_key("order-1:retry").is_ok());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn of_concurrent_requests_with_one_key_exactly_one_does_the_work() {
    let db = Arc::new(TestDb::new().await.unwrap());
    let hash = request_hash(&[b"same"]);
    let tasks: Vec<_> = (0..16)
        .map(|n| {
            let db = db.clone();
            tokio::spawn(async move {
                let mut client = db.pool.get().await.unwrap();
                let tx = client.transaction().await.unwrap();
                let claim = idempotency::claim(&tx, "svc", "once", &hash).await.unwrap();
                if claim == Claim::Fresh {
                    let body = json!({ "winner": n });
                    let r = StoredResponse { status: 200, body };
                    idempotency::record_response(&tx, "svc", "once", &r)
                        .await
                        .unwrap();
                }
                tx.commit().await.unwrap();
                claim
            })
        })
        .collect();
    let mut fresh = 0;
    let mut replays = Vec::new();
    for t in tasks {
        match t.await.unwrap() {
            Claim::Fresh => fresh += 1,
            Claim::Replay(r) => replays.push(r),
        }
    }
    assert_eq!(fresh, 1);
    assert_eq!(replays.len(), 15);
    assert!(
        replays.windows(2).all(|w| w[0] == w[1]),
        "all replay the winner's response"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn the_inbox_lets_a_message_take_effect_once_per_consumer() {
    let db = Arc::new(TestDb::new().await.unwrap());
    let tasks: Vec<_> = (0..16)
        .map(|_| {
            let db = db.clone();
            tokio::spawn(async move {
                let mut client = db.pool.get().await.unwrap();
                let tx = client.transaction().await.unwrap();
                let first = inbox::claim(&tx, "balances", "m-1").await.unwrap();
                tx.commit().await.unwrap();
                first
            })
        })
        .collect();
    let mut firsts = 0;
    for t in tasks {
        firsts += t.await.unwrap() as usize;
    }
    assert_eq!(firsts, 1);
    let mut client = db.pool.get().await.unwrap();
    let tx = client.transaction().await.unwrap();
    assert!(
        inbox::claim(&tx, "notify", "m-1").await.unwrap(),
        "another consumer's own inbox"
    );
}
