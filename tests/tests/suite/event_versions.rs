//! Event versions (docs/design.md "Event versions"): a store holding
//! `CouponUsed` at v1 (as the build before wrote it) and at v2 (this
//! build's confirm) is read whole: the projections apply both, `replay
//! --verify` finds 0 differences, `audit verify` passes on the stored
//! bytes, and a backfilled outside queue gets each event as stored, with
//! the version it was stored with in its headers.

use std::time::Duration;

use serde_json::Value;
use tests::event_versions::{confirm_as_v1, lock, stored_uses};
use tests::scenario::{checkout, claim_many};
use tests::subscriber::{Schemas, Subscriber};
use tests::workers::{Workers, ledger, projections_caught_up, replay_both_ways};
use tests::{Env, Server};

const SEALER_ARGS: [&str; 4] = ["--checkpoint-events", "50", "--checkpoint-secs", "1"];

async fn count(env: &Env, sql: &str) -> i64 {
    let client = env.db.client().await.unwrap();
    client.query_one(sql, &[]).await.unwrap().get(0)
}

#[tokio::test(flavor = "multi_thread")]
async fn a_store_of_v1_and_v2_coupon_uses_replays_verifies_and_backfills_as_stored() {
    let env = Env::new().await.unwrap();
    let server = Server::start(&env).await.unwrap();
    let workers = Workers::start(&env, "relay,balances,template_stats").unwrap();
    let sn = server.active_template(100, 1).await.unwrap();
    let coupons = claim_many(&env, &sn, 0..4, 4).await.unwrap();
    // The build before: two orders confirmed with CouponUsed v1.
    for (i, coupon) in coupons.iter().take(2).enumerate() {
        let order = lock(&server, &format!("u{i}"), *coupon).await.unwrap();
        confirm_as_v1(&env, &order).await.unwrap();
    }
    // This build: two more confirmed through the API, written as v2.
    for (i, coupon) in coupons.iter().enumerate().skip(2) {
        checkout(&server, &format!("u{i}"), *coupon, true)
            .await
            .unwrap();
    }
    let uses = stored_uses(&env).await.unwrap();
    let versions: Vec<i16> = uses.iter().map(|u| u.0).collect();
    assert_eq!(versions, [1, 1, 2, 2], "{uses:?}");
    for (version, payload) in &uses {
        let discount = payload.get("discount");
        match version {
            1 => assert_eq!(discount, None, "a v1 event is stored as written: {payload}"),
            _ => assert_eq!(discount, Some(&Value::from("20.00")), "{payload}"),
        }
    }

    // The ledger's own readers upcast: the projections apply the v1 uses
    // (nothing dead-lettered), and the replay rebuilds every table from both.
    projections_caught_up(&env, Duration::from_secs(30))
        .await
        .unwrap();
    workers.terminate().await.unwrap();
    let used = "SELECT count(*) FROM coupons WHERE status = 'used'";
    assert_eq!(count(&env, used).await, 4);
    let (code, stdout) = replay_both_ways(&env, &["replay", "--verify"]).await;
    assert_eq!(code, Some(0), "{stdout}");
    assert!(stdout.contains(" 0 differences"), "{stdout}");

    // The hash chain is over the stored bytes, v1 as written.
    let events = count(&env, "SELECT count(*) FROM events").await;
    let sealer = Workers::start_with(&env, "sealer", &SEALER_ARGS).unwrap();
    let sealed = "SELECT count(*) FROM event_seals";
    for _ in 0..600 {
        if count(&env, sealed).await >= events {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert_eq!(count(&env, sealed).await, events, "every event sealed");
    tokio::time::sleep(Duration::from_millis(1_500)).await; // a checkpoint
    sealer.terminate().await.unwrap();
    let out = ledger(&env, &["audit", "verify"]).await.unwrap();
    let printed = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{printed}");
    assert!(
        printed.contains(&format!("{events} events verified")),
        "{printed}"
    );

    // An outside queue backfilled from the store gets the stored bytes,
    // each with the version it was stored with.
    let queue = "analytics.versions";
    let mut late = Subscriber::new(&env, queue, false).await.unwrap();
    let out = ledger(
        &env,
        &[
            "events",
            "publish",
            "--from-position",
            "1",
            "--queue",
            queue,
        ],
    )
    .await
    .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let wanted = usize::try_from(events).unwrap();
    let got = late
        .receive_until(Duration::from_secs(10), |got| got.len() >= wanted)
        .await
        .unwrap();
    assert_eq!(got.len(), wanted);
    let mut schemas = Schemas::default();
    let mut uses = Vec::new();
    for r in &got {
        schemas.check(r).unwrap();
        let stored = r.body["schema_version"].as_i64().unwrap();
        assert_eq!(r.schema_version.map(i64::from), Some(stored), "{r:?}");
        assert_eq!(r.schema, format!("{}.v{stored}.json", r.event_type));
        if r.event_type == "CouponUsed" {
            uses.push((stored, r.schema.clone(), r.body["payload"].clone()));
        }
    }
    uses.sort_by_key(|u| u.0);
    let seen: Vec<(i64, &str)> = uses.iter().map(|u| (u.0, u.1.as_str())).collect();
    assert_eq!(
        seen,
        [
            (1, "CouponUsed.v1.json"),
            (1, "CouponUsed.v1.json"),
            (2, "CouponUsed.v2.json"),
            (2, "CouponUsed.v2.json"),
        ]
    );
    for (version, _, payload) in &uses {
        // Not upcast on the way out: a v1 body has no discount.
        assert_eq!(
            payload.get("discount").is_some(),
            *version == 2,
            "{payload}"
        );
    }
}
