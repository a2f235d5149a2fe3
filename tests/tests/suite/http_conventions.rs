//! HTTP conventions and hardened edges (issue 12): NUL and lone surrogates
//! refused naming the field, leap seconds refused, ended templates neither
//! activated nor claimed, 405 with `Allow`, 415, trailing bytes, slow
//! headers cut off, a declared oversize body refused at once, bounded metric
//! labels, money with two places, integer user ids.

use std::time::{Duration, Instant};

use chrono::Utc;
use reqwest::Method;
use serde_json::{Value, json};
use tests::{Channel, Env, SERVICE_TOKEN, Server, template_body};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

/// Asserts a 400 whose message names `field`.
fn assert_400_naming(what: &str, (status, body): (u16, Value), field: &str) {
    let message = body["error"]["message"].as_str().unwrap_or_default();
    assert_eq!(status, 400, "{what}: {body}");
    assert!(message.contains(field), "{what}: {message:?} names {field}");
}

async fn admin_raw(server: &Server, method: Method, path: &str, body: &str) -> (u16, Value) {
    let r = server
        .admin(method, path)
        .header("Content-Type", "application/json")
        .body(body.to_owned())
        .send()
        .await
        .unwrap();
    (r.status().as_u16(), r.json().await.unwrap_or(Value::Null))
}

async fn service_raw(server: &Server, method: Method, path: &str, body: &str) -> (u16, Value) {
    let r = server
        .service(method, path)
        .header("Content-Type", "application/json")
        .body(body.to_owned())
        .send()
        .await
        .unwrap();
    (r.status().as_u16(), r.json().await.unwrap_or(Value::Null))
}

/// A signed claim of an arbitrary JSON body.
async fn claim_raw(server: &Server, channel: &Channel, body: &str) -> (u16, Value) {
    let nonce = uuid::Uuid::new_v4().to_string();
    let signed = channel.sign("POST", "/v1/claims", body, &nonce);
    server.send_signed(signed, body.to_owned()).await.unwrap()
}

fn order(user: Value, lines: usize) -> Value {
    let lines: Vec<Value> = (0..lines)
        .map(|i| {
            json!({"line_id": format!("line-{i:06}"), "sku": format!("SKU-{i:010}"),
                   "category": "category-01", "quantity": 1, "unit_price": "12.50"})
        })
        .collect();
    json!({"order_id": "o-1", "user_id": user, "currency": "CNY", "region": "310000",
           "user_tags": ["vip"], "lines": lines, "shipping_fee": "0.00"})
}

/// `body` with the string at `pointer` replaced by one holding a NUL.
fn with_nul(body: &Value, pointer: &str) -> String {
    let mut body = body.clone();
    *body.pointer_mut(pointer).unwrap() = json!("a\u{0}b");
    body.to_string()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_nul_in_any_text_is_400_naming_the_field() {
    let env = Env::new().await.unwrap();
    let server = Server::start(&env).await.unwrap();
    let sn = server.active_template(10, 1).await.unwrap();
    let channel = server.channel_for(&sn).await.unwrap();

    let mut template = template_body(10, 1);
    template["use_scope"] = json!([{"kind": "category", "values": ["c-1", "c-2"]}]);
    for (pointer, field) in [
        ("/name", "name"),
        ("/currency", "currency"),
        ("/use_scope/0/values/1", "use_scope[0].values[1]"),
    ] {
        let body = with_nul(&template, pointer);
        let answer = admin_raw(&server, Method::POST, "/v1/templates", &body).await;
        assert_400_naming(pointer, answer, field);
    }
    let answer = admin_raw(
        &server,
        Method::POST,
        "/v1/channels",
        &with_nul(&json!({"name": "x"}), "/name"),
    )
    .await;
    assert_400_naming("channel name", answer, "name");

    let claim = json!({"template_sn": sn, "user_id": "u1"});
    let answer = claim_raw(&server, &channel, &with_nul(&claim, "/user_id")).await;
    assert_400_naming("claim user_id", answer, "user_id");

    let quote = json!({"user_id": "u1", "order": order(json!("u1"), 2)});
    for (pointer, field) in [
        ("/order/order_id", "order.order_id"),
        ("/order/region", "order.region"),
        ("/order/user_tags/0", "order.user_tags[0]"),
        ("/order/lines/1/line_id", "order.lines[1].line_id"),
        ("/order/lines/0/sku", "order.lines[0].sku"),
        ("/order/lines/0/category", "order.lines[0].category"),
        ("/order/user_id", "order.user_id"),
    ] {
        let body = with_nul(&quote, pointer);
        let answer = service_raw(&server, Method::POST, "/v1/orders/quote", &body).await;
        assert_400_naming(pointer, answer, field);
    }
    let refund = json!({"refund_id": "r1", "lines": [{"line_id": "l1", "quantity": 1}]});
    for (pointer, field) in [
        ("/refund_id", "refund_id"),
        ("/lines/0/line_id", "lines[0].line_id"),
    ] {
        let body = with_nul(&refund, pointer);
        let answer = service_raw(&server, Method::POST, "/v1/orders/o-1/refunds", &body).await;
        assert_400_naming(pointer, answer, field);
    }

    for (path, field) in [
        ("/v1/orders/o%00x/cancel", "order_id"),
        ("/v1/orders/o%00x/confirm", "order_id"),
    ] {
        let answer = service_raw(&server, Method::POST, path, "").await;
        assert_400_naming(path, answer, field);
    }
    for (path, field) in [
        ("/v1/users/u%001/balance", "uid"),
        ("/v1/users/u1/coupons?status=un%00used", "status"),
        (
            "/v1/coupons/00000000-0000-0000-0000-000000000000?user_id=%00",
            "user_id",
        ),
    ] {
        let answer = server.service_get(path).await.unwrap();
        assert_400_naming(path, answer, field);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn lone_surrogates_and_trailing_bytes_are_400() {
    let env = Env::new().await.unwrap();
    let server = Server::start(&env).await.unwrap();
    for body in [
        r#"{"name": "\ud800"}"#,
        r#"{"name": "x\udfffy"}"#,
        r#"{"name": "ok"} trailing"#,
        r#"{"name": "ok"}{"name": "again"}"#,
    ] {
        let (status, answer) = admin_raw(&server, Method::POST, "/v1/channels", body).await;
        assert_eq!(status, 400, "{body}: {answer}");
        assert_eq!(answer["error"]["code"], "bad_request", "{body}: {answer}");
    }
    let (status, _) = admin_raw(
        &server,
        Method::POST,
        "/v1/channels",
        "{\"name\": \"ok\"} \n",
    )
    .await;
    assert_eq!(status, 201, "trailing whitespace is no trailing bytes");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn leap_seconds_are_400_naming_the_field() {
    let env = Env::new().await.unwrap();
    let server = Server::start(&env).await.unwrap();
    let mut validity = template_body(10, 1);
    validity["validity"] = json!({"type": "absolute",
        "begin": "2026-12-31T23:59:60Z", "end": "2027-02-01T00:00:00Z"});
    let mut window = template_body(10, 1);
    window["issue_window"]["end"] = json!("2026-12-31T23:59:60Z");
    for (body, field) in [(validity, "begin"), (window, "issue_window.end")] {
        let answer = server.admin_post("/v1/templates", &body).await.unwrap();
        assert_400_naming(field, answer, field);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_template_that_has_ended_is_not_activated() {
    let env = Env::new().await.unwrap();
    let server = Server::start(&env).await.unwrap();
    let now = Utc::now();
    let mut window_ended = template_body(10, 1);
    window_ended["issue_window"] = json!({"begin": now - chrono::Duration::days(2),
        "end": now - chrono::Duration::days(1)});
    let mut validity_ended = template_body(10, 1);
    validity_ended["validity"] = json!({"type": "absolute",
        "begin": now - chrono::Duration::days(2), "end": now - chrono::Duration::days(1)});
    for (body, code) in [
        (window_ended, "issue_window_ended"),
        (validity_ended, "validity_ended"),
    ] {
        let (status, created) = server.admin_post("/v1/templates", &body).await.unwrap();
        assert_eq!(status, 201, "{created}");
        let sn = created["sn"].as_str().unwrap();
        let activate = format!("/v1/templates/{sn}/activate");
        let (status, answer) = server.admin_post(&activate, &json!({})).await.unwrap();
        assert_eq!(
            (status, answer["error"]["code"].as_str()),
            (422, Some(code)),
            "{answer}"
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_claim_is_never_answered_with_an_expired_coupon() {
    let env = Env::new().await.unwrap();
    let server = Server::start(&env).await.unwrap();
    let now = Utc::now();
    let mut body = template_body(10, 5);
    body["validity"] = json!({"type": "absolute",
        "begin": now - chrono::Duration::days(1), "end": now + chrono::Duration::seconds(2)});
    let sn = server.activate_template(&body).await.unwrap();
    let channel = server.channel_for(&sn).await.unwrap();
    let (status, coupon) = server.claim(&channel, &sn, "u1").await.unwrap();
    assert_eq!(status, 201, "{coupon}");
    tokio::time::sleep(Duration::from_millis(2500)).await;
    let (status, answer) = server.claim(&channel, &sn, "u1").await.unwrap();
    assert_eq!(status, 422, "{answer}");
    assert_eq!(answer["error"]["code"], "validity_ended");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn wrong_methods_are_405_with_allow_and_other_types_415() {
    let env = Env::new().await.unwrap();
    let server = Server::start(&env).await.unwrap();
    let r = server
        .admin(Method::DELETE, "/v1/channels")
        .send()
        .await
        .unwrap();
    assert_eq!(r.status().as_u16(), 405);
    let allow = r
        .headers()
        .get("allow")
        .map(|v| v.to_str().unwrap().to_owned());
    assert_eq!(allow.as_deref(), Some("POST,GET,HEAD"));
    let body: Value = r.json().await.unwrap();
    assert_eq!(body["error"]["code"], "method_not_allowed", "{body}");

    for content_type in ["text/plain", "application/x-www-form-urlencoded"] {
        let r = server
            .admin(Method::POST, "/v1/channels")
            .header("Content-Type", content_type)
            .body(r#"{"name": "x"}"#)
            .send()
            .await
            .unwrap();
        assert_eq!(r.status().as_u16(), 415, "{content_type}");
        let body: Value = r.json().await.unwrap();
        assert_eq!(body["error"]["code"], "unsupported_media_type", "{body}");
    }
    for content_type in [Some("application/json; charset=utf-8"), None] {
        let mut req = server.admin(Method::POST, "/v1/channels");
        if let Some(ct) = content_type {
            req = req.header("Content-Type", ct);
        }
        let r = req.body(r#"{"name": "x"}"#).send().await.unwrap();
        assert_eq!(r.status().as_u16(), 201, "{content_type:?} is read as JSON");
    }

    // A body-less POST needs no Content-Type.
    let (_, created) = server
        .admin_post("/v1/templates", &template_body(1, 1))
        .await
        .unwrap();
    let sn = created["sn"].as_str().unwrap();
    let r = server
        .admin(Method::POST, &format!("/v1/templates/{sn}/activate"))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status().as_u16(), 200);

    // Unknown query fields stay 400.
    let (status, _) = server
        .service_get("/v1/users/u1/coupons?colour=red")
        .await
        .unwrap();
    assert_eq!(status, 400);
}

/// Reads until the server closes the connection; how long that took.
async fn time_to_close(stream: &mut TcpStream, limit: Duration) -> Option<Duration> {
    let started = Instant::now();
    let mut buf = [0u8; 1024];
    loop {
        match tokio::time::timeout_at((started + limit).into(), stream.read(&mut buf)).await {
            Ok(Ok(0)) | Ok(Err(_)) => return Some(started.elapsed()),
            Ok(Ok(_)) => continue,
            Err(_) => return None,
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_client_sending_headers_slowly_is_cut_off() {
    let env = Env::new().await.unwrap();
    // The bound is 10 s in production; a short one keeps the test quick.
    let server = Server::start_with(&env, &[("LEDGER_HEADER_TIMEOUT_MS", "1000")])
        .await
        .unwrap();
    let addr = server.base.trim_start_matches("http://").to_owned();
    let mut stream = TcpStream::connect(&addr).await.unwrap();
    stream
        .write_all(b"GET /healthz HTTP/1.1\r\nHost: x\r\nX-Slow: ")
        .await
        .unwrap();
    let closed = time_to_close(&mut stream, Duration::from_secs(5)).await;
    let closed = closed.expect("the server closes a slow client's connection");
    assert!(
        closed >= Duration::from_millis(900),
        "closed after {closed:?}"
    );
    // Others are still served, on a connection of their own: the server's
    // pooled client may hold one the short bound closed while it idled.
    let fresh = reqwest::Client::new();
    let status = fresh
        .get(server.url("/healthz"))
        .send()
        .await
        .unwrap()
        .status();
    assert_eq!(status, 200);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_declared_oversize_body_is_413_at_once() {
    let env = Env::new().await.unwrap();
    let server = Server::start(&env).await.unwrap();
    let addr = server.base.trim_start_matches("http://").to_owned();
    let mut stream = TcpStream::connect(&addr).await.unwrap();
    let head = format!(
        "POST /v1/orders/quote HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {SERVICE_TOKEN}\r\n\
         Content-Type: application/json\r\nContent-Length: 10000000\r\n\r\n"
    );
    stream.write_all(head.as_bytes()).await.unwrap();
    let mut buf = vec![0u8; 1024];
    let n = tokio::time::timeout(Duration::from_secs(3), stream.read(&mut buf))
        .await
        .expect("answered without waiting for the body")
        .unwrap();
    let answer = String::from_utf8_lossy(&buf[..n]);
    assert!(answer.starts_with("HTTP/1.1 413"), "{answer}");
    assert!(answer.contains("payload_too_large"), "{answer}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn made_up_methods_add_no_metric_series() {
    let env = Env::new().await.unwrap();
    let server = Server::start(&env).await.unwrap();
    for name in ["BREW", "WHEN", "PROPFIND"] {
        let method = Method::from_bytes(name.as_bytes()).unwrap();
        let r = server
            .http
            .request(method, server.url("/healthz"))
            .send()
            .await
            .unwrap();
        assert_eq!(r.status().as_u16(), 405, "{name}");
    }
    let text = server.metrics().await.unwrap();
    for name in ["BREW", "WHEN", "PROPFIND"] {
        assert!(!text.contains(name), "{name} in /metrics");
    }
    assert!(text.contains("method=\"other\""), "{text}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn money_is_always_written_with_two_places() {
    let env = Env::new().await.unwrap();
    let server = Server::start(&env).await.unwrap();
    let (status, balance) = server
        .service_get("/v1/users/nobody/balance")
        .await
        .unwrap();
    assert_eq!(status, 200, "{balance}");
    for (state, bucket) in balance["by_status"].as_object().unwrap() {
        assert_eq!(bucket["face_value"], "0.00", "{state}: {balance}");
    }
    let sn = server.active_template(10, 1).await.unwrap();
    let r = server
        .admin(Method::GET, &format!("/v1/templates/{sn}/stats"))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status().as_u16(), 200);
    let stats: Value = r.json().await.unwrap();
    assert_eq!(
        (stats["liability"].as_str(), stats["cost"].as_str()),
        (Some("0.00"), Some("0.00")),
        "{stats}"
    );
    let mut order = order(json!("nobody"), 1);
    order["shipping_fee"] = json!("0");
    let quote = json!({"user_id": "nobody", "order": order});
    let (status, quote) = server
        .service_post("/v1/orders/quote", &quote)
        .await
        .unwrap();
    assert_eq!(status, 200, "{quote}");
    assert_eq!(quote["best"]["discount"], "0.00", "{quote}");
    assert_eq!(quote["best"]["payable"], "12.50", "{quote}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn integer_user_ids_are_the_same_users_as_their_text() {
    let env = Env::new().await.unwrap();
    let server = Server::start(&env).await.unwrap();
    let sn = server.active_template(10, 1).await.unwrap();
    let channel = server.channel_for(&sn).await.unwrap();
    let (status, coupon) = claim_raw(
        &server,
        &channel,
        &format!(r#"{{"template_sn": "{sn}", "user_id": 42}}"#),
    )
    .await;
    assert_eq!(status, 201, "{coupon}");
    assert_eq!(coupon["user_id"], "42", "{coupon}");
    let (status, again) = server.claim(&channel, &sn, "42").await.unwrap();
    assert_eq!(
        (status, again["error"]["code"].as_str()),
        (409, Some("per_user_limit")),
        "{again}"
    );
    let max = format!(r#"{{"template_sn": "{sn}", "user_id": 9223372036854775807}}"#);
    assert_eq!(claim_raw(&server, &channel, &max).await.0, 201);
    for bad in ["4.2", "-1", "true", "{}", "9223372036854775808"] {
        let body = format!(r#"{{"template_sn": "{sn}", "user_id": {bad}}}"#);
        assert_400_naming(bad, claim_raw(&server, &channel, &body).await, "user_id");
    }
    // JSON has one kind of number: 1e3 and 42.0 are the integers 1000 and
    // 42 (docs/design.md §21, "Schemas that say what the API checks").
    let thousand = format!(r#"{{"template_sn": "{sn}", "user_id": 1e3}}"#);
    let (status, coupon) = claim_raw(&server, &channel, &thousand).await;
    assert_eq!(
        (status, coupon["user_id"].as_str()),
        (201, Some("1000")),
        "{coupon}"
    );
    let again = format!(r#"{{"template_sn": "{sn}", "user_id": 42.0}}"#);
    let (status, refused) = claim_raw(&server, &channel, &again).await;
    assert_eq!(
        (status, refused["error"]["code"].as_str()),
        (409, Some("per_user_limit"))
    );
    let quote = json!({"user_id": 42, "order": order(json!(42), 1)});
    let (status, answer) = server
        .service_post("/v1/orders/quote", &quote)
        .await
        .unwrap();
    assert_eq!(status, 200, "{answer}");
    let usable = answer["coupons"].as_array().unwrap();
    assert_eq!(usable.len(), 1, "user 42's coupon is quoted: {answer}");
    let quote = json!({"user_id": "42", "order": order(json!(4.2), 1)});
    let answer = server
        .service_post("/v1/orders/quote", &quote)
        .await
        .unwrap();
    assert_400_naming("order.user_id 4.2", answer, "order.user_id");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_quote_of_the_most_lines_fits_the_body_limit() {
    let env = Env::new().await.unwrap();
    let server = Server::start(&env).await.unwrap();
    let quote = json!({"user_id": "u1", "order": order(json!("u1"), 1000)});
    assert!(quote.to_string().len() > 64 * 1024, "realistic lines");
    let (status, answer) = server
        .service_post("/v1/orders/quote", &quote)
        .await
        .unwrap();
    assert_eq!(status, 200, "{answer}");
    let quote = json!({"user_id": "u1", "order": order(json!("u1"), 1001)});
    let (status, answer) = server
        .service_post("/v1/orders/quote", &quote)
        .await
        .unwrap();
    assert_eq!(status, 400, "{answer}");
}
