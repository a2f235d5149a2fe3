//! Calls as one principal (docs/design.md §19): any bearer token, and app
//! keys made through the API.

use reqwest::Method;
use serde_json::{Value, json};

use crate::Server;

/// One request with `token` as the bearer: (status, body).
pub async fn call(
    server: &Server,
    token: &str,
    method: Method,
    path: &str,
    body: Option<&Value>,
) -> (u16, Value) {
    let mut req = server
        .http
        .request(method, server.url(path))
        .bearer_auth(token);
    if let Some(body) = body {
        req = req.json(body);
    }
    let r = req.send().await.unwrap();
    let status = r.status().as_u16();
    (status, r.json().await.unwrap_or(Value::Null))
}

/// An app key made by the admin: (id, key).
pub async fn make_key(server: &Server, name: &str, scopes: &[&str]) -> (String, String) {
    let body = json!({"name": name, "scopes": scopes});
    let (status, made) = server.admin_post("/v1/api-keys", &body).await.unwrap();
    assert_eq!(status, 201, "{made}");
    let id = made["id"].as_str().unwrap().to_owned();
    (id, made["key"].as_str().unwrap().to_owned())
}

/// Asserts `answer` is the refusal of a route needing `permission`.
pub fn assert_forbidden(what: &str, (status, body): &(u16, Value), permission: &str) {
    assert_eq!(*status, 403, "{what}: {body}");
    assert_eq!(body["error"]["code"], "forbidden", "{what}: {body}");
    let message = body["error"]["message"].as_str().unwrap_or_default();
    assert!(
        message.contains(permission),
        "{what}: {message} names {permission}"
    );
}
