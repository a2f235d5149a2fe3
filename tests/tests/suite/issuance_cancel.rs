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
const CHUNKS: i64 = 60;
/// The issuance worker's prefetch (`workers/src/handlers/issuance.rs`):
/// the most chunks it can hold, begun, when a cancel commits.
const IN_FLIGHT: i64 = 4;

async fn count(env: &Env, sql: &str, job: &Uuid) -> i64 {
    env.db.count(sql, &[job]).await
}

/// Uploads `LINES` users with no worker, starts one, and cancels the job
/// once two chunks are done: (job id, the answer to the cancel, the
/// coupons the job held once it answered, the worker).
async fn cancel_mid_way(env: &Env, server: &Server, sn: &str) -> (Uuid, Value, i64, Workers) {
    let headers = [("Content-Type", "text/plain")];
    let (status, answer) = upload(server, sn, users_file(0..LINES), &headers).await;
    assert_eq!(status, 202, "{answer}");
    let id = answer["job_id"].as_str().unwrap().to_owned();
    let workers = Workers::start(env, "issuance").unwrap();
    let deadline = tokio::time::Instant::now() + Duration::from_secs(120);
    while uploads::job(server, &id).await["chunks_done"].as_i64() < Some(2) {
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
    let job_id: Uuid = id.parse().unwrap();
    let at_cancel = count(env, ISSUED, &job_id).await;
    (job_id, cancelled, at_cancel, workers)
}

const ISSUED: &str = "SELECT count(*) FROM coupons WHERE job_id = $1";

/// Waits until every chunk of the job was handled (those after the cancel
/// as cancelled).
async fn every_chunk_handled(env: &Env, job_id: &Uuid) {
    let done = "SELECT count(*) FROM issuance_chunks WHERE job_id = $1 AND done_at IS NOT NULL";
    let deadline = tokio::time::Instant::now() + Duration::from_secs(120);
    while count(env, done, job_id).await < CHUNKS {
        assert!(tokio::time::Instant::now() < deadline, "chunks left");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// The template's quota, its users' counts and the events hold exactly the
/// job's `coupons`.
async fn counts_match(env: &Env, sn: &str, id: &str, coupons: i64) {
    let template = "SELECT issued FROM templates WHERE sn = $1";
    assert_eq!(env.db.count(template, &[&sn]).await, coupons);
    let claims = "SELECT coalesce(sum(claimed), 0)::bigint FROM user_claims WHERE template_sn = $1";
    assert_eq!(env.db.count(claims, &[&sn]).await, coupons);
    let events = "SELECT count(*) FROM events WHERE event_type = 'CouponIssued'
                   AND payload->>'job_id' = $1";
    assert_eq!(env.db.count(events, &[&id]).await, coupons);
}

/// The lines the job's report tells as cancelled, each with the reason.
async fn cancelled_in_report(server: &Server, id: &str) -> i64 {
    let r = server
        .admin(Method::GET, &format!("/v1/issuance-jobs/{id}/report"))
        .send()
        .await
        .unwrap();
    let report = r.text().await.unwrap();
    let cancelled: Vec<&str> = report
        .lines()
        .filter(|l| l.contains(",cancelled,"))
        .collect();
    assert!(
        cancelled
            .iter()
            .all(|l| l.ends_with("the job was cancelled"))
    );
    i64::try_from(cancelled.len()).unwrap()
}

#[tokio::test(flavor = "multi_thread")]
async fn a_job_cancelled_mid_way_ends_cancelled_and_issues_nothing_after() {
    let env = Env::new().await.unwrap();
    let server = Server::start(&env).await.unwrap();
    let sn = server
        .activate_template(&template_body(100_000, 1))
        .await
        .unwrap();
    let (job_id, cancelled, at_cancel, workers) = cancel_mid_way(&env, &server, &sn).await;
    let id = job_id.to_string();
    let done_at_cancel = cancelled["chunks_done"].as_i64().unwrap();
    assert!(
        done_at_cancel < CHUNKS - IN_FLIGHT,
        "cancelled mid-way: {cancelled}"
    );
    every_chunk_handled(&env, &job_id).await;
    let end = uploads::job(&server, &id).await;
    assert_eq!(
        end["status"], "cancelled",
        "the last chunk leaves it so: {end}"
    );
    assert!(end["finished_at"].is_string(), "{end}");
    let coupons = count(&env, ISSUED, &job_id).await;
    assert!(
        coupons - at_cancel <= IN_FLIGHT * CHUNK,
        "{at_cancel} at the cancel, {coupons} in the end"
    );
    // Chunks are whole: each issued all its lines or cancelled all.
    let whole = "SELECT count(*) FROM issuance_chunks
                  WHERE job_id = $1 AND (issued = 1000) <> (cancelled = 1000)";
    assert_eq!(count(&env, whole, &job_id).await, CHUNKS);
    let issuing = "SELECT count(*) FROM issuance_chunks WHERE job_id = $1 AND issued > 0";
    let issuing = count(&env, issuing, &job_id).await;
    assert_eq!(issuing * CHUNK, coupons);
    assert!(
        issuing <= done_at_cancel + IN_FLIGHT,
        "{issuing} chunks issued"
    );
    // Every line in one outcome; the job's counts are the coupons.
    assert_eq!(end["issued"], coupons, "{end}");
    assert_eq!(end["cancelled"], LINES as i64 - coupons, "{end}");
    assert_eq!(end["over_limit"], 0, "{end}");
    assert_eq!(end["sold_out"], 0, "{end}");
    assert_eq!(uploads::decided(&end), LINES as i64);
    counts_match(&env, &sn, &id, coupons).await;
    assert_eq!(
        cancelled_in_report(&server, &id).await,
        LINES as i64 - coupons
    );
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
