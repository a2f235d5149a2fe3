//! A store of issued coupons written straight in SQL, as the ledger writes
//! them (so that `replay --verify` finds no difference), for the benchmarks
//! that read the log back; and Postgres' own read of it, their baseline.

use std::time::{Duration, Instant};

use chrono::{SubsecRound, Utc};
use futures_util::TryStreamExt;
use ledger::domain::events::{IssueWindow, TemplateCreated};
use ledger::domain::{RawTerms, Terms};
use serde_json::json;

/// The template, written as the ledger writes it: its row, and its
/// `TemplateCreated` and `TemplateActivated` events.
async fn template(client: &tokio_postgres::Client, n: i64) {
    let now = Utc::now().trunc_subsecs(6);
    let terms: RawTerms = serde_json::from_value(json!({
        "kind": "goods", "currency": "CNY",
        "discount": {"type": "fixed_off", "threshold": "100.00", "amount": "20.00"},
        "validity": {"type": "relative", "begin_days": 0, "end_days": 7},
        "stacking": "stackable",
    }))
    .unwrap();
    let face_value = Terms::parse(&terms).unwrap().face_value().as_decimal();
    let created = TemplateCreated {
        sn: "BENCH".into(),
        name: "bench: 20 off 100".into(),
        terms,
        issue_window: IssueWindow {
            begin: now - chrono::Duration::days(1),
            end: now + chrono::Duration::days(1),
        },
        total: n,
        per_user_limit: 1,
        refund_policy: "restore".into(),
        remind_days_before: None,
    };
    let terms = serde_json::to_value(&created.terms).unwrap();
    client
        .execute(
            "INSERT INTO templates (sn, name, kind, currency, terms, face_value, issue_begin,
                 issue_end, total, issued, per_user_limit, refund_policy, status, version, created_at)
             VALUES ('BENCH', $1, 'goods', 'CNY', $2, $3, $4, $5, $6, $6, 1, 'restore', 'active', 2, $7)",
            &[&created.name, &terms, &face_value, &created.issue_window.begin,
              &created.issue_window.end, &n, &now],
        )
        .await
        .unwrap();
    let activated = json!({"sn": "BENCH", "from": "draft", "to": "active"});
    client
        .execute(
            "INSERT INTO events (event_id, stream_id, stream_version, event_type, schema_version,
                                 payload, metadata, occurred_at)
             VALUES (gen_random_uuid(), 'template-BENCH', 1, 'TemplateCreated', 1, $1,
                     '{\"actor\": \"bench\"}', $3),
                    (gen_random_uuid(), 'template-BENCH', 2, 'TemplateActivated', 1, $2,
                     '{\"actor\": \"bench\"}', $3)",
            &[&serde_json::to_value(&created).unwrap(), &activated, &now],
        )
        .await
        .unwrap();
}

/// `$N` coupons of the template, one per user, each with its `CouponIssued`
/// event and its rows in every table, in one transaction (so one `now()`).
const COUPONS: &str = "
CREATE TEMP TABLE bench_coupons AS
  SELECT gen_random_uuid() AS id, 'u' || i AS user_id FROM generate_series(1, $N) i;
INSERT INTO events (event_id, stream_id, stream_version, event_type, schema_version, payload, metadata, occurred_at)
  SELECT gen_random_uuid(), 'coupon-' || id, 1, 'CouponIssued', 1,
         jsonb_build_object('coupon_id', id, 'template_sn', 'BENCH', 'user_id', user_id,
           'issued_at', now(), 'effective_at', now(), 'expires_at', now() + interval '7 days',
           'face_value', '20.00', 'currency', 'CNY'),
         '{\"actor\": \"bench\", \"correlation_id\": \"bench\"}', now()
    FROM bench_coupons;
INSERT INTO coupons (id, template_sn, user_id, status, issued_at, effective_at, expires_at, version)
  SELECT id, 'BENCH', user_id, 'unused', now(), now(), now() + interval '7 days', 1 FROM bench_coupons;
INSERT INTO user_claims SELECT 'BENCH', user_id, 1 FROM bench_coupons;
INSERT INTO balances SELECT user_id, 'unused', 1, 20.00 FROM bench_coupons;
INSERT INTO template_stats VALUES ('BENCH', 'unused', $N, 20.00 * $N);
INSERT INTO template_totals VALUES ('BENCH', $N, 0);
";

/// A template and `n` coupons issued from it to as many users, then
/// VACUUM ANALYZE (as after any bulk load, and as autovacuum leaves an
/// older log); the number of events.
pub async fn issued_store(client: &tokio_postgres::Client, n: i64) -> i64 {
    template(client, n).await;
    client
        .batch_execute(&COUPONS.replace("$N", &n.to_string()))
        .await
        .unwrap();
    client.batch_execute("VACUUM ANALYZE").await.unwrap();
    client
        .query_one("SELECT count(*) FROM events", &[])
        .await
        .unwrap()
        .get(0)
}

/// The replay's first read and nothing else: every event in the store's
/// order, its bytes received and dropped.
pub async fn bare_read(client: &tokio_postgres::Client) -> Duration {
    let started = Instant::now();
    let chunks = client.copy_out(ledger::replay::EVENTS).await.unwrap();
    futures_util::pin_mut!(chunks);
    let mut bytes = 0;
    while let Some(chunk) = chunks.try_next().await.unwrap() {
        bytes += chunk.len();
    }
    assert!(bytes > 0);
    started.elapsed()
}
