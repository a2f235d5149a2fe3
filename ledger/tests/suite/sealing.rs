//! Sealing a test's whole store, as the sealer does.

use std::time::{Duration, Instant};

use ledger::audit::seal::{Head, checkpoint, head, seal, unsealed};
use ledger::testkit::{TestDb, count};

/// Seals everything committed, `batch` events a transaction, with a
/// checkpoint after each batch when `checkpoints`; the head.
///
/// The commit-safe read stops below the oldest transaction open on the
/// whole server, any test's: an empty read right after a commit can come
/// back empty (it failed the suite once, beside 500 other tests). So an
/// empty read waits (at most 30 s) until every stored event is sealed, as
/// the sealer itself reads again.
pub async fn seal_all(db: &TestDb, batch: i64, checkpoints: bool) -> Head {
    let mut client = db.pool.get().await.unwrap();
    let mut at = head(&**client).await.unwrap();
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let events = unsealed(&**client, &at, batch).await.unwrap();
        if events.is_empty() {
            let stored = count(&**client, "SELECT count(*) FROM events", &[]).await;
            if at.seq >= stored {
                return at;
            }
            assert!(
                Instant::now() < deadline,
                "{stored} events, {} sealed",
                at.seq
            );
            tokio::time::sleep(Duration::from_millis(20)).await;
            continue;
        }
        let tx = client.transaction().await.unwrap();
        at = seal(&*tx, &at, &events).await.unwrap();
        if checkpoints {
            checkpoint(&*tx, &at).await.unwrap();
        }
        tx.commit().await.unwrap();
    }
}
