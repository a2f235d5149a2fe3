//! Exporting, verifying and retiring event partitions against the real
//! Postgres (docs/design.md §16): an export holds a partition's events and
//! the bridges commit order interleaves with them up to the closing
//! checkpoint, and verifies offline; a changed byte is named by its line;
//! a partition leaves `events` only after a verified export of exactly it
//! that still counts its rows, oldest first, and the database itself
//! refuses a hand-typed detach or drop without one.

use crate::sealing::seal_all;
use std::path::Path;

use chrono::Utc;
use ledger::audit::chain::Hash;
use ledger::audit::file_verify::{Difference, FileFinding, FileVerified, verify_file};
use ledger::audit::partition_export::{PartitionExportError, Refusal, export_to_file, verify_path};
use ledger::audit::partition_records::{Action, ExportRecord};
use ledger::audit::retire::{RetireError, RetireRefusal, retire, verify_from};
use ledger::audit::seal::{checkpoint, head};
use ledger::audit::verify::{Finding, verify};
use ledger::store::partition_moves::Use;
use ledger::store::{self, NewEvent, partitions};
use ledger::testkit::{TestDb, count};
use serde_json::json;
use uuid::Uuid;

fn event(n: usize) -> NewEvent {
    NewEvent {
        event_id: Uuid::now_v7(),
        event_type: ledger::domain::EventType::ChannelCreated,
        schema_version: 1,
        payload: json!({ "n": n, "note": "é \"quoted\"\nline" }),
        metadata: json!({ "actor": "test" }),
        occurred_at: Utc::now(),
    }
}

/// `count` new streams of one event, one transaction each.
async fn append(db: &TestDb, prefix: &str, count: usize) {
    let mut client = db.pool.get().await.unwrap();
    for i in 0..count {
        let tx = client.transaction().await.unwrap();
        store::append(&tx, &format!("{prefix}-{i}"), 0, &[event(i)])
            .await
            .unwrap();
        tx.commit().await.unwrap();
    }
}

async fn set_next(db: &TestDb, position: i64) {
    let client = db.client().await.unwrap();
    client
        .execute(
            "SELECT setval('events_position_seq', $1, false)",
            &[&position],
        )
        .await
        .unwrap();
}

/// Partition 0 with 12 events, one event of partition 1 committed by a
/// transaction older than the last of them (a bridge inside partition 0's
/// chain), 8 more events in partition 1, and partition 2 being written.
async fn three_partitions(db: &TestDb) -> i64 {
    let size = partitions::size(&**db.pool.get().await.unwrap())
        .await
        .unwrap();
    append(db, "p0", 10).await;
    // An older transaction writes in partition 1, a younger one in 0.
    let mut old = db.pool.get().await.unwrap();
    let old_tx = old.transaction().await.unwrap();
    old_tx
        .query_one("SELECT pg_current_xact_id()", &[])
        .await
        .unwrap();
    set_next(db, size + 1).await;
    store::append(&old_tx, "p1-early", 0, &[event(0)])
        .await
        .unwrap();
    set_next(db, 100).await;
    append(db, "p0-late", 2).await;
    old_tx.commit().await.unwrap();
    set_next(db, size + 10).await;
    append(db, "p1", 8).await;
    set_next(db, 2 * size + 1).await;
    append(db, "p2", 3).await;
    size
}

fn temp_dir() -> tempfile::TempDir {
    tempfile::tempdir().unwrap()
}

async fn export(
    db: &TestDb,
    number: i64,
    path: &Path,
) -> Result<ExportRecord, PartitionExportError> {
    export_to_file(&db.config, number, path, |_, _, _| {}).await
}

fn verdict(path: &Path, expect: Option<Hash>) -> Result<FileVerified, FileFinding> {
    let file = std::io::BufReader::new(std::fs::File::open(path).unwrap());
    verify_file(file, expect, |_| {}).unwrap()
}

fn refused(e: PartitionExportError) -> Refusal {
    match e {
        PartitionExportError::Refused(r) => r,
        other => panic!("not a refusal: {other}"),
    }
}

/// Seals everything with no checkpoint, then one checkpoint over it all,
/// then 6 more events in partition 2 sealed with a checkpoint every 5.
async fn one_checkpoint_then_more(db: &TestDb) {
    seal_all(db, 5, false).await;
    let client = db.client().await.unwrap();
    let at = head(&client).await.unwrap();
    checkpoint(&client, &at).await.unwrap();
    append(db, "p2-more", 6).await;
    seal_all(db, 5, true).await;
}

#[tokio::test]
async fn an_export_waits_for_a_closed_sealed_and_checkpointed_partition() {
    let db = TestDb::new().await.unwrap();
    three_partitions(&db).await;
    let dir = temp_dir();
    let path = dir.path().join("p0.jsonl");
    let r = refused(export(&db, 0, &path).await.unwrap_err());
    assert!(
        matches!(
            r,
            Refusal::Unsealed {
                events: 12,
                unsealed: 12,
                ..
            }
        ),
        "{r}"
    );
    seal_all(&db, 5, false).await;
    let r = refused(export(&db, 0, &path).await.unwrap_err());
    assert!(
        matches!(r, Refusal::NotClosedByCheckpoint { newest: 0, .. }),
        "{r}"
    );
    assert!(!path.exists() && !dir.path().join("p0.jsonl.partial").exists());
    for (number, used) in [(2, Use::Written), (3, Use::Ahead)] {
        let r = refused(export(&db, number, &path).await.unwrap_err());
        assert!(
            matches!(&r, Refusal::NotClosed { used: u, .. } if *u == used),
            "{r}"
        );
    }
    let r = refused(export(&db, 99, &path).await.unwrap_err());
    assert!(matches!(r, Refusal::NoSuchPartition { .. }), "{r}");
    let r = refused(export(&db, 5, &path).await.unwrap_err());
    assert!(matches!(r, Refusal::NotClosed { .. }), "{r}");
}

#[tokio::test]
async fn a_partition_exports_with_its_bridges_and_verifies_offline() {
    let db = TestDb::new().await.unwrap();
    let size = three_partitions(&db).await;
    one_checkpoint_then_more(&db).await;
    let dir = temp_dir();
    let path = dir.path().join("p0.jsonl");
    let record = export(&db, 0, &path).await.unwrap();
    assert_eq!((record.partition_number, record.range), (0, (0, size)));
    assert_eq!(record.events, 12);
    assert!(!dir.path().join("p0.jsonl.partial").exists());
    let v = verdict(&path, Some(record.checkpoint_head)).unwrap();
    assert_eq!((v.header.events, v.footer.events), (12, 12));
    // The older transaction's event in partition 1 among partition 0's,
    // then partition 1's and 2's up to the one checkpoint that closes it.
    assert_eq!(v.footer.bridges, 12);
    assert_eq!(v.first_seq, 1);
    assert_eq!(v.footer.checkpoint.id, record.checkpoint_id);
    let (_, sha, bytes) = verify_path(&path, |_| {}).unwrap();
    assert_eq!((sha, bytes as i64), (record.file_sha256, record.file_bytes));
    let text = std::fs::read_to_string(&path).unwrap();
    let kinds: Vec<&str> = text
        .lines()
        .map(|l| &l[9..l[9..].find('"').unwrap() + 9])
        .collect();
    assert_eq!(kinds.first(), Some(&"header"));
    assert_eq!(kinds.last(), Some(&"checkpoint"));
    assert_eq!(kinds.iter().filter(|k| **k == "bridge").count(), 12);
    // The first bridge sits between events of the partition: commit order.
    let bridge = kinds.iter().position(|k| *k == "bridge").unwrap();
    assert_eq!(kinds[bridge + 1], "event", "{text}");
    let other = [7; 32];
    let f = verdict(&path, Some(other)).unwrap_err();
    assert_eq!(f.what, Difference::ExpectedHeadAbsent { expected: other });

    // Partition 1 closes at the same checkpoint; a file is never replaced.
    let p1 = export(&db, 1, &dir.path().join("p1.jsonl")).await.unwrap();
    assert_eq!((p1.events, p1.checkpoint_id), (9, record.checkpoint_id));
    let r = refused(export(&db, 0, &path).await.unwrap_err());
    assert!(matches!(r, Refusal::OutputExists(_)), "{r}");
}

/// `text` with the digit or hex digit at `at` changed (to 1, or 2 for a 1).
fn changed(text: &str, at: usize) -> Vec<u8> {
    let mut bytes = text.as_bytes().to_vec();
    assert!(bytes[at].is_ascii_hexdigit(), "{}", bytes[at] as char);
    bytes[at] = if bytes[at] == b'1' { b'2' } else { b'1' };
    bytes
}

fn finding_of(bytes: &[u8]) -> FileFinding {
    verify_file(bytes, None, |_| {}).unwrap().unwrap_err()
}

/// The byte offset just after `needle` within 1-based line `line` of `text`.
fn after(text: &str, line: usize, needle: &str) -> usize {
    let start: usize = text.lines().take(line - 1).map(|l| l.len() + 1).sum();
    start + text.lines().nth(line - 1).unwrap().find(needle).unwrap() + needle.len()
}

/// An export of partition 0 (header, 12 events and 3 bridges, footer).
async fn exported_text() -> String {
    let db = TestDb::new().await.unwrap();
    three_partitions(&db).await;
    seal_all(&db, 5, true).await;
    let dir = temp_dir();
    let path = dir.path().join("p0.jsonl");
    export(&db, 0, &path).await.unwrap();
    std::fs::read_to_string(&path).unwrap()
}

#[tokio::test]
async fn a_changed_byte_in_a_chain_line_is_named_by_its_line() {
    let text = exported_text().await;
    let position = |line: usize| {
        let v: serde_json::Value = serde_json::from_str(text.lines().nth(line - 1)?).ok()?;
        v["position"].as_i64()
    };
    // A payload's digit, a link's: that line's link no longer holds.
    for (line, needle) in [(4, "\"n\": "), (6, "\"hash\":\"")] {
        let f = finding_of(&changed(&text, after(&text, line, needle)));
        assert_eq!((f.line, f.position), (line as u64, position(line)), "{f}");
        assert!(matches!(f.what, Difference::LinkDiffers { .. }), "{f}");
        assert!(
            f.to_string()
                .starts_with(&format!("line {line} (position ")),
            "{f}"
        );
    }
    // A prev: the line no longer follows the one before.
    let f = finding_of(&changed(&text, after(&text, 7, "\"prev\":\"")));
    assert_eq!(f.line, 7, "{f}");
    assert!(matches!(f.what, Difference::PrevDiffers { .. }), "{f}");
    // A hex digit in upper case parses the same, but is not what was written.
    let at = after(&text, 5, "\"hash\":\"");
    let hex = &text.as_bytes()[at..at + 64];
    let letter = at + hex.iter().position(u8::is_ascii_lowercase).unwrap();
    let mut bytes = text.as_bytes().to_vec();
    bytes[letter] = bytes[letter].to_ascii_uppercase();
    let f = finding_of(&bytes);
    assert_eq!((f.line, &f.what), (5, &Difference::NotAsWritten), "{f}");
    // An event of partition 0 called a bridge.
    let at = after(&text, 3, "\"kind\":\"") - 1;
    let mut bytes = text.as_bytes().to_vec();
    bytes.splice(at..at + 7, b"\"bridge\"".iter().copied());
    let f = finding_of(&bytes);
    assert_eq!(f.line, 3, "{f}");
    assert!(
        matches!(f.what, Difference::BridgeInsideRange { .. }),
        "{f}"
    );
}

#[tokio::test]
async fn a_changed_byte_in_the_header_or_footer_is_named_by_its_line() {
    let text = exported_text().await;
    let last = text.lines().count();
    // The footer's instant and the header's store id: their own digest.
    for (line, needle) in [(last, "\"created_at\":\"202"), (1, "\"store_id\":\"")] {
        let f = finding_of(&changed(&text, after(&text, line, needle)));
        assert_eq!(f.line as usize, line, "{f}");
        assert!(f.to_string().contains("sha256"), "{f}");
    }
    // The footer's head: the chain no longer ends there.
    let f = finding_of(&changed(&text, after(&text, last, "\"head\":\"")));
    assert_eq!(f.line as usize, last, "{f}");
    // Cut short: no footer.
    let cut = text.len() - text.lines().last().unwrap().len() - 1;
    let f = finding_of(&text.as_bytes()[..cut]);
    assert_eq!(f.what, Difference::Truncated, "{f}");
    // The last newline gone: the footer is not as written.
    let f = finding_of(&text.as_bytes()[..text.len() - 1]);
    assert_eq!(f.line as usize, last, "{f}");
    // A line after the footer.
    let f = finding_of(format!("{text}{{}}\n").as_bytes());
    assert_eq!(f.what, Difference::AfterFooter, "{f}");
}

fn refusal(e: RetireError) -> RetireRefusal {
    match e {
        RetireError::Refused(r) => r,
        other => panic!("not a refusal: {other}"),
    }
}

async fn sql_refusal(db: &TestDb, sql: &str) -> String {
    let client = db.client().await.unwrap();
    let e = client.batch_execute(sql).await.unwrap_err();
    e.as_db_error()
        .map_or(e.to_string(), |d| d.message().to_owned())
}

/// A store of three partitions, sealed with a checkpoint every 5 seals.
async fn sealed_store() -> (TestDb, i64, tempfile::TempDir, tokio_postgres::Client) {
    let db = TestDb::new().await.unwrap();
    let size = three_partitions(&db).await;
    seal_all(&db, 5, true).await;
    let client = db.client().await.unwrap();
    (db, size, temp_dir(), client)
}

#[tokio::test]
async fn a_partition_leaves_only_after_a_verified_export_of_exactly_it() {
    let (db, _, dir, mut client) = sealed_store().await;
    // No export: the command and the database both refuse.
    let r = refusal(retire(&mut client, 0, Action::Dropped).await.unwrap_err());
    assert!(
        matches!(r, RetireRefusal::NoVerifiedExport { number: 0, .. }),
        "{r}"
    );
    for sql in [
        "ALTER TABLE events DETACH PARTITION events_p0",
        "DROP TABLE events_p0",
        "DROP TABLE events CASCADE",
    ] {
        let said = sql_refusal(&db, sql).await;
        assert!(said.contains("without a verified export"), "{sql}: {said}");
    }
    // An export of another range does not do.
    export(&db, 1, &dir.path().join("p1.jsonl")).await.unwrap();
    let r = refusal(retire(&mut client, 0, Action::Detached).await.unwrap_err());
    let said = r.to_string();
    assert!(
        said.contains("of partition 1 [") && said.contains("[0, "),
        "{r}"
    );
    // Oldest first, and never the partition being written.
    let r = refusal(retire(&mut client, 1, Action::Detached).await.unwrap_err());
    assert!(
        matches!(r, RetireRefusal::OlderHoldsEvents { older: 0, .. }),
        "{r}"
    );
    let r = refusal(retire(&mut client, 2, Action::Dropped).await.unwrap_err());
    assert!(
        matches!(
            r,
            RetireRefusal::NotClosed {
                used: Use::Written,
                ..
            }
        ),
        "{r}"
    );

    // Exported: partition 0 detaches, frozen outside events.
    let p0 = export(&db, 0, &dir.path().join("p0.jsonl")).await.unwrap();
    let done = retire(&mut client, 0, Action::Detached).await.unwrap();
    assert_eq!((done.export.id, done.retirement.events), (p0.id, 12));
    let left = partitions::list(&client).await.unwrap();
    assert!(left.iter().all(|p| p.name != "events_p0"), "{left:?}");
    assert_frozen(&db, "events_p0").await;
    // The store's chain verifies after the closing checkpoint; from the
    // start it misses the partition's events.
    let (from, _) = verify_from(&client).await.unwrap().unwrap();
    assert_eq!(from, p0.checkpoint_id);
    verify(&db.config, Some(from), None, |_| {})
        .await
        .unwrap()
        .unwrap();
    let whole = verify(&db.config, None, None, |_| {}).await.unwrap();
    assert!(
        matches!(whole, Err(Finding::EventMissing { .. })),
        "{whole:?}"
    );
}

/// A detached partition refuses every change, as `events` does.
async fn assert_frozen(db: &TestDb, table: &str) {
    for sql in [
        format!("UPDATE {table} SET stream_version = 9"),
        format!("DELETE FROM {table}"),
        format!("TRUNCATE {table}"),
        format!("INSERT INTO {table} SELECT * FROM {table} LIMIT 1"),
    ] {
        assert!(sql_refusal(db, &sql).await.contains("append-only"), "{sql}");
    }
}

#[tokio::test]
async fn a_changed_count_is_refused_and_later_partitions_export_after_one_left() {
    let (db, size, dir, mut client) = sealed_store().await;
    export(&db, 0, &dir.path().join("p0.jsonl")).await.unwrap();
    export(&db, 1, &dir.path().join("p1.jsonl")).await.unwrap();
    retire(&mut client, 0, Action::Detached).await.unwrap();
    // Its two events sealed after partition 1's first are kept as bridges.
    assert_eq!(
        count(&client, "SELECT count(*) FROM event_bridges", &[]).await,
        2
    );

    // A straggler in partition 1 after its export: the count no longer holds.
    client
        .batch_execute(&format!(
            "INSERT INTO events (position, event_id, stream_id, stream_version, event_type,
                                 schema_version, payload, occurred_at)
             VALUES ({}, gen_random_uuid(), 'late-1', 1, 'ChannelCreated', 1, '{{}}', now())",
            size + 5
        ))
        .await
        .unwrap();
    let r = refusal(retire(&mut client, 1, Action::Dropped).await.unwrap_err());
    assert!(
        matches!(
            r,
            RetireRefusal::CountChanged {
                exported: 9,
                now: 10,
                ..
            }
        ),
        "{r}"
    );
    // Exported again, with partition 0's kept events among its bridges.
    seal_all(&db, 5, true).await;
    let again = dir.path().join("p1-again.jsonl");
    export(&db, 1, &again).await.unwrap();
    assert_eq!(verdict(&again, None).unwrap().footer.events, 10);
    let text = std::fs::read_to_string(&again).unwrap();
    assert!(text.contains("\"stream_id\":\"p0-late-1\""), "{text}");
    retire(&mut client, 1, Action::Dropped).await.unwrap();

    // The detached partition 0 may be dropped, once.
    let done = retire(&mut client, 0, Action::Dropped).await.unwrap();
    assert_eq!(done.retirement.action, Action::Dropped);
    let r = refusal(retire(&mut client, 0, Action::Dropped).await.unwrap_err());
    assert!(matches!(r, RetireRefusal::AlreadyRetired { .. }), "{r}");
    let sql = "SELECT count(*) FROM pg_class WHERE relname = 'events_p0'";
    assert_eq!(count(&client, sql, &[]).await, 0);
    let (from, newest) = verify_from(&client).await.unwrap().unwrap();
    assert_eq!(newest.partition_number, 1);
    verify(&db.config, Some(from), None, |_| {})
        .await
        .unwrap()
        .unwrap();
    // pg_partman's maintenance goes on without the partitions that left.
    let tx = client.transaction().await.unwrap();
    assert!(partitions::make_ahead(&tx).await.unwrap());
    tx.commit().await.unwrap();
}
