//! `ledger events export` (docs/design.md §11) against a real store, through the
//! binary: every event once, in the sealer's order, with links that
//! recompute from the export alone; CSV gives the same rows; the stream
//! kind and the windows give the right subsets; events the sealer has not
//! reached are marked and counted; bad arguments fail clearly.

use crate::sealing::seal_all;
use std::path::PathBuf;
use std::process::Output;

use chrono::{DateTime, Duration, TimeZone, Utc};
use ledger::audit::chain::{GENESIS, Sealable, link, to_hex};
use ledger::audit::export::COLUMNS;
use ledger::audit::seal::Head;
use ledger::domain::stream::StreamKind;
use ledger::store::{self, NewEvent};
use ledger::testkit::TestDb;
use serde::Deserialize;
use serde_json::json;
use serde_json::value::RawValue;
use tokio::process::Command;
use uuid::Uuid;

const STREAMS_PER_KIND: usize = 20;
const EVENTS_PER_STREAM: usize = 4;
/// 320 events.
const EVENTS: usize = StreamKind::ALL.len() * STREAMS_PER_KIND * EVENTS_PER_STREAM;

fn base() -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2026, 11, 23, 8, 0, 0).unwrap()
}

/// Appends `EVENTS_PER_STREAM` events to a new stream; `n` numbers the
/// events of the whole store. Their instants jump around (37 is prime to
/// the count), so time order is neither position nor commit order.
async fn append_stream(tx: &deadpool_postgres::Transaction<'_>, stream_id: &str, n: &mut usize) {
    let events: Vec<NewEvent> = (0..EVENTS_PER_STREAM)
        .map(|_| {
            *n += 1;
            let at = (*n * 37 % EVENTS) as i64;
            NewEvent {
                event_id: Uuid::now_v7(),
                event_type: ledger::domain::EventType::ChannelCreated,
                schema_version: 1,
                // Text that CSV must quote and JSON must escape.
                payload: json!({ "n": *n, "amount": "12.50", "note": "a, \"b\"\nü", "nested": { "z": 1, "a": [1, 2.5] } }),
                metadata: json!({ "actor": "test", "correlation": *n }),
                occurred_at: base() + Duration::seconds(at) + Duration::microseconds(at),
            }
        })
        .collect();
    store::append(tx, stream_id, 0, &events).await.unwrap();
}

/// Stream ids of every kind, the kinds interleaved.
fn stream_ids(streams_per_kind: usize) -> Vec<String> {
    let mut ids = vec![];
    for s in 0..streams_per_kind {
        for kind in StreamKind::ALL {
            let key = match kind {
                StreamKind::Coupon
                | StreamKind::Channel
                | StreamKind::CodeBatch
                | StreamKind::ApiKey => Uuid::now_v7().to_string(),
                StreamKind::Order
                | StreamKind::Template
                | StreamKind::Package
                | StreamKind::AllowList => {
                    format!("k{s}-{}", Uuid::now_v7())
                }
                StreamKind::Code => format!("{}-{s}", Uuid::now_v7()),
            };
            ids.push(kind.id(key));
        }
    }
    ids
}

/// Streams in pairs of transactions where the first takes its transaction
/// id before the second appends and commits, then appends itself: its
/// events sort first in commit-safe order although their positions are
/// higher, so that order differs from position order.
async fn append_pairs(db: &TestDb, ids: &[String], n: &mut usize) {
    for pair in ids.chunks(2) {
        let (mut first, mut second) = (db.pool.get().await.unwrap(), db.pool.get().await.unwrap());
        let early = first.transaction().await.unwrap();
        early
            .query_one("SELECT pg_current_xact_id()", &[])
            .await
            .unwrap();
        if let Some(id) = pair.get(1) {
            let late = second.transaction().await.unwrap();
            append_stream(&late, id, n).await;
            late.commit().await.unwrap();
        }
        append_stream(&early, &pair[0], n).await;
        early.commit().await.unwrap();
    }
}

/// The store of these tests: `EVENTS` events of every kind of stream.
async fn store_of_every_kind(db: &TestDb) {
    let mut n = 0;
    append_pairs(db, &stream_ids(STREAMS_PER_KIND), &mut n).await;
    assert_eq!(n, EVENTS);
}

/// The whole log as JSON lines.
const ALL_JSONL: &str = "--from-position 1 --format jsonl";

/// Runs `ledger events export` with `args` (split at spaces).
async fn ledger(database_url: &str, args: &str) -> Output {
    Command::new(env!("CARGO_BIN_EXE_ledger"))
        .args(["events", "export"])
        .args(args.split_whitespace())
        .env("DATABASE_URL", database_url)
        .env("RUST_LOG", "warn")
        .output()
        .await
        .unwrap()
}

/// Runs the export, asserts it succeeded; stdout and the summary line.
async fn export(db: &TestDb, args: &str) -> (String, String) {
    // The commit-safe horizon errs low, for an instant, when a transaction
    // of another database (another test) ends while it is computed: the
    // export then leaves events for the next one. Exported again until two
    // runs agree, the largest is the whole selection.
    let mut best = export_once(db, args).await;
    for _ in 0..20 {
        let again = export_once(db, args).await;
        let (n_best, n_again) = (best.0.lines().count(), again.0.lines().count());
        if n_again == n_best {
            return again;
        }
        if n_again > n_best {
            best = again;
        }
    }
    best
}

async fn export_once(db: &TestDb, args: &str) -> (String, String) {
    let out = ledger(&db.url(), args).await;
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert!(out.status.success(), "{args}: {stderr}");
    let summary = stderr
        .lines()
        .find(|l| l.starts_with("exported "))
        .unwrap_or_else(|| panic!("no summary in {stderr}"));
    (String::from_utf8(out.stdout).unwrap(), summary.to_owned())
}

/// An exported row, as read back; `tx_id` is not exported (0 here) and
/// the chain does not hash it.
#[derive(Clone, Debug, PartialEq)]
struct Row {
    event: Sealable,
    seal_seq: Option<i64>,
    hash: Option<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Line {
    position: i64,
    seal_seq: Option<i64>,
    event_id: Uuid,
    stream_id: String,
    stream_version: i32,
    event_type: String,
    schema_version: i16,
    occurred_at: String,
    payload: Box<RawValue>,
    metadata: Box<RawValue>,
    hash: Option<String>,
}

fn utc(text: &str) -> DateTime<Utc> {
    assert!(text.ends_with('Z'), "UTC: {text}");
    DateTime::parse_from_rfc3339(text).unwrap().to_utc()
}

/// JSON lines back into rows; the payload and metadata as the exact text written.
fn parse_jsonl(text: &str) -> Vec<Row> {
    text.lines()
        .map(|line| {
            let l: Line = serde_json::from_str(line).unwrap_or_else(|e| panic!("{e}: {line}"));
            Row {
                event: Sealable {
                    position: l.position,
                    event_id: l.event_id,
                    stream_id: l.stream_id,
                    stream_version: l.stream_version,
                    event_type: l.event_type,
                    schema_version: l.schema_version,
                    payload: l.payload.get().to_owned(),
                    metadata: l.metadata.get().to_owned(),
                    occurred_at: utc(&l.occurred_at),
                    tx_id: 0,
                },
                seal_seq: l.seal_seq,
                hash: l.hash,
            }
        })
        .collect()
}

/// CSV back into rows, with the csv crate; an empty cell is null.
fn parse_csv(path: &PathBuf) -> Vec<Row> {
    let mut reader = csv::Reader::from_path(path).unwrap();
    assert_eq!(
        reader.headers().unwrap(),
        &csv::StringRecord::from(COLUMNS.to_vec())
    );
    let cell =
        |r: &csv::StringRecord, i: usize| r.get(i).filter(|c| !c.is_empty()).map(str::to_owned);
    reader
        .records()
        .map(|r| {
            let r = r.unwrap();
            assert_eq!(r.len(), COLUMNS.len());
            Row {
                event: Sealable {
                    position: r[0].parse().unwrap(),
                    event_id: r[2].parse().unwrap(),
                    stream_id: r[3].to_owned(),
                    stream_version: r[4].parse().unwrap(),
                    event_type: r[5].to_owned(),
                    schema_version: r[6].parse().unwrap(),
                    payload: r[8].to_owned(),
                    metadata: r[9].to_owned(),
                    occurred_at: utc(&r[7]),
                    tx_id: 0,
                },
                seal_seq: cell(&r, 1).map(|s| s.parse().unwrap()),
                hash: cell(&r, 10),
            }
        })
        .collect()
}

async fn positions(db: &TestDb, sql: &str) -> Vec<i64> {
    let client = db.client().await.unwrap();
    client
        .query(sql, &[])
        .await
        .unwrap()
        .iter()
        .map(|r| r.get(0))
        .collect()
}

fn positions_of(rows: &[Row]) -> Vec<i64> {
    rows.iter().map(|r| r.event.position).collect()
}

/// Recomputes the chain from GENESIS over the sealed rows (all first):
/// each row's hash, seqs 1..n, and the stored head.
fn assert_chain(rows: &[Row], head: &Head) {
    let mut prev = GENESIS;
    for (i, row) in rows.iter().take_while(|r| r.seal_seq.is_some()).enumerate() {
        assert_eq!(
            row.seal_seq,
            Some(i as i64 + 1),
            "position {}",
            row.event.position
        );
        prev = link(&prev, &row.event);
        assert_eq!(
            row.hash.as_deref(),
            Some(to_hex(&prev).as_str()),
            "position {}",
            row.event.position
        );
    }
    assert_eq!(
        prev, head.hash,
        "the recomputed chain ends at the stored head"
    );
}

#[tokio::test]
async fn export_round_trip_every_event_once_in_order_and_its_hash_checks() {
    let db = TestDb::new().await.unwrap();
    store_of_every_kind(&db).await;
    let head = seal_all(&db, 50, false).await;
    assert_eq!(head.seq, EVENTS as i64);
    let (jsonl, summary) = export(&db, ALL_JSONL).await;
    let rows = parse_jsonl(&jsonl);
    assert!(
        summary.starts_with(&format!("exported {EVENTS} events to stdout (0 unsealed)")),
        "{summary}"
    );
    let exported = positions_of(&rows);
    let by_commit = positions(&db, "SELECT position FROM events ORDER BY tx_id, position").await;
    let by_seal = positions(&db, "SELECT position FROM event_seals ORDER BY seq").await;
    assert_eq!(
        exported, by_commit,
        "every event once, in commit-safe order"
    );
    assert_eq!(exported, by_seal, "in the sealer's order");
    assert!(
        exported.windows(2).any(|w| w[0] > w[1]),
        "the scenario commits out of position order"
    );
    assert_chain(&rows, &head);
    // The payload is Postgres' text of it, not a re-serialisation.
    let client = db.client().await.unwrap();
    let stored: String = client
        .query_one(
            "SELECT payload::text FROM events WHERE position = $1",
            &[&rows[5].event.position],
        )
        .await
        .unwrap()
        .get(0);
    assert_eq!(rows[5].event.payload, stored);
    assert!(stored.contains(r#""note": "a, \"b\"\nü""#), "{stored}");
}

#[tokio::test]
async fn csv_parses_to_the_same_rows_as_jsonl() {
    let db = TestDb::new().await.unwrap();
    store_of_every_kind(&db).await;
    let head = seal_all(&db, 50, false).await;
    let path = std::env::temp_dir().join(format!("ledger-export-{}.csv", Uuid::new_v4()));
    let file = path.to_str().unwrap();
    let args = format!("--from-position 1 --format csv --output {file}");
    let (stdout, summary) = export(&db, &args).await;
    assert!(
        stdout.is_empty() && summary.contains(&format!("to {file}")),
        "{summary}"
    );
    let from_csv = parse_csv(&path);
    std::fs::remove_file(&path).unwrap();
    let (jsonl, _) = export(&db, ALL_JSONL).await;
    assert_eq!(from_csv.len(), EVENTS);
    assert_eq!(from_csv, parse_jsonl(&jsonl));
    assert_chain(&from_csv, &head);
}

#[tokio::test]
async fn stream_kind_coupon_gives_exactly_the_coupon_events() {
    let db = TestDb::new().await.unwrap();
    store_of_every_kind(&db).await;
    seal_all(&db, 50, false).await;
    let (all, _) = export(&db, ALL_JSONL).await;
    let args = "--from-position 1 --stream-kind coupon --format jsonl";
    let (coupons, summary) = export(&db, args).await;
    let coupons = parse_jsonl(&coupons);
    let expected: Vec<Row> = parse_jsonl(&all)
        .into_iter()
        .filter(|r| r.event.stream_id.starts_with("coupon-"))
        .collect();
    assert_eq!(
        coupons.len(),
        STREAMS_PER_KIND * EVENTS_PER_STREAM,
        "{summary}"
    );
    assert_eq!(
        coupons, expected,
        "the coupon events, sealed, in the same order"
    );
}

/// The rows of `all` that `keep` selects, in order.
fn subset(all: &[Row], keep: impl Fn(&Sealable) -> bool) -> Vec<Row> {
    all.iter().filter(|r| keep(&r.event)).cloned().collect()
}

#[tokio::test]
async fn a_time_window_includes_its_start_and_excludes_its_end() {
    let db = TestDb::new().await.unwrap();
    store_of_every_kind(&db).await;
    seal_all(&db, 50, false).await;
    let all = parse_jsonl(&export(&db, ALL_JSONL).await.0);
    // Bounds that are events' own instants (all distinct here).
    let (a, b) = (all[40].event.occurred_at, all[41].event.occurred_at);
    let (from, to) = (a.min(b), a.max(b));
    let window = format!("--from {} --to {}", from.to_rfc3339(), to.to_rfc3339());
    let (got, _) = export(&db, &format!("{window} --format jsonl")).await;
    let expected = subset(&all, |e| e.occurred_at >= from && e.occurred_at < to);
    assert!(
        expected.iter().any(|r| r.event.occurred_at == from),
        "the start is in"
    );
    assert!(
        expected.iter().all(|r| r.event.occurred_at != to),
        "the end is out"
    );
    assert!(expected.len() > 1 && expected.len() < EVENTS);
    assert_eq!(parse_jsonl(&got), expected, "time window");
    let (got, _) = export(&db, &format!("--from {} --format jsonl", to.to_rfc3339())).await;
    let expected = subset(&all, |e| e.occurred_at >= to);
    assert_eq!(parse_jsonl(&got), expected, "open end");
}

#[tokio::test]
async fn a_position_window_includes_its_start_and_excludes_its_end() {
    let db = TestDb::new().await.unwrap();
    store_of_every_kind(&db).await;
    seal_all(&db, 50, false).await;
    let all = parse_jsonl(&export(&db, ALL_JSONL).await.0);
    let (a, b) = (all[100].event.position, all[200].event.position);
    let (p, q) = (a.min(b), a.max(b));
    let window = format!("--from-position {p} --to-position {q}");
    let (got, _) = export(&db, &format!("{window} --format csv")).await;
    assert!(got.starts_with("position,seal_seq,"), "{got}");
    let (got, _) = export(&db, &format!("{window} --format jsonl")).await;
    let expected = subset(&all, |e| e.position >= p && e.position < q);
    assert_eq!(expected.len() as i64, q - p, "positions without gaps here");
    assert_eq!(parse_jsonl(&got), expected, "position window");
}

#[tokio::test]
async fn events_appended_after_sealing_have_no_hash_and_are_counted_unsealed() {
    let db = TestDb::new().await.unwrap();
    store_of_every_kind(&db).await;
    let head = seal_all(&db, 50, false).await;
    let mut n = 0;
    append_pairs(&db, &stream_ids(1)[..2], &mut n).await;
    let (jsonl, summary) = export(&db, ALL_JSONL).await;
    assert!(
        summary.contains(&format!("exported {} events", EVENTS + n)),
        "{summary}"
    );
    assert!(
        summary.contains(&format!("({n} unsealed: not reached by the sealer yet")),
        "{summary}"
    );
    let rows = parse_jsonl(&jsonl);
    let (sealed, fresh) = rows.split_at(EVENTS);
    assert!(
        fresh
            .iter()
            .all(|r| r.seal_seq.is_none() && r.hash.is_none()),
        "{fresh:?}"
    );
    assert!(sealed.iter().all(|r| r.hash.is_some()));
    assert_chain(&rows, &head);
    // Once sealed, the same events carry their links.
    let head = seal_all(&db, 50, false).await;
    let (jsonl, summary) = export(&db, ALL_JSONL).await;
    assert!(summary.contains("(0 unsealed)"), "{summary}");
    let resealed = parse_jsonl(&jsonl);
    assert_eq!(positions_of(&resealed), positions_of(&rows));
    assert_chain(&resealed, &head);
    assert_eq!(resealed.len(), head.seq as usize);
}

/// Command lines that must fail before any database is reached, and what
/// the error says.
const BAD_ARGUMENTS: [(&str, &str); 10] = [
    ("--format jsonl", "required arguments were not provided"),
    (
        "--from yesterday --format jsonl",
        "expected an RFC 3339 instant",
    ),
    (
        "--from 2026-11-23 --format jsonl",
        "expected an RFC 3339 instant",
    ),
    (
        "--from 2026-11-23T08:00:00Z --to 2026-11-22T08:00:00Z --format csv",
        "the window is empty",
    ),
    (
        "--from 2026-11-23T08:00:00Z --to 2026-11-23T08:00:00Z --format csv",
        "the window is empty",
    ),
    (
        "--from-position 10 --to-position 5 --format csv",
        "the window is empty",
    ),
    (
        "--from-position 1 --stream-kind job --format csv",
        "[possible values: coupon, order, template, channel, codebatch, code, package, allowlist, apikey]",
    ),
    (
        "--from 2026-11-23T08:00:00Z --from-position 1 --format csv",
        "cannot be used with",
    ),
    (
        "--from 2026-11-23T08:00:00Z --to-position 3 --format csv",
        "cannot be used with",
    ),
    (
        "--from-position 1 --format xml",
        "[possible values: jsonl, csv]",
    ),
];

#[tokio::test]
async fn bad_arguments_give_a_clear_error_and_exit_2() {
    // No database behind it: arguments are checked before connecting.
    let nowhere = "postgres://postgres@127.0.0.1:5432/no_such_database_for_export";
    for (args, expected) in BAD_ARGUMENTS {
        let out = ledger(nowhere, args).await;
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args}: {stderr}");
        assert!(stderr.contains(expected), "{args}: {stderr}");
        assert!(
            !stderr.contains("panicked") && out.stdout.is_empty(),
            "{args}"
        );
    }
}

#[tokio::test]
async fn an_output_file_that_cannot_be_created_is_named() {
    let db = TestDb::new().await.unwrap();
    let out = ledger(
        &db.url(),
        "--from-position 1 --format csv --output /no/such/dir/x.csv",
    )
    .await;
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("creating /no/such/dir/x.csv"), "{stderr}");
}
