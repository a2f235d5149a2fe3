//! Bulk-issuance uploads over HTTP, as `ledger issue` sends them.

use reqwest::Method;
use serde_json::Value;

use crate::Server;

/// Uploads `body` for `sn` with `headers`; (status, answer).
pub async fn upload(
    server: &Server,
    sn: &str,
    body: Vec<u8>,
    headers: &[(&str, &str)],
) -> (u16, Value) {
    // A file of a million lines streams for minutes on a loaded machine.
    let patience = std::time::Duration::from_secs(900);
    let mut req = server
        .admin(Method::POST, &format!("/v1/issuance-jobs?template={sn}"))
        .timeout(patience)
        .body(body);
    for (k, v) in headers {
        req = req.header(*k, *v);
    }
    let r = req.send().await.unwrap();
    (r.status().as_u16(), r.json().await.unwrap_or(Value::Null))
}

/// A text file of one user id per line, `user-<i>` for each of `users`.
pub fn users_file(users: std::ops::Range<usize>) -> Vec<u8> {
    users
        .map(|i| format!("user-{i}\n"))
        .collect::<String>()
        .into_bytes()
}

/// Uploads `body` to the allow-list of `sn` (`mode` add or remove) with
/// `headers`; (status, answer).
pub async fn upload_allow_list(
    server: &Server,
    sn: &str,
    mode: &str,
    body: Vec<u8>,
    headers: &[(&str, &str)],
) -> (u16, Value) {
    let path = format!("/v1/templates/{sn}/allow-list?mode={mode}");
    // Answered once applied: a list of millions takes minutes.
    let patience = std::time::Duration::from_secs(900);
    let mut req = server
        .admin(Method::POST, &path)
        .timeout(patience)
        .body(body);
    for (k, v) in headers {
        req = req.header(*k, *v);
    }
    let r = req.send().await.unwrap();
    (r.status().as_u16(), r.json().await.unwrap_or(Value::Null))
}

/// The outcomes a job line ends in: each valid line in exactly one.
pub const OUTCOMES: [&str; 5] = [
    "issued",
    "over_limit",
    "sold_out",
    "cancelled",
    "not_eligible",
];

/// How many lines a job's view counts in an outcome (a missing count is 0).
pub fn decided(job: &Value) -> i64 {
    OUTCOMES.iter().filter_map(|k| job[*k].as_i64()).sum()
}

/// A bulk-issuance job as `GET /v1/issuance-jobs/{id}` answers it.
pub async fn job(server: &Server, id: &str) -> Value {
    let r = server
        .admin(Method::GET, &format!("/v1/issuance-jobs/{id}"))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200);
    r.json().await.unwrap()
}

/// The job once it is `done`; panics with it if it is not within `patience`
/// or if it `failed`. A refused or unanswered read is asked again: the
/// failover tests wait through a primary's death.
pub async fn wait_done(server: &Server, id: &str, patience: std::time::Duration) -> Value {
    let until = std::time::Instant::now() + patience;
    let path = format!("/v1/issuance-jobs/{id}");
    let mut last = Value::Null;
    while std::time::Instant::now() < until {
        if let Ok(r) = server.admin(Method::GET, &path).send().await
            && r.status() == 200
        {
            last = r.json().await.unwrap();
            match last["status"].as_str() {
                Some("done") => return last,
                Some("failed") => panic!("job {id} failed: {last}"),
                _ => {}
            }
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    panic!("job {id} not done within {patience:?}: {last}");
}

/// Uploads `text` (`text/plain`) for `sn` and waits for the job (workers
/// running `issuance`): the job once `done`.
pub async fn issue_text(
    server: &Server,
    sn: &str,
    text: String,
    patience: std::time::Duration,
) -> Value {
    let (status, answer) = upload(
        server,
        sn,
        text.into_bytes(),
        &[("Content-Type", "text/plain")],
    )
    .await;
    assert_eq!(status, 202, "{answer}");
    let id = answer["job_id"].as_str().expect("a job id");
    wait_done(server, id, patience).await
}
