//! An outsider's queue bound to `coupon.events` with a small bound, filled
//! and not drained: the relay keeps feeding the ledger's own queues at
//! their normal pace without a single duplicate, the projections keep up,
//! and once the outsider drains it gets every event exactly once
//! (docs/event-pipeline.md).

use std::collections::HashSet;
use std::time::Duration;

use ledger::messaging::topology::PROJECTION_QUEUES;
use tests::scenario::claim_many;
use tests::subscriber::{self, Subscriber, bounded, depth};
use tests::workers::{Workers, projections_caught_up};
use tests::{Env, Server};
use uuid::Uuid;

const OUTSIDER: &str = "analytics.small";
const BOUND: i64 = 100;

async fn stored_ids(env: &Env) -> HashSet<Uuid> {
    let client = env.db.client().await.unwrap();
    let rows = client
        .query("SELECT event_id FROM events", &[])
        .await
        .unwrap();
    rows.iter().map(|r| r.get(0)).collect()
}

/// Polls until the relay's route `name` has published every stored event.
async fn route_caught_up(env: &Env, name: &str, timeout: Duration) -> bool {
    let client = env.db.client().await.unwrap();
    let deadline = tokio::time::Instant::now() + timeout;
    while tokio::time::Instant::now() < deadline {
        let row = client
            .query_one(
                "SELECT count(*) FROM events e
                  WHERE NOT EXISTS (SELECT 1 FROM relay_cursors r WHERE r.name = $1
                                       AND (e.tx_id, e.position) <= (r.tx_id, r.position))",
                &[&name],
            )
            .await
            .unwrap();
        if row.get::<_, i64>(0) == 0 {
            return true;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    false
}

#[tokio::test(flavor = "multi_thread")]
async fn a_full_outsider_queue_stops_nothing_duplicates_nothing_and_loses_nothing() {
    let env = Env::new().await.unwrap();
    let server = Server::start(&env).await.unwrap();
    let (_connection, channel) = subscriber::declare(&env, OUTSIDER, true, bounded(BOUND))
        .await
        .unwrap();
    let relay = Workers::start(&env, "relay").unwrap();
    let sn = server.active_template(5_000, 1).await.unwrap();
    claim_many(&env, &sn, 0..1_500, 100).await.unwrap();
    let stored = stored_ids(&env).await;

    // The ledger's own routes reach the head while the outsider is full.
    for queue in PROJECTION_QUEUES {
        assert!(
            route_caught_up(&env, queue, Duration::from_secs(60)).await,
            "the route to {queue} kept publishing"
        );
        let held = subscriber::peek_events(&env, queue, stored.len() + 1)
            .await
            .unwrap();
        assert_eq!(
            held.keys().copied().collect::<HashSet<_>>(),
            stored,
            "{queue} holds every event"
        );
        assert!(
            held.values().all(|n| *n == 1),
            "{queue} holds each once: no duplicate caused by the full queue"
        );
    }
    assert_eq!(depth(&channel, OUTSIDER).await.unwrap(), BOUND as u32);
    assert!(
        !route_caught_up(&env, "coupon.events", Duration::from_secs(1)).await,
        "the public route waits for the outsider"
    );

    // The projections drain their queues while the outsider stays full.
    let projections = Workers::start(&env, "balances,template_stats,notify").unwrap();
    projections_caught_up(&env, Duration::from_secs(60))
        .await
        .unwrap();
    assert_eq!(depth(&channel, OUTSIDER).await.unwrap(), BOUND as u32);

    // The outsider drains: it gets every event, each exactly once.
    let mut outsider = Subscriber::with_args(&env, OUTSIDER, true, bounded(BOUND))
        .await
        .unwrap();
    let got = outsider
        .receive_until(Duration::from_secs(30), |got| got.len() >= stored.len())
        .await
        .unwrap();
    let ids = subscriber::ids(&got);
    assert_eq!(ids, stored, "the outsider caught up from the store");
    assert_eq!(got.len(), ids.len(), "and got no event twice");
    assert!(route_caught_up(&env, "coupon.events", Duration::from_secs(10)).await);
    projections.terminate().await.unwrap();
    relay.terminate().await.unwrap();
}
