//! Hot and cold coupons (docs/design.md §16), end to end over a scripted
//! history weeks old: `ledger archive` moves the ended coupons (and only
//! them) to `coupons_archive`; a read by id and a wallet asked with
//! `?include_archived=true` still find them, a plain wallet does not; a
//! refund of an order whose coupon went cold brings it back to `coupons`;
//! a purge deletes cold rows for good but never an event, and replay
//! --verify and audit verify pass after each step. The archiver worker
//! moves what is due by `LEDGER_ARCHIVE_AFTER_DAYS` on its own.

use std::time::Duration;

use chrono::{DateTime, TimeZone, Utc};
use serde_json::Value;
use tests::script::{Script, TZ, template};
use tests::workers::{Workers, assert_verifies_once_caught_up, ledger};
use tests::{Env, Server};
use uuid::Uuid;

/// Noon of 2026-11-0`day` in the business time zone: weeks before the
/// test runs, so what ended then is due for any `--before` up to now.
fn noon(day: u32) -> DateTime<Utc> {
    TZ.with_ymd_and_hms(2026, 11, day, 12, 0, 0)
        .unwrap()
        .with_timezone(&Utc)
}

struct History {
    /// Used on order o1 (policy restore).
    used: Uuid,
    /// Voided by an operator.
    voided: Uuid,
    /// Still unused, valid for years: never archived.
    live: Uuid,
    /// Locked on order o2, in flight: never archived.
    locked: Uuid,
}

async fn script(env: &Env, server: &Server) -> History {
    let r = server
        .activate_template(&template("20.00", "restore", 100, noon(1), 2))
        .await
        .unwrap();
    let long = server
        .activate_template(&template("20.00", "restore", 100, noon(1), 3650))
        .await
        .unwrap();
    let mut s = Script::new(env).await.unwrap();
    let used = s.claim(noon(2), &r, "ann", None).await.unwrap();
    let voided = s.claim(noon(2), &r, "bob", None).await.unwrap();
    let live = s.claim(noon(2), &long, "ann", None).await.unwrap();
    let locked = s.claim(noon(2), &long, "bob", None).await.unwrap();
    s.lock(noon(2), "o1", "ann", &[("l1", 2, "100.00")], used, "180.00")
        .await
        .unwrap();
    s.confirm(noon(2), "o1").await.unwrap();
    s.void(noon(3), voided).await.unwrap();
    s.lock(
        noon(3),
        "o2",
        "bob",
        &[("l1", 2, "100.00")],
        locked,
        "180.00",
    )
    .await
    .unwrap();
    History {
        used,
        voided,
        live,
        locked,
    }
}

async fn run(env: &Env, args: &[&str]) -> (Option<i32>, String) {
    let out = ledger(env, args).await.unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&out.stderr);
    (out.status.code(), format!("{stdout}{stderr}"))
}

/// Where each coupon is: (in coupons, in coupons_archive).
async fn place(env: &Env, id: Uuid) -> (bool, bool) {
    let client = env.db.client().await.unwrap();
    let row = client
        .query_one(
            "SELECT EXISTS (SELECT 1 FROM coupons WHERE id = $1),
                    EXISTS (SELECT 1 FROM coupons_archive WHERE id = $1)",
            &[&id],
        )
        .await
        .unwrap();
    (row.get(0), row.get(1))
}

async fn wallet_total(server: &Server, user: &str, archived: bool) -> i64 {
    let path = format!("/v1/users/{user}/coupons?include_archived={archived}");
    let (status, body) = server.service_get(&path).await.unwrap();
    assert_eq!(status, 200, "{body}");
    body["total"].as_i64().unwrap()
}

async fn events_of(server: &Server, id: Uuid) -> usize {
    let (status, body) = server
        .service_get(&format!("/v1/coupons/{id}/events"))
        .await
        .unwrap();
    assert_eq!(status, 200, "{body}");
    body.as_array().map_or(0, Vec::len)
}

async fn audit_verifies(env: &Env) {
    let (code, out) = run(env, &["audit", "verify"]).await;
    assert_eq!(code, Some(0), "{out}");
}

#[tokio::test(flavor = "multi_thread")]
async fn ended_coupons_move_cold_stay_readable_thaw_for_a_refund_and_purge_keeps_the_events() {
    let env = Env::new().await.unwrap();
    let server = Server::start(&env).await.unwrap();
    let h = script(&env, &server).await;

    let (code, out) = run(&env, &["archive", "--dry-run", "--before", "now"]).await;
    assert_eq!(code, Some(0), "{out}");
    assert!(out.contains("2 ended coupons"), "{out}");
    assert_eq!(
        place(&env, h.used).await,
        (true, false),
        "a dry run moves nothing"
    );

    let (code, out) = run(&env, &["archive", "--before", "now"]).await;
    assert_eq!(code, Some(0), "{out}");
    assert!(out.contains("moved 2 ended coupons"), "{out}");
    for id in [h.used, h.voided] {
        assert_eq!(place(&env, id).await, (false, true), "{id} is cold");
    }
    for id in [h.live, h.locked] {
        assert_eq!(place(&env, id).await, (true, false), "{id} stays hot");
    }
    // Run again: nothing more is due.
    let (_, out) = run(&env, &["archive", "--before", "now"]).await;
    assert!(out.contains("moved 0 ended coupons"), "{out}");

    // Found by id wherever it is; a wallet shows it only when asked.
    let (status, body) = server
        .service_get(&format!("/v1/coupons/{}", h.used))
        .await
        .unwrap();
    assert_eq!((status, body["status"].as_str()), (200, Some("used")));
    assert_eq!(
        wallet_total(&server, "ann", false).await,
        1,
        "only the live one"
    );
    assert_eq!(wallet_total(&server, "ann", true).await, 2);
    assert_eq!(events_of(&server, h.used).await, 3, "issued, locked, used");
    assert_verifies_once_caught_up(&env).await;
    audit_verifies(&env).await;

    // A refund of o1 needs its coupon: it comes back to coupons, restored.
    let mut s = Script::new(&env).await.unwrap();
    s.refund(Utc::now(), "o1", "l1", 2).await.unwrap();
    assert_eq!(place(&env, h.used).await, (true, false), "thawed");
    let (_, body) = server
        .service_get(&format!("/v1/coupons/{}", h.used))
        .await
        .unwrap();
    assert_ne!(body["status"], Value::from("used"), "{body}");
    assert_eq!(events_of(&server, h.used).await, 4);

    purge_then_verify(&env, &server, &h).await;
}

/// A purge: refused without --confirm (nothing deleted), then the voided
/// coupon's row goes for good while its events and the ledger's checks stay.
async fn purge_then_verify(env: &Env, server: &Server, h: &History) {
    let (code, out) = run(env, &["archive", "purge", "--before", "now"]).await;
    assert_eq!(code, Some(2), "{out}");
    assert!(
        out.contains("1 archived coupons") && out.contains("--confirm"),
        "{out}"
    );
    assert_eq!(place(env, h.voided).await, (false, true));
    let (code, out) = run(
        env,
        &[
            "archive",
            "purge",
            "--before",
            "2999-01-01T00:00:00Z",
            "--confirm",
        ],
    )
    .await;
    assert_eq!(code, Some(1), "a purge never reaches the future: {out}");

    let (code, out) = run(env, &["archive", "purge", "--before", "now", "--confirm"]).await;
    assert_eq!(code, Some(0), "{out}");
    assert!(out.contains("purged 1 archived coupons"), "{out}");
    assert_eq!(place(env, h.voided).await, (false, false));
    let (status, _) = server
        .service_get(&format!("/v1/coupons/{}", h.voided))
        .await
        .unwrap();
    assert_eq!(status, 404, "no row any more");
    assert_eq!(
        events_of(server, h.voided).await,
        2,
        "issued, voided: the events stay"
    );
    assert_verifies_once_caught_up(env).await;
    audit_verifies(env).await;

    // Replay still refuses a row missing that the horizon does not cover.
    let client = env.db.client().await.unwrap();
    client
        .execute("DELETE FROM coupons WHERE id = $1", &[&h.live])
        .await
        .unwrap();
    let (code, out) = run(env, &["replay", "--verify"]).await;
    assert_eq!(code, Some(1), "{out}");
    assert!(out.contains(&h.live.to_string()), "{out}");
}

#[tokio::test(flavor = "multi_thread")]
async fn the_archiver_worker_moves_what_ended_longer_ago_than_the_setting() {
    let env = Env::new().await.unwrap();
    let server = Server::start(&env).await.unwrap();
    let h = script(&env, &server).await;
    // Ended on 2026-11-02 and -03, weeks ago: not yet due by the default
    // 90 days.
    let default = Workers::start(&env, "archiver").unwrap();
    tokio::time::sleep(Duration::from_secs(3)).await;
    default.terminate().await.unwrap();
    assert_eq!(place(&env, h.used).await, (true, false));

    let now = Workers::start_setting(&env, "archiver", &[], &[("LEDGER_ARCHIVE_AFTER_DAYS", "0")])
        .unwrap();
    let deadline = tokio::time::Instant::now() + Duration::from_secs(30);
    while place(&env, h.voided).await != (false, true) {
        assert!(
            tokio::time::Instant::now() < deadline,
            "the archiver moved nothing"
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    now.terminate().await.unwrap();
    assert_eq!(place(&env, h.used).await, (false, true));
    assert_eq!(place(&env, h.live).await, (true, false));
    let metrics = server.metrics().await.unwrap();
    assert!(
        metrics.contains("couponledger_cold_coupons_due"),
        "{metrics}"
    );
}

/// Bytes of every index of `coupons`.
async fn hot_index_bytes(env: &Env) -> i64 {
    let client = env.db.client().await.unwrap();
    client
        .query_one(
            "SELECT sum(pg_relation_size(indexrelid))::bigint FROM pg_index
              WHERE indrelid = 'coupons'::regclass",
            &[],
        )
        .await
        .unwrap()
        .get(0)
}

/// A DELETE never shrinks an index: an archive that moved most of
/// `coupons` away rebuilds its indexes (online), so the hot paths walk
/// indexes the size of what stays hot; a trickle after it rebuilds nothing.
#[tokio::test]
async fn an_archive_that_empties_most_of_coupons_gives_its_indexes_their_space_back() {
    let env = Env::new().await.unwrap();
    let server = Server::start(&env).await.unwrap();
    let h = script(&env, &server).await;
    tests::cold_store::add_ended(&env.db.client().await.unwrap(), 40_000).await;
    let before = hot_index_bytes(&env).await;

    let (code, out) = run(&env, &["archive"]).await;
    assert_eq!(code, Some(0), "{out}");
    assert!(out.contains("moved 40000 ended coupons"), "{out}");
    assert!(out.contains("rebuilt"), "{out}");
    let after = hot_index_bytes(&env).await;
    assert!(
        after * 4 < before,
        "the indexes keep {after} of {before} bytes"
    );

    let (code, out) = run(&env, &["archive", "--before", "now"]).await;
    assert_eq!(code, Some(0), "{out}");
    assert!(out.contains("moved 2 ended coupons"), "{out}");
    assert!(
        !out.contains("rebuilt"),
        "a trickle rebuilds nothing: {out}"
    );
    for id in [h.live, h.locked] {
        assert_eq!(place(&env, id).await, (true, false), "{id} stays hot");
    }
}
