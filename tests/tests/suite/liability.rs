//! `ledger report liability` over a scripted history of four business days
//! (issues, locks, confirms, partial and full refunds under both refund
//! policies, a void, expiries, a quota raise): the report as of each day's
//! end equals the table worked out by hand below, with the liability
//! snapshots and without them, and as of now it equals the live stats.

use std::time::Duration;

use chrono::{DateTime, TimeZone, Utc};
use ledger::audit::seal;
use ledger::queries::liability::build_next_snapshot;
use serde_json::Value;
use tests::script::{Script, TZ, template};
use tests::workers::{Workers, ledger, projections_caught_up};
use tests::{Env, Server};
use uuid::Uuid;

/// Noon of 2026-11-0`day` in the business time zone.
fn noon(day: u32) -> DateTime<Utc> {
    TZ.with_ymd_and_hms(2026, 11, day, 12, 0, 0)
        .unwrap()
        .with_timezone(&Utc)
}

/// One report row: issued, unused, locked, used, refunded, expired, voided,
/// face value outstanding, cost.
type Row = (
    i64,
    i64,
    i64,
    i64,
    i64,
    i64,
    i64,
    &'static str,
    &'static str,
);

/// The two templates at the end of each day: R (20 off, policy restore)
/// and X (30 off, policy reissue). Worked out from the script by hand.
const BY_DAY: [(u32, Row, Row); 4] = [
    // Day 2: R r1..r4 issued (quota 4), r1 used on o1 (cost 20); X x1..x3
    // issued, x2 locked on o2.
    (
        2,
        (4, 3, 0, 1, 0, 0, 0, "60.00", "20.00"),
        (3, 2, 1, 0, 0, 0, 0, "90.00", "0.00"),
    ),
    // Day 3: o2 confirmed (X cost 30); R quota raised, r5 issued; half of
    // o1 refunded (reverses 10 of r1's 20, r1 stays used); r2 voided.
    (
        3,
        (5, 3, 0, 1, 0, 0, 1, "60.00", "10.00"),
        (3, 2, 0, 1, 0, 0, 0, "60.00", "30.00"),
    ),
    // Day 4: the rest of o1 refunded (cost 0, r1 restored: unused); o2
    // refunded in full (X cost 0, x2 refunded, reissued as x2'); r3 locked on o3.
    (
        4,
        (5, 3, 1, 0, 0, 0, 1, "80.00", "0.00"),
        (4, 3, 0, 0, 1, 0, 0, "90.00", "0.00"),
    ),
    // Day 5: o3 cancelled; r1, r3, r4 (issued day 2, valid to the end of
    // day 4) expire, as do x1, x3 and x2' (a reissue keeps the validity of
    // the coupon it replaces: docs/design.md §15); r5 used on o4 (cost 20).
    (
        5,
        (5, 0, 0, 1, 0, 3, 1, "0.00", "20.00"),
        (4, 0, 0, 0, 1, 3, 0, "0.00", "0.00"),
    ),
];

struct History {
    r: String,
    x: String,
    channel: Uuid,
}

/// Runs the script of [`BY_DAY`], with a seal checkpoint and its liability
/// snapshot after days 2 and 4: a report as of day 3 starts from the first
/// and folds what followed it by then (a confirm whose lock came before,
/// refunds and a void of coupons issued before); as of day 5, from the
/// second and the tail.
async fn script(env: &Env, server: &Server) -> History {
    let begin = noon(1);
    let r = server
        .activate_template(&template("20.00", "restore", 4, begin, 2))
        .await
        .unwrap();
    let x = server
        .activate_template(&template("30.00", "reissue", 10, begin, 2))
        .await
        .unwrap();
    let channel: Uuid = server.channel_for(&r).await.unwrap().id.parse().unwrap();
    let mut s = Script::new(env).await.unwrap();
    let mut rs = vec![];
    for user in ["a", "b", "c", "d"] {
        rs.push(s.claim(noon(2), &r, user, Some(channel)).await.unwrap());
    }
    let mut xs = vec![];
    for user in ["a", "b", "c"] {
        xs.push(s.claim(noon(2), &x, user, None).await.unwrap());
    }
    s.lock(noon(2), "o1", "a", &[("l1", 2, "100.00")], rs[0], "180.00")
        .await
        .unwrap();
    s.confirm(noon(2), "o1").await.unwrap();
    s.lock(noon(2), "o2", "b", &[("l1", 1, "150.00")], xs[1], "120.00")
        .await
        .unwrap();
    checkpoint(env).await;

    s.confirm(noon(3), "o2").await.unwrap();
    s.raise_quota(noon(3), &r, 6).await.unwrap();
    let r5 = s.claim(noon(3), &r, "e", Some(channel)).await.unwrap();
    s.refund(noon(3), "o1", "l1", 1).await.unwrap();
    s.void(noon(3), rs[1]).await.unwrap();

    s.refund(noon(4), "o1", "l1", 1).await.unwrap();
    s.refund(noon(4), "o2", "l1", 1).await.unwrap();
    s.lock(noon(4), "o3", "c", &[("l1", 1, "120.00")], rs[2], "100.00")
        .await
        .unwrap();
    checkpoint(env).await;

    s.cancel(noon(5), "o3").await.unwrap();
    assert_eq!(
        s.expire(noon(5)).await.unwrap(),
        6,
        "r1, r3, r4, x1, x3, x2'"
    );
    s.lock(noon(5), "o4", "e", &[("l1", 3, "50.00")], r5, "130.00")
        .await
        .unwrap();
    s.confirm(noon(5), "o4").await.unwrap();
    History { r, x, channel }
}

/// Seals every event so far, checkpoints and builds the snapshot.
async fn checkpoint(env: &Env) {
    let mut client = env.db.client().await.unwrap();
    let (head, events) = all_unsealed(&client).await;
    let tx = client.transaction().await.unwrap();
    let next = seal::seal(&tx, &head, &events).await.unwrap();
    seal::checkpoint(&tx, &next)
        .await
        .unwrap()
        .expect("new events");
    tx.commit().await.unwrap();
    let built = build_next_snapshot(&mut client, TZ).await.unwrap();
    assert!(built.is_some());
}

/// The head and every event after it. The sealer reads only below the
/// store's commit horizon, which another database's transaction ending at
/// the wrong moment can hold back for an instant, so this waits (a bounded
/// while) until the events it reads are all the store holds.
async fn all_unsealed(
    client: &tokio_postgres::Client,
) -> (seal::Head, Vec<ledger::audit::chain::Sealable>) {
    let stored: i64 = client
        .query_one("SELECT count(*) FROM events", &[])
        .await
        .unwrap()
        .get(0);
    for _ in 0..600 {
        let head = seal::head(client).await.unwrap();
        let events = seal::unsealed(client, &head, 10_000).await.unwrap();
        if head.seq + events.len() as i64 >= stored {
            return (head, events);
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    panic!("the sealer never saw all {stored} events");
}

/// The report as JSON rows by their group.
async fn report(env: &Env, args: &[&str]) -> Vec<(String, Row)> {
    report_from(env, args).await.0
}

/// The rows, and what the report started from (its summary line).
async fn report_from(env: &Env, args: &[&str]) -> (Vec<(String, Row)>, String) {
    let mut all = vec!["report", "liability", "--format", "json"];
    all.extend_from_slice(args);
    let out = ledger(env, &all).await.unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    let body: Value = serde_json::from_slice(&out.stdout).unwrap();
    let rows = body["rows"].as_array().unwrap();
    let rows = rows
        .iter()
        .map(|r| (r["group"].as_str().unwrap().to_owned(), row(r)));
    (rows.collect(), stderr.into_owned())
}

fn row(r: &Value) -> Row {
    let n = |k: &str| r[k].as_i64().unwrap();
    let money = |k: &str| -> &'static str { r[k].as_str().unwrap().to_owned().leak() };
    (
        n("issued"),
        n("unused"),
        n("locked"),
        n("used"),
        n("refunded"),
        n("expired"),
        n("void"),
        money("face_value_outstanding"),
        money("cost"),
    )
}

fn find<'a>(rows: &'a [(String, Row)], group: &str) -> &'a Row {
    &rows
        .iter()
        .find(|(g, _)| g == group)
        .unwrap_or_else(|| panic!("no row {group}: {rows:?}"))
        .1
}

#[tokio::test(flavor = "multi_thread")]
async fn the_report_as_of_each_day_end_equals_the_hand_computed_table_and_now_the_stats() {
    let env = Env::new().await.unwrap();
    let server = Server::start(&env).await.unwrap();
    let h = script(&env, &server).await;
    for (day, r, x) in BY_DAY {
        let as_of = format!("2026-11-{day:02}");
        let from = [
            "checkpoint 1's snapshot",
            "checkpoint 1's snapshot",
            "checkpoint 2's snapshot",
            "checkpoint 2's snapshot",
        ];
        for mode in [
            &["--as-of", &as_of][..],
            &["--as-of", &as_of, "--from-start"],
        ] {
            let (rows, summary) = report_from(&env, mode).await;
            let expected = if mode.len() == 3 {
                "the start"
            } else {
                from[day as usize - 2]
            };
            assert!(
                summary.contains(&format!("after {expected}")),
                "{as_of} {mode:?}: {summary}"
            );
            assert_eq!(find(&rows, &h.r), &r, "R as of {as_of} {mode:?}");
            assert_eq!(find(&rows, &h.x), &x, "X as of {as_of} {mode:?}");
        }
    }
    // Before anything was issued: nothing, not even a row.
    let rows = report(&env, &["--as-of", "2026-11-01"]).await;
    assert_eq!(
        rows.iter().filter(|(g, _)| g != "total").count(),
        0,
        "{rows:?}"
    );
    // The same instant to the microsecond: what happened at it counts.
    let rows = report(&env, &["--as-of", &noon(2).to_rfc3339()]).await;
    assert_eq!(find(&rows, &h.x).0, 3);

    let by_channel = report(&env, &["--as-of", "now", "--by", "channel"]).await;
    let channel = h.channel.to_string();
    assert_eq!(
        find(&by_channel, &channel),
        &(5, 0, 0, 1, 0, 3, 1, "0.00", "20.00")
    );
    // X's coupons (claimed without a channel) and the reissue x2', which
    // keeps x2's channel and its expiry.
    assert_eq!(
        find(&by_channel, "none"),
        &(4, 0, 0, 0, 1, 3, 0, "0.00", "0.00")
    );
    let by_day = report(&env, &["--as-of", "now", "--by", "day"]).await;
    assert_eq!(
        find(&by_day, "2026-11-02"),
        &(7, 0, 0, 0, 1, 5, 1, "0.00", "0.00")
    );
    assert_eq!(
        find(&by_day, "2026-11-03"),
        &(1, 0, 0, 1, 0, 0, 0, "0.00", "20.00")
    );
    // x2', issued on day 4 with x2's validity: expired by now.
    assert_eq!(
        find(&by_day, "2026-11-04"),
        &(1, 0, 0, 0, 0, 1, 0, "0.00", "0.00")
    );

    let workers = Workers::start(&env, "relay,balances,template_stats").unwrap();
    projections_caught_up(&env, Duration::from_secs(60))
        .await
        .unwrap();
    let now = report(&env, &["--as-of", "now"]).await;
    for sn in [&h.r, &h.x] {
        let answer = server.admin(reqwest::Method::GET, &format!("/v1/templates/{sn}/stats"));
        let answer = answer.send().await.unwrap();
        let status = answer.status().as_u16();
        let stats: Value = answer.json().await.unwrap();
        assert_eq!(status, 200, "{stats}");
        let live = (
            stats["issued"].as_i64().unwrap(),
            stats["by_status"]["unused"]["count"].as_i64().unwrap(),
            stats["locked"].as_i64().unwrap(),
            stats["used"].as_i64().unwrap(),
            stats["refunded"].as_i64().unwrap(),
            stats["expired"].as_i64().unwrap(),
            stats["void"].as_i64().unwrap(),
            stats["liability"].as_str().unwrap(),
            stats["cost"].as_str().unwrap(),
        );
        let report = find(&now, sn);
        assert_eq!(
            (
                report.0, report.1, report.2, report.3, report.4, report.5, report.6, report.7,
                report.8
            ),
            live
        );
    }
    workers.terminate().await.unwrap();
}

#[tokio::test(flavor = "multi_thread")]
async fn bad_as_of_values_are_refused_with_a_clear_message() {
    let env = Env::new().await.unwrap();
    for bad in ["yesterday", "2026-13-01", "2026-11-20T25:00:00Z"] {
        let out = ledger(&env, &["report", "liability", "--as-of", bad])
            .await
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{bad}: {stderr}");
        assert!(
            stderr.contains("--as-of") && stderr.contains("RFC 3339"),
            "{bad}: {stderr}"
        );
    }
    let out = ledger(
        &env,
        &["report", "liability", "--as-of", "now", "--by", "user"],
    )
    .await
    .unwrap();
    assert_eq!(out.status.code(), Some(2));
}

/// Every report the history gives: as of each day's end (from the
/// snapshots and from the start) and as of now, by template, channel and day.
async fn all_reports(env: &Env) -> Vec<Vec<(String, Row)>> {
    let mut all = vec![];
    for day in 1..=5 {
        let as_of = format!("2026-11-{day:02}");
        all.push(report(env, &["--as-of", &as_of]).await);
        all.push(report(env, &["--as-of", &as_of, "--from-start"]).await);
    }
    for by in ["template", "channel", "day"] {
        all.push(report(env, &["--as-of", "now", "--by", by]).await);
    }
    all
}

#[tokio::test(flavor = "multi_thread")]
async fn liability_as_of_any_instant_is_the_same_before_an_archive_after_it_and_after_a_purge() {
    let env = Env::new().await.unwrap();
    let server = Server::start(&env).await.unwrap();
    let h = script(&env, &server).await;
    let before = all_reports(&env).await;
    // As of day 3 (from the snapshots): the hand-computed row.
    assert_eq!(find(&before[4], &h.r), &BY_DAY[1].1);

    let out = ledger(&env, &["archive", "--before", "now"]).await.unwrap();
    assert!(out.status.success(), "{out:?}");
    let client = env.db.client().await.unwrap();
    let cold: i64 = client
        .query_one("SELECT count(*) FROM coupons_archive", &[])
        .await
        .unwrap()
        .get(0);
    assert_eq!(cold, 9, "every coupon of the history ended: {out:?}");
    assert_eq!(all_reports(&env).await, before, "after the archive");

    let purge = ["archive", "purge", "--before", "now", "--confirm"];
    let out = ledger(&env, &purge).await.unwrap();
    assert!(out.status.success(), "{out:?}");
    let left: i64 = client
        .query_one(
            "SELECT (SELECT count(*) FROM coupons_archive) + (SELECT count(*) FROM coupons)",
            &[],
        )
        .await
        .unwrap()
        .get(0);
    assert_eq!(left, 0, "no coupon row left");
    assert_eq!(all_reports(&env).await, before, "after the purge");
}
