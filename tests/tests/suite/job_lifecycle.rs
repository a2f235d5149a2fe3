//! A job's stored status is what its read shows (the chunks' own
//! transactions move it), and ended jobs are purged after
//! `LEDGER_JOB_RETENTION_DAYS` with their chunks and report, their coupons
//! kept.

use std::time::Duration;

use reqwest::Method;
use serde_json::Value;
use tests::uploads;
use tests::workers::Workers;
use tests::{Env, Server};

async fn upload(server: &Server, sn: &str, users: std::ops::Range<usize>) -> String {
    let headers = [("Content-Type", "text/plain")];
    let (status, answer) = uploads::upload(server, sn, uploads::users_file(users), &headers).await;
    assert_eq!(status, 202, "{answer}");
    answer["job_id"].as_str().unwrap().to_owned()
}

async fn read(server: &Server, id: &str) -> (u16, Value) {
    let r = server
        .admin(Method::GET, &format!("/v1/issuance-jobs/{id}"))
        .send()
        .await
        .unwrap();
    (r.status().as_u16(), r.json().await.unwrap_or(Value::Null))
}

async fn stored(client: &tokio_postgres::Client, id: &str) -> Option<String> {
    let id: uuid::Uuid = id.parse().unwrap();
    client
        .query_opt("SELECT status FROM issuance_jobs WHERE id = $1", &[&id])
        .await
        .unwrap()
        .map(|r| r.get(0))
}

#[tokio::test(flavor = "multi_thread")]
async fn a_jobs_read_is_never_ahead_of_its_stored_status() {
    let env = Env::new().await.unwrap();
    let server = Server::start(&env).await.unwrap();
    let workers = Workers::start(&env, "issuance").unwrap();
    let sn = server.active_template(20_000, 1).await.unwrap();
    let client = env.db.client().await.unwrap();
    let id = upload(&server, &sn, 0..20_000).await;
    let mut seen = Vec::new();
    for _ in 0..600 {
        let (_, job) = read(&server, &id).await;
        let shown = job["status"].as_str().unwrap().to_owned();
        // Read after the answer: the store holds at least what was shown.
        let held = stored(&client, &id).await.unwrap();
        if shown == "running" || shown == "done" {
            assert!(
                held == shown || (shown == "running" && held == "done"),
                "shown {shown}, stored {held}"
            );
        }
        seen.push(shown.clone());
        if shown == "done" {
            assert!(job["finished_at"].is_string(), "{job}");
            assert_eq!(job["chunks_done"], job["chunks_total"]);
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert_eq!(seen.last().map(String::as_str), Some("done"), "{seen:?}");
    assert_eq!(stored(&client, &id).await.as_deref(), Some("done"));
    let (_, done) = read(&server, &id).await;
    assert_eq!(done["issued"], 20_000);
    workers.terminate().await.unwrap();
}

#[tokio::test(flavor = "multi_thread")]
async fn ended_jobs_past_their_retention_are_purged_with_their_report_and_their_coupons_stay() {
    let env = Env::new().await.unwrap();
    let server = Server::start(&env).await.unwrap();
    let workers = Workers::start(&env, "issuance").unwrap();
    let sn = server.active_template(100, 1).await.unwrap();
    // 150 lines on a quota of 100: 50 lines in the report.
    let old = upload(&server, &sn, 0..150).await;
    let recent = upload(&server, &sn, 150..160).await;
    for id in [&old, &recent] {
        for _ in 0..300 {
            if read(&server, id).await.1["status"] == "done" {
                break;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }
    workers.terminate().await.unwrap();
    let client = env.db.client().await.unwrap();
    let old_id: uuid::Uuid = old.parse().unwrap();
    client
        .execute(
            "UPDATE issuance_jobs SET finished_at = now() - interval '91 days' WHERE id = $1",
            &[&old_id],
        )
        .await
        .unwrap();
    let count = |sql: &'static str| {
        let client = &client;
        async move {
            let row = client.query_one(sql, &[&old_id]).await.unwrap();
            row.get::<_, i64>(0)
        }
    };
    assert_eq!(
        count("SELECT count(*) FROM issuance_lines WHERE job_id = $1").await,
        50
    );

    let scanner = Workers::start(&env, "scanner").unwrap();
    for _ in 0..100 {
        if read(&server, &old).await.0 == 404 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let (status, body) = read(&server, &old).await;
    assert_eq!(status, 404, "{body}");
    assert!(body["error"]["message"].as_str().unwrap().contains(&old));
    let r = server
        .admin(Method::GET, &format!("/v1/issuance-jobs/{old}/report"))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 404, "its report went with it");
    assert_eq!(
        count("SELECT count(*) FROM issuance_lines WHERE job_id = $1").await,
        0
    );
    assert_eq!(
        count("SELECT count(*) FROM issuance_chunks WHERE job_id = $1").await,
        0
    );
    assert_eq!(
        count("SELECT count(*) FROM coupons WHERE job_id = $1").await,
        100,
        "the coupons stay"
    );
    assert_eq!(read(&server, &recent).await.0, 200, "a recent job stays");
    scanner.terminate().await.unwrap();
}

#[tokio::test(flavor = "multi_thread")]
async fn ended_package_jobs_past_their_retention_are_purged() {
    let env = Env::new().await.unwrap();
    let server = Server::start(&env).await.unwrap();
    let workers = Workers::start(&env, "issuance").unwrap();
    let a = server.active_template(1_000, 200).await.unwrap();
    let channel = server.channel_for(&a).await.unwrap();
    let sn = tests::packages::package_for(&server, &[&channel], &[(&a, 101)], 10, 1).await;
    let mut ids = Vec::new();
    for user in ["ann", "bob"] {
        let (status, answer) = tests::packages::claim(&server, &channel, &sn, user).await;
        assert_eq!(status, 202, "{answer}");
        let id = answer["job_id"].as_str().unwrap().to_owned();
        assert_eq!(
            tests::packages::finished(&server, &id).await["status"],
            "done"
        );
        ids.push(id);
    }
    workers.terminate().await.unwrap();
    let client = env.db.client().await.unwrap();
    let old: uuid::Uuid = ids[0].parse().unwrap();
    client
        .execute(
            "UPDATE package_jobs SET finished_at = now() - interval '91 days' WHERE id = $1",
            &[&old],
        )
        .await
        .unwrap();
    let scanner = Workers::start(&env, "scanner").unwrap();
    for _ in 0..100 {
        if tests::packages::job(&server, &ids[0]).await.0 == 404 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert_eq!(tests::packages::job(&server, &ids[0]).await.0, 404);
    assert_eq!(tests::packages::job(&server, &ids[1]).await.0, 200);
    let coupons: i64 = client
        .query_one("SELECT count(*) FROM coupons WHERE user_id = 'ann'", &[])
        .await
        .unwrap()
        .get(0);
    assert_eq!(coupons, 101, "the coupons stay");
    scanner.terminate().await.unwrap();
}
