//! HTTP as clients and proxies expect it: 405 with `Allow`, 415 for a body
//! that is not JSON, 400 for trailing bytes, unknown query fields and NUL
//! characters (naming the field), 413 at once for a declared oversize body,
//! slow-header clients cut off, and no metric series from made-up methods.

use std::time::{Duration, Instant};

use reqwest::Method;
use serde_json::{Value, json};
use tests::{Env, Server};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

async fn error_of(r: reqwest::Response) -> (u16, String, String) {
    let status = r.status().as_u16();
    let body: Value = r.json().await.unwrap_or(Value::Null);
    let code = body["error"]["code"]
        .as_str()
        .unwrap_or_default()
        .to_owned();
    let message = body["error"]["message"]
        .as_str()
        .unwrap_or_default()
        .to_owned();
    (status, code, message)
}

fn address(server: &Server) -> String {
    server.base.trim_start_matches("http://").to_owned()
}

#[tokio::test]
async fn a_wrong_method_is_405_with_allow() {
    let env = Env::new().await.unwrap();
    let server = Server::start(&env).await.unwrap();
    let r = server
        .admin(Method::DELETE, "/v1/channels")
        .send()
        .await
        .unwrap();
    let allow = r
        .headers()
        .get("allow")
        .map(|v| v.to_str().unwrap().to_owned());
    assert_eq!(allow.as_deref(), Some("POST"));
    let (status, code, _) = error_of(r).await;
    assert_eq!((status, code.as_str()), (405, "method_not_allowed"));
}

#[tokio::test]
async fn bodies_must_be_one_json_value_of_the_json_type() {
    let env = Env::new().await.unwrap();
    let server = Server::start(&env).await.unwrap();
    let post = |body: &'static str, content_type: &'static str| {
        server
            .admin(Method::POST, "/v1/channels")
            .header("Content-Type", content_type)
            .body(body)
            .send()
    };
    let (status, _, message) = error_of(
        post(r#"{"name": "a"} {"#, "application/json")
            .await
            .unwrap(),
    )
    .await;
    assert_eq!(status, 400, "{message}");
    assert!(message.contains("trailing characters"), "{message}");
    let (status, code, _) = error_of(post(r#"{"name": "a"}"#, "text/plain").await.unwrap()).await;
    assert_eq!((status, code.as_str()), (415, "unsupported_media_type"));
    let (status, _, message) = error_of(
        post(r#"{"name": "a\u0000b"}"#, "application/json")
            .await
            .unwrap(),
    )
    .await;
    assert_eq!(
        (status, message.as_str()),
        (400, "name: must not contain a NUL character")
    );
    let ok = post(r#"{"name": "a"}"#, "application/json; charset=utf-8")
        .await
        .unwrap();
    assert_eq!(ok.status(), 201);
}

#[tokio::test]
async fn nul_in_a_path_or_query_and_unknown_query_fields_are_400() {
    let env = Env::new().await.unwrap();
    let server = Server::start(&env).await.unwrap();
    let r = server
        .service(Method::POST, "/v1/orders/o%00x/cancel")
        .json(&json!({}))
        .send()
        .await
        .unwrap();
    let (status, _, message) = error_of(r).await;
    assert_eq!(
        (status, message.as_str()),
        (400, "order_id: must not contain a NUL character")
    );
    for query in ["status=un%00used", "bogus=1"] {
        let r = server
            .service(Method::GET, &format!("/v1/users/u1/coupons?{query}"))
            .send()
            .await
            .unwrap();
        let (status, _, message) = error_of(r).await;
        assert_eq!(status, 400, "{query}: {message}");
    }
}

#[tokio::test]
async fn a_declared_oversize_body_is_413_at_once() {
    let env = Env::new().await.unwrap();
    let server = Server::start(&env).await.unwrap();
    let mut tcp = tokio::net::TcpStream::connect(address(&server))
        .await
        .unwrap();
    let started = Instant::now();
    tcp.write_all(
        b"POST /v1/channels HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n\
          Content-Length: 10000000\r\n\r\n{",
    )
    .await
    .unwrap();
    let mut answer = vec![0; 1024];
    let n = tokio::time::timeout(Duration::from_secs(5), tcp.read(&mut answer))
        .await
        .expect("answered without waiting for the body")
        .unwrap();
    let head = String::from_utf8_lossy(&answer[..n]);
    assert!(head.starts_with("HTTP/1.1 413"), "{head}");
    assert!(started.elapsed() < Duration::from_secs(5));
}

#[tokio::test]
async fn a_client_that_sends_headers_slowly_is_cut_off() {
    let env = Env::new().await.unwrap();
    let server = Server::start(&env).await.unwrap();
    let mut tcp = tokio::net::TcpStream::connect(address(&server))
        .await
        .unwrap();
    let started = Instant::now();
    tcp.write_all(b"GET /healthz HTTP/1.1\r\nHost: x\r\n")
        .await
        .unwrap();
    let mut rest = Vec::new();
    let closed = tokio::time::timeout(Duration::from_secs(30), tcp.read_to_end(&mut rest)).await;
    assert!(
        closed.is_ok(),
        "the connection is closed within the header timeout"
    );
    let waited = started.elapsed();
    assert!(
        waited >= Duration::from_secs(8) && waited < Duration::from_secs(20),
        "cut off after {waited:?}"
    );
}

#[tokio::test]
async fn made_up_methods_add_no_metric_series() {
    let env = Env::new().await.unwrap();
    let server = Server::start(&env).await.unwrap();
    let brew = Method::from_bytes(b"BREW").unwrap();
    let r = server.admin(brew, "/healthz").send().await.unwrap();
    assert_eq!(r.status(), 405);
    let metrics = server
        .http
        .get(server.url("/metrics"))
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    assert!(!metrics.contains("BREW"), "{metrics}");
    assert!(metrics.contains(r#"method="other""#), "{metrics}");
}
