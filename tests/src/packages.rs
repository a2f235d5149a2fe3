//! Coupon packages over HTTP: an active package (listing the channels that
//! may claim it), a signed claim of it, a package job followed to its end,
//! and the templates' counters.

use std::time::Duration;

use serde_json::{Value, json};

use crate::{Channel, Env, Server};

/// An issue window around now.
pub fn window() -> Value {
    let now = chrono::Utc::now();
    json!({"begin": now - chrono::Duration::hours(1), "end": now + chrono::Duration::days(1)})
}

/// A package of `items` ((template sn, count)), active, that no channel
/// may claim (its codes still give it).
pub async fn package(server: &Server, items: &[(&str, i32)], total: i64, per_user: i32) -> String {
    package_for(server, &[], items, total, per_user).await
}

/// A package of `items` ((template sn, count)), active, that `channels`
/// may claim.
pub async fn package_for(
    server: &Server,
    channels: &[&Channel],
    items: &[(&str, i32)],
    total: i64,
    per_user: i32,
) -> String {
    let items: Vec<Value> = items
        .iter()
        .map(|(sn, count)| json!({"template_sn": sn, "count": count}))
        .collect();
    let channels: Vec<&str> = channels.iter().map(|c| c.id.as_str()).collect();
    let body = json!({"name": "welcome pack", "items": items, "total": total,
        "per_user_limit": per_user, "issue_window": window(), "channels": channels});
    let (status, created) = server.admin_post("/v1/packages", &body).await.unwrap();
    assert_eq!(status, 201, "{created}");
    assert_eq!(created["status"], "draft");
    assert_eq!(
        created["channels"].as_array().unwrap().len(),
        channels.len()
    );
    let sn = created["sn"].as_str().unwrap().to_owned();
    let (status, active) = server
        .admin_post(&format!("/v1/packages/{sn}/activate"), &json!({}))
        .await
        .unwrap();
    assert_eq!((status, active["status"].clone()), (200, json!("active")));
    sn
}

/// `POST /v1/packages/{sn}/channels`, which must succeed: the package.
pub async fn allow(server: &Server, sn: &str, channel: &Channel) -> Value {
    let body = json!({"channel_id": channel.id});
    let path = format!("/v1/packages/{sn}/channels");
    let (status, package) = server.admin_post(&path, &body).await.unwrap();
    assert_eq!(status, 200, "{package}");
    package
}

/// A signed `POST /v1/packages/{sn}/claims` for `user`.
pub async fn claim(server: &Server, channel: &Channel, sn: &str, user: &str) -> (u16, Value) {
    claim_with_key(server, channel, sn, user, None).await
}

/// [`claim`], with an `Idempotency-Key` when given.
pub async fn claim_with_key(
    server: &Server,
    channel: &Channel,
    sn: &str,
    user: &str,
    key: Option<&str>,
) -> (u16, Value) {
    claim_body(server, channel, sn, &json!({"user_id": user}), key).await
}

/// A signed `POST /v1/packages/{sn}/claims` of any body (e.g. with the
/// user's facts), with an `Idempotency-Key` when given.
pub async fn claim_body(
    server: &Server,
    channel: &Channel,
    sn: &str,
    body: &Value,
    key: Option<&str>,
) -> (u16, Value) {
    let path = format!("/v1/packages/{sn}/claims");
    let body = body.to_string();
    let signed = channel.sign("POST", &path, &body, &uuid::Uuid::new_v4().to_string());
    let mut req = server.http.post(server.url(&path)).body(body);
    req = req.header("Content-Type", "application/json");
    for (name, value) in signed.headers {
        req = req.header(name, value);
    }
    if let Some(key) = key {
        req = req.header("Idempotency-Key", key);
    }
    let r = req.send().await.unwrap();
    (r.status().as_u16(), r.json().await.unwrap_or(Value::Null))
}

/// Each template's (issued counter, coupons) in `sns` order.
pub async fn issued(env: &Env, sns: &[&str]) -> Vec<(i64, i64)> {
    let client = env.db.client().await.unwrap();
    let mut out = Vec::new();
    for sn in sns {
        let row = client
            .query_one(
                "SELECT issued, (SELECT count(*) FROM coupons WHERE template_sn = $1)
                   FROM templates WHERE sn = $1",
                &[sn],
            )
            .await
            .unwrap();
        out.push((row.get(0), row.get(1)));
    }
    out
}

/// `GET /v1/package-jobs/{id}` as the service: (status, body).
pub async fn job(server: &Server, id: &str) -> (u16, Value) {
    server
        .service_get(&format!("/v1/package-jobs/{id}"))
        .await
        .unwrap()
}

/// Polls the job until it is no longer `queued` (a minute at most).
pub async fn finished(server: &Server, id: &str) -> Value {
    let deadline = tokio::time::Instant::now() + Duration::from_secs(60);
    loop {
        let (status, job) = job(server, id).await;
        assert_eq!(status, 200, "{job}");
        if job["status"] != "queued" {
            return job;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "job {id} still queued: {job}"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}
