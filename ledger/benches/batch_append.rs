//! Batch append (binary COPY through `store::copy_events`) against a plain text
//! COPY of the same rows, measured in the same run on the same database.
//!
//! `cargo bench -p ledger --bench batch_append` (BENCH_EVENTS=n to change the
//! count, default 1,000,000). Both write into tables with the same indexes, in
//! transactions of CHUNK rows; building the rows is not timed, encoding them is.

use std::time::{Duration, Instant};

use bytes::Bytes;
use chrono::Utc;
use futures_util::SinkExt;
use ledger::domain::stream::StreamKind;
use ledger::store::{self, NewEvent, StreamEvent};
use ledger::testkit::TestDb;
use serde_json::json;
use uuid::Uuid;

const CHUNK: usize = 10_000;

/// A `CouponIssued`-sized event (the payload bulk issuance writes).
fn coupon_issued(n: usize) -> StreamEvent {
    let coupon_id = Uuid::now_v7();
    let now = Utc::now();
    StreamEvent {
        stream_id: StreamKind::Coupon.id(coupon_id),
        stream_version: 1,
        event: NewEvent {
            event_id: Uuid::now_v7(),
            event_type: ledger::domain::EventType::CouponIssued,
            schema_version: 1,
            payload: json!({
                "coupon_id": coupon_id, "template_sn": "K7QW2M9XRT4HPZ3N",
                "user_id": format!("u{n:09}"), "channel_id": null,
                "issued_at": now, "effective_at": now, "expires_at": now,
                "face_value": "20.00", "currency": "CNY",
                "job_id": "01938a4e-7c1d-7000-8000-000000000001",
            }),
            metadata: json!({"actor": "admin", "correlation_id": Uuid::new_v4()}),
            occurred_at: now,
        },
    }
}

fn chunk(from: usize, len: usize) -> Vec<StreamEvent> {
    (from..from + len).map(coupon_issued).collect()
}

async fn batch_append(db: &TestDb, total: usize) -> Duration {
    let mut client = db.pool.get().await.unwrap();
    let mut elapsed = Duration::ZERO;
    for from in (0..total).step_by(CHUNK) {
        let rows = chunk(from, CHUNK.min(total - from));
        let start = Instant::now();
        let tx = client.transaction().await.unwrap();
        store::copy_events(&tx, &rows).await.unwrap();
        tx.commit().await.unwrap();
        elapsed += start.elapsed();
    }
    elapsed
}

/// COPY's text format: tab-separated, with backslash escapes.
fn text_field(out: &mut String, value: &str) {
    for c in value.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '\t' => out.push_str("\\t"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            c => out.push(c),
        }
    }
}

fn text_rows(rows: &[StreamEvent]) -> String {
    let mut out = String::with_capacity(rows.len() * 700);
    for r in rows {
        let e = &r.event;
        let fields = [
            e.event_id.to_string(),
            r.stream_id.clone(),
            r.stream_version.to_string(),
            e.event_type.as_str().to_owned(),
            e.schema_version.to_string(),
            e.payload.to_string(),
            e.metadata.to_string(),
            e.occurred_at.to_rfc3339(),
        ];
        for (i, f) in fields.iter().enumerate() {
            if i > 0 {
                out.push('\t');
            }
            text_field(&mut out, f);
        }
        out.push('\n');
    }
    out
}

async fn plain_copy(db: &TestDb, total: usize) -> Duration {
    let mut client = db.pool.get().await.unwrap();
    client
        .batch_execute("CREATE TABLE events_baseline (LIKE events INCLUDING ALL)")
        .await
        .unwrap();
    let sql = "COPY events_baseline (event_id, stream_id, stream_version, event_type, \
               schema_version, payload, metadata, occurred_at) FROM STDIN";
    let mut elapsed = Duration::ZERO;
    for from in (0..total).step_by(CHUNK) {
        let rows = chunk(from, CHUNK.min(total - from));
        let start = Instant::now();
        let tx = client.transaction().await.unwrap();
        let sink = tx.copy_in::<_, Bytes>(sql).await.unwrap();
        futures_util::pin_mut!(sink);
        sink.send(Bytes::from(text_rows(&rows))).await.unwrap();
        sink.as_mut().finish().await.unwrap();
        tx.commit().await.unwrap();
        elapsed += start.elapsed();
    }
    elapsed
}

fn rate(n: usize, d: Duration) -> f64 {
    n as f64 / d.as_secs_f64()
}

#[tokio::main]
async fn main() {
    let total: usize = std::env::var("BENCH_EVENTS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(1_000_000);
    let db = TestDb::new()
        .await
        .expect("services running (scripts/services)");
    println!("batch append vs plain COPY, {total} CouponIssued events, chunks of {CHUNK}");
    let baseline = plain_copy(&db, total).await;
    println!(
        "plain text COPY:       {:>8.2} s  {:>9.0} events/s",
        baseline.as_secs_f64(),
        rate(total, baseline)
    );
    let batch = batch_append(&db, total).await;
    println!(
        "batch append (binary): {:>8.2} s  {:>9.0} events/s",
        batch.as_secs_f64(),
        rate(total, batch)
    );
    println!(
        "ratio batch/plain time: {:.2} (target <= 1.30)",
        batch.as_secs_f64() / baseline.as_secs_f64()
    );
}
