//! Cancelling a bulk-issuance job end to end (docs/design.md §9): a job
//! cancelled mid-way ends `cancelled` and stays so; the chunks that had
//! not started issuing when the cancel committed issue nothing (only the
//! chunks the worker already held, at most its prefetch, may still commit
//! theirs); every line ends in one outcome, the cancelled ones reported
//! with the reason; the template's quota and the users' counts match the
//! coupons; a second cancel is 409; and `ledger replay --verify` agrees.

use std::time::Duration;

use reqwest::Method;
use serde_json::Value;
use tests::uploads::{self, upload, users_file};
use tests::workers::{Workers, assert_verifies_once_caught_up};
use tests::{Env, Server, template_body};
use uuid::Uuid;

/// 60 chunks of the default 1,000 lines.
const LINES: usize = 60_000;
const CHUNK: i64 = 1_000;
/// The issuance worker's prefetch (`workers/src/handlers/issuance.rs`):
/// the most chunks it can hold, begun, when a cancel commits.
const IN_FLIGHT: i64 = 4;

async fn count(env: &Env, sql: &str, job: &Uuid) -> i64 {
    env.db.count(sql, &[job]).await
}

#[tokio::test(flavor = "multi_thread")]
async fn a_job_cancelled_mid_way_ends_cancelled_and_issues_nothing_after() {
    let env = Env::new().await.unwrap();
    let server = Server::start(&env).await.unwrap();
    let sn = server
        .activate_template(&template_body(100_000, 1))
        .await
        .unwrap();
    // Uploaded with no worker: every chunk waits on the queue.
    let headers = [("Content-Type", "text/plain")];
    let (status, answer) = upload(&server, &sn, users_file(0..LINES), &headers).await;
    assert_eq!(status, 202, "{answer}");
    let id = answer["job_id"].as_str().unwrap().to_owned();
    let job_id: Uuid = id.parse().unwrap();
    let workers = Workers::start(&env, "issuance").unwrap();
    let deadline = tokio::time::Instant::now() + Duration::from_secs(120);
    while uploads::job(&server, &id).await["chunks_done"].as_i64() < Some(2) {
        assert!(tokio::time::Instant::now() < deadline, "no chunk issued");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let r = server
        .admin(Method::POST, &format!("/v1/issuance-jobs/{id}/cancel"))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200);
    let cancelled: Value = r.json().await.unwrap();
    assert_eq!(cancelled["status"], "cancelled", "{cancelled}");
    let issued = "SELECT count(*) FROM coupons WHERE job_id = $1";
    let at_cancel = count(&env, issued, &job_id).await;
    let done_at_cancel = cancelled["chunks_done"].as_i64().unwrap();
    assert!(done_at_cancel < 60 - IN_FLIGHT, "cancelled mid-way: {cancelled}");

    // Every chunk is handled (the ones after the cancel as cancelled).
    let done = "SELECT count(*) FROM issuance_chunks WHERE job_id = $1 AND done_at IS NOT NULL";
    while count(&env, done, &job_id).await < 60 {
        assert!(tokio::time::Instant::now() < deadline, "chunks left");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let end = uploads::job(&server, &id).await;
    assert_eq!(end["status"], "cancelled", "the last chunk leaves it so: {end}");
    assert!(end["finished_at"].is_string(), "{end}");
    let coupons = count(&env, issued, &job_id).await;
    assert!(
        coupons - at_cancel <= IN_FLIGHT * CHUNK,
        "{at_cancel} at the cancel, {coupons} in the end"
    );
    // Chunks are whole: each issued all its lines or cancelled all.
    let issuing = "SELECT count(*) FROM issuance_chunks WHERE job_id = $1 AND issued > 0";
    let whole = "SELECT count(*) FROM issuance_chunks
                  WHERE job_id = $1 AND (issued = 1000) <> (cancelled = 1000)";
    assert_eq!(count(&env, whole, &job_id).await, 60);
    let issuing = count(&env, issuing, &job_id).await;
    assert_eq!(issuing * CHUNK, coupons);
    assert!(issuing <= done_at_cancel + IN_FLIGHT, "{issuing} chunks issued");
    assert!(issuing < 60, "the cancel stopped the job");
    // Every line in one outcome; the job's counts are the coupons.
    assert_eq!(end["issued"], coupons, "{end}");
    assert_eq!(end["cancelled"], LINES as i64 - coupons, "{end}");
    assert_eq!((end["over_limit"].clone(), end["sold_out"].clone()), (0.into(), 0.into()));
    assert_eq!(uploads::decided(&end), LINES as i64);
    // The quota and the users' counts hold exactly the coupons.
    let template = env
        .db
        .count("SELECT issued FROM templates WHERE sn = $1", &[&sn])
        .await;
    assert_eq!(template, coupons);
    let claims = "SELECT coalesce(sum(claimed), 0)::bigint FROM user_claims WHERE template_sn = $1";
    assert_eq!(env.db.count(claims, &[&sn]).await, coupons);
    let events = "SELECT count(*) FROM events WHERE event_type = 'CouponIssued'
                   AND payload->>'job_id' = $1";
    assert_eq!(env.db.count(events, &[&id]).await, coupons);
    // The report tells each cancelled line, and why.
    let r = server
        .admin(Method::GET, &format!("/v1/issuance-jobs/{id}/report"))
        .send()
        .await
        .unwrap();
    let report = r.text().await.unwrap();
    let reported = report.lines().filter(|l| l.contains(",cancelled,")).count();
    assert_eq!(reported as i64, LINES as i64 - coupons);
    assert!(report.contains("the job was cancelled"), "{}", &report[..200]);
    // Nothing is left to cancel.
    let r = server
        .admin(Method::POST, &format!("/v1/issuance-jobs/{id}/cancel"))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 409);
    workers.terminate().await.unwrap();
    assert_verifies_once_caught_up(&env).await;
}
