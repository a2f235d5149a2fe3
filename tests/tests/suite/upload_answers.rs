//! Uploads always answer (issue 26): a declared length over the limit is
//! 413 before the body is read, a stalled body is cut off after the idle
//! bound with the job left resumable, and a file without a line of data is
//! 422 with no job. Sent over raw sockets where a client would misbehave.

use std::time::{Duration, Instant};

use reqwest::Method;
use serde_json::Value;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

use tests::uploads::upload;
use tests::{Env, Server};

/// The jobs the API lists.
async fn jobs(server: &Server) -> Vec<Value> {
    let r = server.admin(Method::GET, "/v1/issuance-jobs").send().await;
    let list: Value = r.unwrap().json().await.unwrap();
    list["jobs"].as_array().unwrap().clone()
}

/// Sends `head` (the request line and headers) and `body` over a raw
/// socket, as a client that declares more than it sends, and reads the
/// answer for at most `wait`: (status, body), status 0 if none came.
async fn raw_upload(server: &Server, head: &str, body: &[u8], wait: Duration) -> (u16, String) {
    let address = server.base.trim_start_matches("http://");
    let mut socket = tokio::net::TcpStream::connect(address).await.unwrap();
    socket.write_all(head.as_bytes()).await.unwrap();
    socket.write_all(body).await.unwrap();
    let mut answer = Vec::new();
    let _ = tokio::time::timeout(wait, async {
        let mut buf = [0; 4096];
        while let Ok(n @ 1..) = socket.read(&mut buf).await {
            answer.extend_from_slice(&buf[..n]);
            if complete(&answer) {
                break;
            }
        }
    })
    .await;
    let text = String::from_utf8_lossy(&answer).into_owned();
    let status = text.get(9..12).and_then(|s| s.parse().ok()).unwrap_or(0);
    let body = text
        .split_once("\r\n\r\n")
        .map_or("", |(_, b)| b)
        .to_owned();
    (status, body)
}

/// A response whose headers and Content-Length body are all there.
fn complete(answer: &[u8]) -> bool {
    let text = String::from_utf8_lossy(answer);
    let Some((head, body)) = text.split_once("\r\n\r\n") else {
        return false;
    };
    let length = head
        .lines()
        .find_map(|l| {
            l.to_ascii_lowercase()
                .strip_prefix("content-length:")
                .map(|v| v.trim().to_owned())
        })
        .and_then(|v| v.parse::<usize>().ok());
    length.is_some_and(|n| body.len() >= n)
}

fn upload_head(server: &Server, sn: &str, key: &str, content_length: u64) -> String {
    format!(
        "POST /v1/issuance-jobs?template={sn}&key={key} HTTP/1.1\r\nHost: {}\r\n\
         Authorization: Bearer {}\r\nContent-Type: text/plain\r\n\
         Content-Length: {content_length}\r\n\r\n",
        server.base.trim_start_matches("http://"),
        tests::ADMIN_TOKEN
    )
}

#[tokio::test(flavor = "multi_thread")]
async fn a_declared_length_over_the_limit_is_413_at_once_and_makes_no_job() {
    let env = Env::new().await.unwrap();
    let server = Server::start(&env).await.unwrap();
    let sn = server.active_template(100, 1).await.unwrap();
    let started = Instant::now();
    let head = upload_head(&server, &sn, "huge", 2 * 1024 * 1024 * 1024);
    let (status, body) = raw_upload(&server, &head, b"u1\n", Duration::from_secs(5)).await;
    let elapsed = started.elapsed();
    assert_eq!(status, 413, "{body}");
    assert!(
        elapsed < Duration::from_secs(1),
        "answered after {elapsed:?}"
    );
    assert!(body.contains("payload_too_large"), "{body}");
    assert!(jobs(&server).await.is_empty(), "no job was made");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_stalled_body_is_answered_408_within_the_idle_bound_and_the_job_resumes() {
    let env = Env::new().await.unwrap();
    let server = Server::start_with(&env, &[("LEDGER_UPLOAD_IDLE_SECS", "1")])
        .await
        .unwrap();
    let sn = server.active_template(100, 1).await.unwrap();
    let started = Instant::now();
    let head = upload_head(&server, &sn, "stalls", 1_000);
    let (status, body) = raw_upload(&server, &head, b"u1\nu2\n", Duration::from_secs(10)).await;
    let elapsed = started.elapsed();
    assert_eq!(status, 408, "{body}");
    assert!(
        elapsed < Duration::from_secs(4),
        "answered after {elapsed:?}"
    );
    let listed = jobs(&server).await;
    assert_eq!(listed.len(), 1, "{listed:?}");
    let id = listed[0]["job_id"].as_str().unwrap();
    assert_eq!(listed[0]["status"], "incomplete", "{}", listed[0]);
    assert!(
        body.contains(id) && body.contains("stalls"),
        "names the job and its key: {body}"
    );

    // The same key with the whole file resumes that job.
    let key = [("Idempotency-Key", "stalls")];
    let (status, answer) = upload(&server, &sn, b"u1\nu2\nu3\n".to_vec(), &key).await;
    assert_eq!(
        (status, answer["job_id"].as_str()),
        (202, Some(id)),
        "{answer}"
    );
    assert_eq!(answer["lines_read"], 3, "{answer}");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_file_without_a_line_of_data_is_422_empty_file_and_leaves_no_job() {
    let env = Env::new().await.unwrap();
    let server = Server::start(&env).await.unwrap();
    let sn = server.active_template(100, 1).await.unwrap();
    let cases: [(&str, &str); 5] = [
        ("", "text/plain"),
        ("\n\r\n\n", "text/plain"),
        ("", "text/csv"),
        ("user_id\n", "text/csv"),
        ("name,user_id\r\n\n", "text/csv"),
    ];
    for (body, media) in cases {
        let headers = &[("Content-Type", media)];
        let shown = body;
        let (status, e) = upload(&server, &sn, body.as_bytes().to_vec(), headers).await;
        assert_eq!(
            (status, e["error"]["code"].as_str()),
            (422, Some("empty_file")),
            "{shown:?} {media}: {e}"
        );
    }
    assert!(jobs(&server).await.is_empty(), "no job was kept");
    let client = env.db.client().await.unwrap();
    let rows: i64 = client
        .query_one("SELECT count(*) FROM issuance_jobs", &[])
        .await
        .unwrap()
        .get(0);
    assert_eq!(rows, 0);
}
