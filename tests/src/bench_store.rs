//! A store of issued coupons written straight in SQL, as the ledger writes
//! them (so that `replay --verify` finds no difference), for the benchmarks
//! that read the log back; and Postgres' own read of it, their baseline.

use std::time::{Duration, Instant};

use chrono::{SubsecRound, Utc};
use futures_util::TryStreamExt;
use ledger::domain::events::{IssueWindow, TemplateCreated};
use ledger::domain::terms::RefundPolicy;
use ledger::domain::{RawTerms, Terms};
use serde_json::json;

/// The template `sn` of `n` coupons, written as the ledger writes it: its
/// row, and its `TemplateCreated` and `TemplateActivated` events.
pub async fn template(client: &tokio_postgres::Client, sn: &str, n: i64) {
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
        sn: ledger::domain::ids::TemplateSn::stored(sn.into()),
        name: "bench: 20 off 100".into(),
        description: None,
        terms,
        issue_window: IssueWindow {
            begin: now - chrono::Duration::days(1),
            end: now + chrono::Duration::days(1),
        },
        total: n,
        per_user_limit: 1,
        refund_policy: RefundPolicy::Restore,
        remind_days_before: None,
        rate_limit: None,
        eligibility: None,
        shop_id: None,
        budget: None,
    };
    let terms = serde_json::to_value(&created.terms).unwrap();
    client
        .execute(
            "INSERT INTO templates (sn, name, kind, currency, terms, face_value, issue_begin,
                 issue_end, total, issued, per_user_limit, refund_policy, status, version, created_at)
             VALUES ($8, $1, 'goods', 'CNY', $2, $3, $4, $5, $6, $6, 1, 'restore', 'active', 2, $7)",
            &[&created.name, &terms, &face_value, &created.issue_window.begin,
              &created.issue_window.end, &n, &now, &sn],
        )
        .await
        .unwrap();
    let activated = json!({"sn": sn, "from": "draft", "to": "active"});
    client
        .execute(
            "INSERT INTO events (event_id, stream_id, stream_version, event_type, schema_version,
                                 payload, metadata, occurred_at)
             VALUES (gen_random_uuid(), 'template-' || $4, 1, 'TemplateCreated', 1, $1,
                     '{\"actor\": \"bench\"}', $3),
                    (gen_random_uuid(), 'template-' || $4, 2, 'TemplateActivated', 1, $2,
                     '{\"actor\": \"bench\"}', $3)",
            &[
                &serde_json::to_value(&created).unwrap(),
                &activated,
                &now,
                &sn,
            ],
        )
        .await
        .unwrap();
}

/// `$N` coupons of template `$SN`, one per user (`u$FIRST` on), each with
/// its `CouponIssued` event and its rows in every table, in one transaction
/// (so one `now()`).
const COUPONS: &str = "
DROP TABLE IF EXISTS bench_coupons;
CREATE TEMP TABLE bench_coupons AS
  SELECT gen_random_uuid() AS id, 'u' || i AS user_id FROM generate_series($FIRST, $LAST) i;
INSERT INTO events (event_id, stream_id, stream_version, event_type, schema_version, payload, metadata, occurred_at)
  SELECT gen_random_uuid(), 'coupon-' || id, 1, 'CouponIssued', 1,
         jsonb_build_object('coupon_id', id, 'template_sn', '$SN', 'user_id', user_id,
           'issued_at', now(), 'effective_at', now(), 'expires_at', now() + interval '7 days',
           'face_value', '20.00', 'currency', 'CNY'),
         '{\"actor\": \"bench\", \"correlation_id\": \"bench\"}', now()
    FROM bench_coupons;
INSERT INTO coupons (id, template_sn, user_id, status, issued_at, effective_at, expires_at, version)
  SELECT id, '$SN', user_id, 'unused', now(), now(), now() + interval '7 days', 1 FROM bench_coupons;
INSERT INTO user_claims SELECT '$SN', user_id, 1 FROM bench_coupons;
INSERT INTO balances SELECT user_id, 'unused', 1, 20.00 FROM bench_coupons;
INSERT INTO template_stats VALUES ('$SN', 'unused', $N, 20.00 * $N);
INSERT INTO template_totals VALUES ('$SN', $N, 0);
";

/// A template and `n` coupons issued from it to as many users, then
/// VACUUM ANALYZE (as after any bulk load, and as autovacuum leaves an
/// older log); the number of events.
pub async fn issued_store(client: &tokio_postgres::Client, n: i64) -> i64 {
    add_issued(client, "BENCH", 1, n).await;
    client.batch_execute("VACUUM ANALYZE").await.unwrap();
    client
        .query_one("SELECT count(*) FROM events", &[])
        .await
        .unwrap()
        .get(0)
}

/// Template `sn` (a name of letters) and `n` coupons issued from it to as
/// many users, `u<first>` on (so that stores grow by distinct users).
pub async fn add_issued(client: &tokio_postgres::Client, sn: &str, first: i64, n: i64) {
    assert!(sn.chars().all(|c| c.is_ascii_alphanumeric()), "{sn}");
    let since: i64 = client
        .query_one("SELECT last_value FROM events_position_seq", &[])
        .await
        .unwrap()
        .get(0);
    template(client, sn, n).await;
    let sql = COUPONS
        .replace("$SN", sn)
        .replace("$FIRST", &first.to_string())
        .replace("$LAST", &(first + n - 1).to_string())
        .replace("$N", &n.to_string());
    client.batch_execute(&sql).await.unwrap();
    // Their keys, as the store's appends write them (docs/design.md §16).
    client
        .execute("SELECT events_index_keys($1)", &[&since])
        .await
        .unwrap();
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

/// Runs `sql` (plain INSERTs into `events`) and gives the events it wrote
/// their keys in `event_ids` and `streams`, as the store's appends do
/// (docs/design.md §16).
pub async fn index_keys_after(client: &tokio_postgres::Client, sql: &str) {
    let since: i64 = client
        .query_one("SELECT last_value FROM events_position_seq", &[])
        .await
        .unwrap()
        .get(0);
    client.batch_execute(sql).await.unwrap();
    client
        .execute("SELECT events_index_keys($1)", &[&since])
        .await
        .unwrap();
}
