//! Runs of `CouponIssued` applied set-based (`projections::apply_batch`)
//! count exactly what applying them one by one counts: every new coupon
//! once, a coupon seen before (a redelivery, or twice in one batch) not
//! again, and the position moves to the latest event given in commit
//! order (a repeat at a batch's end does not move it back).

use chrono::{SubsecRound, Utc};
use ledger::domain::events::{CouponIssued, Metadata};
use ledger::domain::ledger_event::LedgerEvent;
use ledger::domain::money::Money;
use ledger::domain::projection::Tally;
use ledger::projections;
use ledger::store::{self, GlobalCursor, NewEvent, RecordedEvent, StreamEvent};
use ledger::testkit::TestDb;
use uuid::Uuid;

/// `n` coupons of `T1` for users u0..u(n/2) (two each), stored; their events.
async fn issued(db: &TestDb, n: u64) -> Vec<RecordedEvent> {
    let now = Utc::now().trunc_subsecs(6);
    let metadata = Metadata {
        actor: "test".into(),
        correlation_id: "runs".into(),
        ..Default::default()
    };
    let events: Vec<StreamEvent> = (0..n)
        .map(|i| {
            let c = CouponIssued {
                coupon_id: Uuid::now_v7(),
                template_sn: ledger::domain::ids::TemplateSn::stored("T1".into()),
                user_id: ledger::domain::ids::UserId::parse(&format!("u{}", i / 2))
                    .expect("a user id"),
                issued_at: now,
                effective_at: now,
                expires_at: now + chrono::Duration::days(7),
                face_value: Money::parse("20.00").unwrap(),
                currency: "CNY".into(),
                channel_id: None,
                refund_from: None,
                job_id: None,
                job_line: None,
                remind_days_before: None,
                job_notify: false,
            };
            StreamEvent {
                stream_id: format!("coupon-{}", c.coupon_id),
                stream_version: 1,
                event: NewEvent::of(&LedgerEvent::CouponIssued(c), &metadata, now).unwrap(),
            }
        })
        .collect();
    let mut client = db.pool.get().await.unwrap();
    let tx = client.transaction().await.unwrap();
    store::copy_events(&tx, &events).await.unwrap();
    tx.commit().await.unwrap();
    ledger::testkit::read_all_settled(&**client, GlobalCursor::START, 10_000)
        .await
        .unwrap()
}

async fn apply(db: &TestDb, tally: Tally, events: &[RecordedEvent]) {
    let mut client = db.pool.get().await.unwrap();
    let tx = client.transaction().await.unwrap();
    projections::apply_batch(&tx, tally, events)
        .await
        .map_err(|(i, e)| format!("event {i}: {e}"))
        .unwrap();
    tx.commit().await.unwrap();
}

#[tokio::test]
async fn a_run_counts_each_new_coupon_once_and_skips_what_it_saw() {
    let db = TestDb::new().await.unwrap();
    let events = issued(&db, 3_000).await;
    assert_eq!(events.len(), 3_000);
    for tally in [Tally::PerUser, Tally::PerTemplate] {
        apply(&db, tally, &events[..1_000]).await;
        // Overlapping the first batch, one event twice, longer than a run.
        let mut again: Vec<RecordedEvent> = events[900..].to_vec();
        again.push(events[2_500].clone());
        apply(&db, tally, &again).await;
    }
    let client = db.client().await.unwrap();
    let row = client
        .query_one(
            "SELECT (SELECT sum(count)::bigint FROM balances WHERE status = 'unused'),
                    (SELECT count(DISTINCT user_id) FROM balances),
                    (SELECT max(count) FROM balances),
                    (SELECT count FROM template_stats WHERE template_sn = 'T1' AND status = 'unused'),
                    (SELECT face_value::text FROM template_stats WHERE template_sn = 'T1'),
                    (SELECT issued FROM template_totals WHERE template_sn = 'T1'),
                    (SELECT count(*) FROM projection_coupons),
                    (SELECT position FROM projection_positions WHERE projection = 'balances')",
            &[],
        )
        .await
        .unwrap();
    assert_eq!(row.get::<_, i64>(0), 3_000, "every coupon counted once");
    assert_eq!(row.get::<_, i64>(1), 1_500);
    assert_eq!(row.get::<_, i64>(2), 2, "two per user");
    assert_eq!(row.get::<_, i64>(3), 3_000);
    assert_eq!(row.get::<_, String>(4), "60000.00");
    assert_eq!(row.get::<_, i64>(5), 3_000);
    assert_eq!(
        row.get::<_, i64>(6),
        6_000,
        "one view per coupon and projection"
    );
    assert_eq!(
        row.get::<_, i64>(7),
        events[2_999].position,
        "the latest event in commit order, not the repeat after it"
    );
}
