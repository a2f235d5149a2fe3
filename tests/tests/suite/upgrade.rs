//! The upgrade in place (docs/design.md §16): a store made by the release
//! before partitioning (migrations up to V28: `events` one table), holding
//! data (UPGRADE_COUPONS coupons, 200,000 in CI and 1,000,000 as a benchmark, one in ten
//! expired, the whole log sealed and checkpointed), moves to the
//! partitioned layout through `ledger migrate`; the pause is measured, and
//! afterwards `ledger replay --verify` and `ledger audit verify` pass, the
//! keys of the old events guard new appends, and the ledger serves.
//! Minutes on two cores: ignored in the parallel run, run alone by
//! `scripts/test` after it.

use std::time::{Duration, Instant};

use ledger::testkit::{TestDb, TestRedis, TestVhost};
use tests::bench::env_number;
use tests::workers::{Workers, ledger};
use tests::{Env, Server};

/// The release before partitioning: the last migration it had.
const BEFORE: i32 = 28;

/// `$N` coupons as the ledger of V28 wrote them: a template, coupons with
/// their `CouponIssued`, one in ten expired (its `CouponExpired`, version 2),
/// and the projections caught up with them.
const STORE: &str = "
INSERT INTO templates (sn, name, kind, currency, terms, face_value, issue_begin, issue_end,
                       total, issued, per_user_limit, refund_policy, status, version, created_at)
VALUES ('UPGRADE2345TEMPXTE67', 'upgrade', 'goods', 'CNY',
        '{\"kind\": \"goods\", \"currency\": \"CNY\", \"stacking\": \"stackable\", \"use_scope\": [],
          \"discount\": {\"type\": \"fixed_off\", \"amount\": \"20.00\", \"threshold\": \"100.00\"},
          \"validity\": {\"type\": \"relative\", \"end_days\": 7, \"begin_days\": 0},
          \"face_value\": \"20.00\"}',
        20.00, now() - interval '1 day', now() + interval '1 day', $N, $N, 1, 'restore',
        'active', 2, now());
INSERT INTO events (event_id, stream_id, stream_version, event_type, schema_version, payload,
                    metadata, occurred_at)
SELECT gen_random_uuid(), 'template-UPGRADE2345TEMPXTE67', v, t, 1, p, '{\"actor\": \"admin\"}', now()
  FROM (VALUES (1, 'TemplateCreated', jsonb_build_object('sn', 'UPGRADE2345TEMPXTE67',
          'name', 'upgrade', 'terms', (SELECT terms FROM templates), 'total', $N,
          'per_user_limit', 1, 'refund_policy', 'restore',
          'issue_window', jsonb_build_object('begin', now() - interval '1 day',
                                             'end', now() + interval '1 day'))),
               (2, 'TemplateActivated', '{\"sn\": \"UPGRADE2345TEMPXTE67\", \"from\": \"draft\",
                                          \"to\": \"active\"}'::jsonb)) AS x (v, t, p);
CREATE TEMP TABLE up AS
  SELECT gen_random_uuid() AS id, 'u' || i AS user_id, i % 10 = 0 AS expired
    FROM generate_series(1, $N) i;
INSERT INTO events (event_id, stream_id, stream_version, event_type, schema_version, payload,
                    metadata, occurred_at)
  SELECT gen_random_uuid(), 'coupon-' || id, 1, 'CouponIssued', 1,
         jsonb_build_object('coupon_id', id, 'template_sn', 'UPGRADE2345TEMPXTE67',
           'user_id', user_id, 'issued_at', now() - interval '10 days',
           'effective_at', now() - interval '10 days', 'expires_at', now() - interval '3 days',
           'face_value', '20.00', 'currency', 'CNY'),
         '{\"actor\": \"bench\", \"correlation_id\": \"upgrade\"}', now() - interval '10 days'
    FROM up;
INSERT INTO events (event_id, stream_id, stream_version, event_type, schema_version, payload,
                    metadata, occurred_at)
  SELECT gen_random_uuid(), 'coupon-' || id, 2, 'CouponExpired', 1,
         jsonb_build_object('coupon_id', id), '{\"actor\": \"system:scanner\"}',
         now() - interval '3 days'
    FROM up WHERE expired;
INSERT INTO coupons (id, template_sn, user_id, status, issued_at, effective_at, expires_at, version)
  SELECT id, 'UPGRADE2345TEMPXTE67', user_id, CASE WHEN expired THEN 'expired' ELSE 'unused' END,
         now() - interval '10 days', now() - interval '10 days', now() - interval '3 days',
         CASE WHEN expired THEN 2 ELSE 1 END
    FROM up;
INSERT INTO user_claims SELECT 'UPGRADE2345TEMPXTE67', user_id, 1 FROM up;
INSERT INTO balances
  SELECT user_id, CASE WHEN expired THEN 'expired' ELSE 'unused' END, 1, 20.00 FROM up;
INSERT INTO template_stats
  SELECT 'UPGRADE2345TEMPXTE67', CASE WHEN expired THEN 'expired' ELSE 'unused' END, count(*),
         20.00 * count(*)
    FROM up GROUP BY expired;
INSERT INTO template_totals VALUES ('UPGRADE2345TEMPXTE67', $N, 0);
INSERT INTO projection_positions (projection, position, applied)
  SELECT p, (SELECT max(position) FROM events), (SELECT count(*) FROM events)
    FROM unnest(ARRAY['balances', 'template_stats']) p;
";

/// UPGRADE_COUPONS: 200,000 in CI; the benchmark's 1,000,000 in
/// docs/benchmarks.md, where the pause is measured.
fn coupons() -> i64 {
    i64::try_from(env_number("UPGRADE_COUPONS", 200_000)).unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
#[ignore = "minutes alone: scripts/test runs it after the parallel suite"]
async fn a_store_of_the_release_before_moves_to_partitions_through_migrate() {
    let env = Env {
        db: TestDb::at_version(BEFORE).await.unwrap(),
        vhost: TestVhost::new().await.unwrap(),
        redis: TestRedis::new().unwrap(),
        redis_url: None,
    };
    let n = coupons();
    let client = env.db.client().await.unwrap();
    client
        .batch_execute(&STORE.replace("$N", &n.to_string()))
        .await
        .unwrap();
    client.batch_execute("VACUUM ANALYZE").await.unwrap();
    let events = env.db.count("SELECT count(*) FROM events", &[]).await;
    assert_eq!(events, n + n / 10 + 2);
    seal_everything(&env, events).await;

    // The upgrade: the pause is the migration's length.
    let started = Instant::now();
    let out = ledger(&env, &["migrate"]).await.unwrap();
    let pause = started.elapsed();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    eprintln!("upgrade of {events} events ({n} coupons): {pause:.1?}");
    let applied = String::from_utf8_lossy(&out.stdout);
    assert!(applied.contains("V29__partitioned_events"), "{applied}");

    // Every event is where it was, and every key is kept.
    assert_eq!(
        env.db.count("SELECT count(*) FROM events_p0", &[]).await,
        events
    );
    assert_eq!(
        env.db.count("SELECT count(*) FROM event_ids", &[]).await,
        events
    );
    assert_eq!(
        env.db.count("SELECT count(*) FROM streams", &[]).await,
        n + 1
    );
    assert_eq!(
        env.db
            .count("SELECT count(*) FROM streams WHERE version = 2", &[])
            .await,
        n / 10 + 1
    );
    verified(&env, &["audit", "verify"], "chain intact").await;
    verified(&env, &["replay", "--verify"], "0 differences").await;

    // The old keys guard new appends; the ledger serves on the new layout.
    let server = Server::start(&env).await.unwrap();
    let path = "/v1/templates/UPGRADE2345TEMPXTE67/quota";
    let raised = serde_json::json!({"total": n + 10});
    let (status, body) = server.admin_post(path, &raised).await.unwrap();
    assert_eq!(status, 200, "{body}");
    let template = env
        .db
        .count(
            "SELECT version::bigint FROM streams WHERE stream_id = 'template-UPGRADE2345TEMPXTE67'",
            &[],
        )
        .await;
    assert_eq!(
        template, 3,
        "the template's stream went on from its old version"
    );
}

/// Runs the sealer until every event is sealed and a checkpoint closes them.
async fn seal_everything(env: &Env, events: i64) {
    let workers = Workers::start(env, "sealer").unwrap();
    let deadline = Instant::now() + Duration::from_secs(900);
    loop {
        let sealed = env.db.count("SELECT count(*) FROM event_seals", &[]).await;
        let checkpointed = env
            .db
            .count(
                "SELECT coalesce(max(last_seq), 0) FROM seal_checkpoints",
                &[],
            )
            .await;
        if sealed == events && checkpointed == events {
            break;
        }
        assert!(Instant::now() < deadline, "sealed {sealed} of {events}");
        tokio::time::sleep(Duration::from_secs(1)).await;
    }
    workers.terminate().await.unwrap();
}

/// `ledger <args>` exits 0 and says `expect` on stdout.
async fn verified(env: &Env, args: &[&str], expect: &str) {
    let out = ledger(env, args).await.unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success() && stdout.contains(expect),
        "{args:?}: {stdout}{}",
        String::from_utf8_lossy(&out.stderr)
    );
}
