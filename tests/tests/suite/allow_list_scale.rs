//! A large allow-list applied to a large issuance file (docs/design.md
//! §15): the list uploaded gzipped, the file's lines of users on it
//! issued, every other line reported `not_eligible` by its number.
//! ALLOW_LIST_SIZE ids and lines: 200,000 in CI, the 1,000,000 as
//! a benchmark (docs/benchmarks.md). Ignored in the parallel run, run
//! alone by `scripts/test` after it.

use std::io::Write;
use std::time::{Duration, Instant};

use serde_json::json;
use tests::bench::env_number;
use tests::uploads::{upload, upload_allow_list, wait_done};
use tests::workers::Workers;
use tests::{Env, Server, template_body};

/// How many ids the list holds, and lines the file has (ALLOW_LIST_SIZE:
/// 200,000 in CI; the 1,000,000 in docs/benchmarks.md). The file
/// names users `first..first + lines`: its first half listed.
fn sizes() -> (usize, usize, usize) {
    let n = env_number("ALLOW_LIST_SIZE", 200_000) as usize;
    (n, n / 2, n)
}

fn gzip(lines: impl Iterator<Item = usize>) -> Vec<u8> {
    let mut out = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    for i in lines {
        writeln!(out, "u-{i}").unwrap();
    }
    out.finish().unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
#[ignore = "minutes alone: scripts/test runs it after the parallel suite"]
async fn a_large_list_applied_to_a_large_file() {
    let (listed, first, lines) = sizes();
    let env = Env::new().await.unwrap();
    let server = Server::start(&env).await.unwrap();
    let mut body = template_body(2_000_000, 1);
    body["eligibility"] = json!({"allow_list": true});
    let sn = server.activate_template(&body).await.unwrap();
    let started = Instant::now();
    let gz = [("Content-Encoding", "gzip")];
    let (status, file) = upload_allow_list(&server, &sn, "add", gzip(0..listed), &gz).await;
    assert_eq!(status, 201, "{file}");
    assert_eq!(file["changed"], listed as i64, "{file}");
    eprintln!("allow-list of {listed} ids in {:?}", started.elapsed());

    let workers = Workers::start(&env, "issuance").unwrap();
    let started = Instant::now();
    let (status, job) = upload(&server, &sn, gzip(first..first + lines), &gz).await;
    assert_eq!(status, 202, "{job}");
    let id = job["job_id"].as_str().unwrap().to_owned();
    let job = wait_done(&server, &id, Duration::from_secs(900)).await;
    eprintln!("issuance of {lines} lines in {:?}", started.elapsed());
    workers.terminate().await.unwrap();
    let eligible = (listed - first) as i64;
    let counts = ["valid", "issued", "not_eligible"].map(|k| job[k].as_i64().unwrap());
    assert_eq!(
        counts,
        [lines as i64, eligible, lines as i64 - eligible],
        "{job}"
    );

    let report = server
        .admin(
            reqwest::Method::GET,
            &format!("/v1/issuance-jobs/{id}/report"),
        )
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    let mut refused = 0;
    for line in report.lines().skip(1) {
        let mut fields = line.split(',');
        let number: usize = fields.next().unwrap().parse().unwrap();
        let user = fields.next().unwrap();
        assert_eq!(user, format!("u-{}", first + number - 1), "{line}");
        assert!(first + number > listed, "a listed user refused: {line}");
        assert_eq!(fields.next(), Some("not_eligible"), "{line}");
        refused += 1;
    }
    assert_eq!(
        refused,
        lines - (listed - first),
        "every ineligible line, once"
    );
    let client = env.db.client().await.unwrap();
    let row = client
        .query_one(
            // An anti-join, not NOT IN: a million-row NOT IN list that
            // outgrows work_mem is searched row by row (hours).
            "SELECT count(*), count(*) FILTER (WHERE NOT EXISTS
                    (SELECT 1 FROM template_allow_list a
                      WHERE a.template_sn = c.template_sn AND a.user_id = c.user_id))
               FROM coupons c WHERE c.template_sn = $1",
            &[&sn],
        )
        .await
        .unwrap();
    assert_eq!((row.get::<_, i64>(0), row.get::<_, i64>(1)), (eligible, 0));
}
