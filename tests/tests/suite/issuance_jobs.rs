//! Bulk issuance end to end (docs/design.md §9): a file uploaded over HTTP becomes
//! chunks on `coupon.issuance`, the issuance worker issues them, and every
//! line of the file ends in exactly one outcome that the job and its report
//! tell, with `coupons` and `events` agreeing.

use std::collections::HashMap;
use std::io::Write;

use futures_util::StreamExt;
use std::time::Duration;

use ledger::domain::issuance::{ChunkLine, IssuanceChunk};
use reqwest::Method;
use serde_json::Value;
use tests::scenario::claim_many;
use tests::uploads::{self, upload};
use tests::workers::{Workers, ledger, projections_caught_up};
use tests::{Env, Server, template_body};

async fn report(server: &Server, id: &str, all: bool) -> String {
    let r = server
        .admin(
            Method::GET,
            &format!("/v1/issuance-jobs/{id}/report?all={all}"),
        )
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200);
    r.text().await.unwrap()
}

/// A 10,000-line file: every 10th line blank, every 25th invalid (three
/// kinds), users repeated (u0..u2999), and what each line should become.
fn ten_thousand_lines() -> (String, HashMap<u64, &'static str>) {
    let mut text = String::new();
    let mut expected = HashMap::new();
    for n in 1..=10_000_u64 {
        let line = if n % 10 == 0 {
            expected.insert(n, "blank");
            String::new()
        } else if n % 25 == 0 {
            // Only spaces is a blank line (docs/design.md §9).
            let kind = n / 25 % 3;
            expected.insert(n, if kind == 0 { "blank" } else { "invalid" });
            ["   ", &"x".repeat(65), "bad\u{7}id"][kind as usize].to_owned()
        } else {
            format!("  u{}\r", n % 3000)
        };
        text.push_str(&line);
        text.push('\n');
    }
    (text, expected)
}

#[tokio::test(flavor = "multi_thread")]
async fn ten_thousand_lines_each_end_in_one_outcome_that_the_report_tells() {
    let env = Env::new().await.unwrap();
    let server = Server::start(&env).await.unwrap();
    let sn = server
        .activate_template(&template_body(100_000, 3))
        .await
        .unwrap();
    // u0..u4 already hold their limit of 3 from claims.
    for _ in 0..3 {
        claim_many(&env, &sn, 0..5, 5).await.unwrap();
    }
    let workers = Workers::start(&env, "relay,balances,template_stats,issuance").unwrap();
    let (text, expected) = ten_thousand_lines();
    let (status, answer) = upload(
        &server,
        &sn,
        text.into_bytes(),
        &[("Content-Type", "text/plain")],
    )
    .await;
    assert_eq!(status, 202, "{answer}");
    let id = answer["job_id"].as_str().unwrap().to_owned();
    let done = uploads::wait_done(&server, &id, Duration::from_secs(60)).await;
    let blank = expected.values().filter(|o| **o == "blank").count() as i64;
    let invalid = expected.values().filter(|o| **o == "invalid").count() as i64;
    assert_eq!(done["lines_read"], 10_000);
    assert_eq!(
        (done["blank"].as_i64(), done["invalid"].as_i64()),
        (Some(blank), Some(invalid))
    );
    let valid = 10_000 - blank - invalid;
    assert_eq!(done["valid"], valid);
    let sum: i64 = ["issued", "over_limit", "sold_out", "cancelled"]
        .iter()
        .map(|k| done[k].as_i64().unwrap())
        .sum();
    assert_eq!(sum, valid, "{done}");
    let rate = done["lines_per_second"]
        .as_f64()
        .expect("several chunks: a rate");
    assert_eq!((rate * 100.0).round() / 100.0, rate, "two decimals: {rate}");

    // Every line exactly once in the full report, with the right outcome.
    let full = report(&server, &id, true).await;
    let mut seen = HashMap::new();
    for row in full.lines().skip(1) {
        let fields: Vec<&str> = row.splitn(2, ',').collect();
        let line: u64 = fields[0].parse().unwrap();
        assert!(
            seen.insert(line, row.to_owned()).is_none(),
            "line {line} twice"
        );
    }
    for n in 1..=10_000_u64 {
        match expected.get(&n) {
            Some(&"blank") => assert!(!seen.contains_key(&n), "blank line {n} reported"),
            Some(&"invalid") => assert!(seen[&n].contains(",invalid,"), "{}", seen[&n]),
            _ => assert!(seen.contains_key(&n), "line {n} missing"),
        }
    }
    // u0..u4 were at their limit: every line of theirs is over_limit.
    let u1_lines: Vec<&String> = seen
        .values()
        .filter(|r| r.split(',').nth(1) == Some("u1"))
        .collect();
    assert_eq!(u1_lines.len(), 4, "{u1_lines:?}");
    assert!(
        u1_lines.iter().all(|r| r.contains(",over_limit,")),
        "{u1_lines:?}"
    );
    // Users seen 3-4 times in the file get at most their limit of 3.
    let client = env.db.client().await.unwrap();
    let over: i64 = client
        .query_one(
            "SELECT count(*) FROM (SELECT user_id FROM coupons WHERE template_sn = $1
               GROUP BY user_id HAVING count(*) > 3) AS x",
            &[&sn],
        )
        .await
        .unwrap()
        .get(0);
    assert_eq!(over, 0);
    let row = client
        .query_one(
            "SELECT (SELECT count(*) FROM coupons WHERE job_id = $1::text::uuid),
                    (SELECT count(*) FROM events WHERE event_type = 'CouponIssued'
                       AND payload->>'job_id' = $1::text)",
            &[&id],
        )
        .await
        .unwrap();
    let (coupons, events): (i64, i64) = (row.get(0), row.get(1));
    assert_eq!(
        (coupons, events),
        (done["issued"].as_i64().unwrap(), coupons)
    );
    let short = report(&server, &id, false).await;
    assert_eq!(short.lines().count() as i64 - 1, 10_000 - blank - coupons);
    projections_caught_up(&env, Duration::from_secs(60))
        .await
        .unwrap();
    workers.terminate().await.unwrap();
    let out = ledger(&env, &["replay", "--verify"]).await.unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn the_same_key_and_file_is_one_job_and_another_file_is_422() {
    let env = Env::new().await.unwrap();
    let server = Server::start(&env).await.unwrap();
    let sn = server
        .activate_template(&template_body(1_000, 1))
        .await
        .unwrap();
    let workers = Workers::start(&env, "issuance").unwrap();
    let file: String = (0..2_500).map(|i| format!("user-{i}\n")).collect();
    let key = [("Idempotency-Key", "job-1"), ("Content-Type", "text/plain")];
    let (status, first) = upload(&server, &sn, file.clone().into_bytes(), &key).await;
    assert_eq!(status, 202, "{first}");
    let id = first["job_id"].as_str().unwrap().to_owned();
    assert_eq!(first["chunks_total"], 3);
    let (status, again) = upload(&server, &sn, file.clone().into_bytes(), &key).await;
    assert_eq!((status, again["job_id"].as_str()), (202, Some(id.as_str())));
    let done = uploads::wait_done(&server, &id, Duration::from_secs(60)).await;
    let (status, _) = upload(&server, &sn, file.clone().into_bytes(), &key).await;
    assert_eq!(status, 202, "after it is done, the same answer");
    let (status, other) = upload(&server, &sn, b"someone-else\n".to_vec(), &key).await;
    assert_eq!(status, 422, "{other}");
    let metrics = server.metrics().await.unwrap();
    for expected in [
        "couponledger_issuance_lines_read_total 2500",
        "couponledger_issuance_chunks_published_total 3",
    ] {
        assert!(metrics.contains(expected), "{expected} in\n{metrics}");
    }
    assert_eq!(
        (done["issued"].as_i64(), done["sold_out"].as_i64()),
        (Some(1_000), Some(1_500))
    );
    let client = env.db.client().await.unwrap();
    let coupons: i64 = client
        .query_one(
            "SELECT count(*) FROM coupons WHERE template_sn = $1",
            &[&sn],
        )
        .await
        .unwrap()
        .get(0);
    assert_eq!(coupons, 1_000, "nothing issued twice");
    workers.terminate().await.unwrap();
}

#[tokio::test(flavor = "multi_thread")]
async fn csv_and_gzip_are_read_and_bad_uploads_are_clear_errors() {
    let env = Env::new().await.unwrap();
    let server = Server::start(&env).await.unwrap();
    let sn = server
        .activate_template(&template_body(1_000, 1))
        .await
        .unwrap();
    let workers = Workers::start(&env, "issuance").unwrap();
    let csv = "name,user_id\nAnn,a1\n\nBob,\"b,2\"\nCy,\n".to_owned();
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    gz.write_all(csv.as_bytes()).unwrap();
    let gzipped = gz.finish().unwrap();
    let headers = [("Content-Type", "text/csv"), ("Content-Encoding", "gzip")];
    let (status, answer) = upload(&server, &sn, gzipped, &headers).await;
    assert_eq!(status, 202, "{answer}");
    let done = uploads::wait_done(
        &server,
        answer["job_id"].as_str().unwrap(),
        Duration::from_secs(60),
    )
    .await;
    assert_eq!(
        (
            done["lines_read"].as_i64(),
            done["blank"].as_i64(),
            done["invalid"].as_i64(),
            done["valid"].as_i64(),
            done["issued"].as_i64()
        ),
        (Some(4), Some(1), Some(1), Some(2), Some(2)),
        "the header is not a line read: 4 = 1 blank + 1 invalid + 2 valid; {done}"
    );
    let report = report(&server, answer["job_id"].as_str().unwrap(), false).await;
    assert_eq!(
        report, "line,user_id,outcome,reason\n5,,invalid,empty after trim\n",
        "line numbers stay the file's"
    );

    let csv_headers = [("Content-Type", "text/csv")];
    let (status, e) = upload(&server, &sn, b"id,name\n1,x\n".to_vec(), &csv_headers).await;
    assert_eq!(
        (status, e["error"]["code"].as_str()),
        (400, Some("bad_request")),
        "{e}"
    );
    let (status, _) = upload(&server, "NOSUCHTEMPLATE2345678", b"u1\n".to_vec(), &[]).await;
    assert_eq!(status, 404);
    let r = server
        .admin(Method::POST, &format!("/v1/templates/{sn}/stop"))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200);
    let (status, e) = upload(&server, &sn, b"u1\n".to_vec(), &[]).await;
    assert_eq!(
        (status, e["error"]["code"].as_str()),
        (422, Some("template_not_active"))
    );
    workers.terminate().await.unwrap();
}

#[test]
fn an_issuance_chunk_message_is_valid_against_its_schema() {
    let (_, schema) = ledger::messaging::schemas::all()
        .into_iter()
        .find(|(f, _)| f == "IssuanceChunk.v1.json")
        .unwrap();
    let chunk = IssuanceChunk {
        job_id: uuid::Uuid::now_v7(),
        chunk_no: 3,
        template_sn: ledger::domain::ids::TemplateSn::stored("SN".into()),
        lines: vec![ChunkLine {
            line: 7,
            user_id: ledger::domain::ids::UserId::parse("42").expect("a user id"),
        }],
    };
    let message = ledger::messaging::chunk_message::encode(&chunk).unwrap();
    let body: Value = serde_json::from_slice(&message.body).unwrap();
    let validator = jsonschema::validator_for(&schema).unwrap();
    assert!(validator.is_valid(&body), "{body}");
    assert!(!validator.is_valid(&serde_json::json!({"job_id": "x"})));
}

/// Counts that must hold once a job is done: every line one outcome, no user
/// above the limit, every coupon with its event.
async fn assert_exact(env: &Env, done: &Value, sn: &str, limit: i64) {
    let valid = done["valid"].as_i64().unwrap();
    let decided: i64 = ["issued", "over_limit", "sold_out", "cancelled"]
        .iter()
        .map(|k| done[k].as_i64().unwrap())
        .sum();
    assert_eq!(decided, valid, "{done}");
    let read = ["blank", "invalid", "valid"]
        .iter()
        .map(|k| done[k].as_i64().unwrap())
        .sum::<i64>();
    assert_eq!(read, done["lines_read"].as_i64().unwrap(), "{done}");
    let client = env.db.client().await.unwrap();
    let row = client
        .query_one(
            "SELECT (SELECT count(*) FROM (SELECT user_id FROM coupons WHERE template_sn = $1
                       GROUP BY user_id HAVING count(*) > $2) AS x),
                    (SELECT count(*) FROM coupons WHERE template_sn = $1),
                    (SELECT count(*) FROM events e JOIN coupons c ON e.stream_id = 'coupon-' || c.id
                      WHERE c.template_sn = $1 AND e.event_type = 'CouponIssued'),
                    (SELECT issued FROM templates WHERE sn = $1)",
            &[&sn, &limit],
        )
        .await
        .unwrap();
    let (over, coupons, with_event, issued): (i64, i64, i64, i64) =
        (row.get(0), row.get(1), row.get(2), row.get(3));
    assert_eq!(over, 0, "no user above the limit");
    assert_eq!(
        (with_event, issued),
        (coupons, coupons),
        "every coupon has its event"
    );
}

/// Sends `text` as an upload that stops after `cut` bytes and never ends.
fn stalled_body(text: &str, cut: usize) -> reqwest::Body {
    let first = text.as_bytes()[..cut].to_vec();
    let stream = futures_util::stream::once(async move { Ok::<_, std::io::Error>(first) })
        .chain(futures_util::stream::pending());
    reqwest::Body::wrap_stream(stream)
}

#[tokio::test(flavor = "multi_thread")]
async fn an_upload_cut_off_by_an_api_crash_resumes_with_the_same_key_exactly() {
    let env = Env::new().await.unwrap();
    let server = Server::start(&env).await.unwrap();
    let sn = server
        .activate_template(&template_body(1_000_000, 1))
        .await
        .unwrap();
    let workers = Workers::start(&env, "issuance").unwrap();
    let text: String = (0..30_000).map(|i| format!("resume-{i}\n")).collect();
    let url = server.url(&format!("/v1/issuance-jobs?template={sn}&key=resume-1"));
    let http = server.http.clone();
    let admin = tests::ADMIN_TOKEN;
    let cut_upload = tokio::spawn({
        let body = stalled_body(&text, text.len() / 2);
        async move { http.post(url).bearer_auth(admin).body(body).send().await }
    });
    let client = env.db.client().await.unwrap();
    let published = || async {
        client
            .query_one(
                "SELECT count(*) FROM issuance_chunks WHERE published_at IS NOT NULL",
                &[],
            )
            .await
            .unwrap()
            .get::<_, i64>(0)
    };
    for _ in 0..200 {
        if published().await >= 10 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert!(published().await >= 10, "half the file was published");
    server.kill().await.unwrap();
    assert!(
        cut_upload.await.unwrap().is_err(),
        "the client saw the API go"
    );
    let server = Server::start(&env).await.unwrap();
    let jobs: Value = server
        .admin(Method::GET, "/v1/issuance-jobs")
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let id = jobs["jobs"][0]["job_id"].as_str().unwrap().to_owned();
    // Until it has been silent for a while, the job may still be uploading.
    let mut answer = (409, Value::Null);
    for _ in 0..30 {
        let key = [("Idempotency-Key", "resume-1")];
        answer = upload(&server, &sn, text.clone().into_bytes(), &key).await;
        if answer.0 != 409 {
            break;
        }
        tokio::time::sleep(Duration::from_secs(1)).await;
    }
    assert_eq!(answer.0, 202, "{}", answer.1);
    assert_eq!(
        answer.1["job_id"].as_str(),
        Some(id.as_str()),
        "the same job resumed"
    );
    let done = uploads::wait_done(&server, &id, Duration::from_secs(60)).await;
    assert_eq!(
        (done["valid"].as_i64(), done["issued"].as_i64()),
        (Some(30_000), Some(30_000))
    );
    assert_exact(&env, &done, &sn, 1).await;
    workers.terminate().await.unwrap();
}

#[tokio::test(flavor = "multi_thread")]
async fn two_issuance_workers_together_are_exact() {
    let env = Env::new().await.unwrap();
    let server = Server::start(&env).await.unwrap();
    let sn = server
        .activate_template(&template_body(15_000, 2))
        .await
        .unwrap();
    let one = Workers::start(&env, "issuance").unwrap();
    let two = Workers::start(&env, "issuance").unwrap();
    // 20,000 lines over 8,000 users (2-3 lines each), quota 15,000, limit 2.
    let text: String = (0..20_000)
        .map(|i| format!("pair-{}\n", i % 8_000))
        .collect();
    let (status, answer) = upload(&server, &sn, text.into_bytes(), &[]).await;
    assert_eq!(status, 202, "{answer}");
    let done = uploads::wait_done(
        &server,
        answer["job_id"].as_str().unwrap(),
        Duration::from_secs(60),
    )
    .await;
    assert_eq!(done["issued"], 15_000, "{done}");
    assert_exact(&env, &done, &sn, 2).await;
    one.terminate().await.unwrap();
    two.terminate().await.unwrap();
}

#[tokio::test(flavor = "multi_thread")]
async fn a_quota_smaller_than_the_file_is_shared_exactly_with_concurrent_claims() {
    let env = Env::new().await.unwrap();
    let server = std::sync::Arc::new(Server::start(&env).await.unwrap());
    let total = 4_000;
    let sn = server
        .activate_template(&template_body(total, 1))
        .await
        .unwrap();
    let channel = std::sync::Arc::new(server.channel_for(&sn).await.unwrap());
    let one = Workers::start(&env, "issuance").unwrap();
    let two = Workers::start(&env, "issuance").unwrap();
    // 6,000 distinct users in the file; 400 HTTP claims race the job, half of
    // them by users of the file (one of the two gets the coupon, or neither).
    let text: String = (0..6_000).map(|i| format!("share-{i}\n")).collect();
    let mut claims = tokio::task::JoinSet::new();
    for i in 0..400 {
        let (server, channel, sn) = (server.clone(), channel.clone(), sn.clone());
        let user = if i % 2 == 0 {
            format!("share-{}", i * 13)
        } else {
            format!("solo-{i}")
        };
        // Spread over the job's run, so that claims land between its chunks.
        let pause = Duration::from_millis(3 * i);
        claims.spawn(async move {
            tokio::time::sleep(pause).await;
            server.claim(&channel, &sn, &user).await.unwrap()
        });
    }
    let (status, answer) = upload(&server, &sn, text.into_bytes(), &[]).await;
    assert_eq!(status, 202, "{answer}");
    let mut claimed = 0;
    while let Some(answer) = claims.join_next().await {
        let (status, body) = answer.unwrap();
        assert!([201, 409, 410].contains(&status), "{status} {body}");
        claimed += i64::from(status == 201);
    }
    let done = uploads::wait_done(
        &server,
        answer["job_id"].as_str().unwrap(),
        Duration::from_secs(60),
    )
    .await;
    let issued = done["issued"].as_i64().unwrap();
    assert_eq!(
        issued + claimed,
        total,
        "the job and the claims share the quota: {done}"
    );
    assert!(
        done["sold_out"].as_i64().unwrap() >= 6_000 - total,
        "{done}"
    );
    assert_exact(&env, &done, &sn, 1).await;
    let csv = report(&server, answer["job_id"].as_str().unwrap(), false).await;
    let sold_out = csv.lines().filter(|l| l.contains(",sold_out,")).count();
    assert_eq!(
        sold_out as i64,
        done["sold_out"].as_i64().unwrap(),
        "the report tells each"
    );
    one.terminate().await.unwrap();
    two.terminate().await.unwrap();
}

/// A spreadsheet's export: a byte-order mark before the first id, and a
/// line of spaces. The first user is issued; the spaces are a blank line.
#[tokio::test(flavor = "multi_thread")]
async fn a_spreadsheets_byte_order_mark_and_spaces_only_lines_lose_no_user() {
    let env = Env::new().await.unwrap();
    let server = Server::start(&env).await.unwrap();
    let sn = server
        .activate_template(&template_body(1_000, 1))
        .await
        .unwrap();
    let workers = Workers::start(&env, "issuance").unwrap();
    for (format, body, first) in [
        ("text/plain", "\u{feff}bom-a1\n   \t \nbom-a2\n", "bom-a1"),
        (
            "text/csv",
            "\u{feff}user_id\r\nbom-b1\r\n  \r\nbom-b2\r\n",
            "bom-b1",
        ),
    ] {
        let headers = [("Content-Type", format)];
        let (status, answer) = upload(&server, &sn, body.as_bytes().to_vec(), &headers).await;
        assert_eq!(status, 202, "{answer}");
        let done = uploads::wait_done(
            &server,
            answer["job_id"].as_str().unwrap(),
            Duration::from_secs(60),
        )
        .await;
        let counts = ["lines_read", "blank", "invalid", "issued"].map(|k| done[k].as_i64());
        assert_eq!(
            counts,
            [Some(3), Some(1), Some(0), Some(2)],
            "{format}: {done}"
        );
        let (status, wallet) = server
            .service_get(&format!("/v1/users/{first}/coupons"))
            .await
            .unwrap();
        assert_eq!(
            (status, wallet["total"].as_i64()),
            (200, Some(1)),
            "{format}"
        );
    }
    workers.terminate().await.unwrap();
}
