//! Hostile text never gets a 5xx. For every operation in `/openapi.json`,
//! every text field of a valid request body, every path parameter and every
//! query parameter is replaced, one at a time, by each hostile value: a NUL,
//! a lone surrogate escape, a 10 KB string, a leap second and far-future
//! instants. The sweep is exhaustive (every field × every value), so a new
//! route or field is covered as soon as it is documented; a documented route
//! with a body this test has no valid example of fails it.

use reqwest::Method;
use serde_json::{Value, json};
use tests::scenario::{checkout, claim_many};
use tests::{Channel, Env, Server, template_body};

const PLACEHOLDER: &str = "__hostile__";

/// Hostile values as JSON text, for bodies.
fn hostile_json() -> Vec<String> {
    vec![
        r#""a\u0000b""#.into(),
        r#""\ud800""#.into(),
        r#""x\udfffy""#.into(),
        format!("\"{}\"", "x".repeat(10 * 1024)),
        r#""2026-12-31T23:59:60Z""#.into(),
        r#""9999-12-31T23:59:59Z""#.into(),
        r#""+275760-09-13T00:00:00Z""#.into(),
    ]
}

/// Hostile values, percent-encoded, for path segments and query values.
fn hostile_url() -> Vec<String> {
    vec![
        "o%00x".into(),
        "%ED%A0%80".into(),
        "%FF%FE".into(),
        "x".repeat(10 * 1024),
        "2026-12-31T23%3A59%3A60Z".into(),
        "%2B275760-09-13T00%3A00%3A00Z".into(),
    ]
}

/// What the sweep needs to build valid requests.
struct Fixture {
    sn: String,
    channel: Channel,
    coupon: String,
    order: String,
}

fn order_body(order_id: &str) -> Value {
    json!({"order_id": order_id, "user_id": "u0", "currency": "CNY", "region": "310000",
           "user_tags": ["vip"],
           "lines": [{"line_id": "l1", "sku": "s1", "category": "c1",
                      "quantity": 1, "unit_price": "150.00"}],
           "shipping_fee": "0.00"})
}

/// A template with every optional part: absolute validity, a rate rule, scope.
fn full_template() -> Value {
    let mut body = template_body(10, 1);
    body["validity"] = json!({"type": "absolute",
        "begin": "2026-11-01T00:00:00Z", "end": "2027-01-01T00:00:00Z"});
    body["discount"] = json!({"type": "rate", "rate_off": "0.12", "threshold": "10.00",
        "max_off": "50.00"});
    body["face_value"] = json!("50.00");
    body["use_scope"] = json!([{"kind": "category", "values": ["c-9", "c-10"]},
        {"kind": "user_tag", "values": ["vip"]}]);
    body
}

/// Valid bodies for each documented operation that takes one.
fn base_bodies(method: &Method, template: &str, f: &Fixture) -> Option<Vec<Value>> {
    let file_upload = ["/v1/issuance-jobs", "/v1/templates/{sn}/allow-list"];
    if method.as_str() == "POST" && file_upload.contains(&template) {
        // A file of user ids, not JSON: its lines are the upload tests' part.
        return Some(vec![]);
    }
    if (method.as_str(), template) == ("POST", "/v1/templates") {
        return Some(vec![template_body(10, 1), full_template()]);
    }
    let body = match (method.as_str(), template) {
        ("PATCH", "/v1/templates/{sn}") => json!({"name": "renamed", "remind_days_before": 2}),
        ("POST", "/v1/templates/{sn}/quota") => json!({"total": 20}),
        ("POST", "/v1/templates/{sn}/channels") => json!({"channel_id": f.channel.id}),
        ("POST", "/v1/channels") => json!({"name": "partner"}),
        ("POST", "/v1/channels/{id}/secret") => json!({"overlap_secs": 60}),
        ("POST", "/v1/api-keys") => json!({"name": "app-1", "scopes": ["orders"]}),
        ("POST", "/v1/api-keys/{id}/rotate") => json!({"overlap_secs": 60}),
        ("POST", "/v1/webhooks") => {
            json!({"url": "https://1.1.1.1/hook", "event_types": ["*"], "description": "crm"})
        }
        ("PATCH", "/v1/webhooks/{id}") => json!({"description": "crm", "event_types": ["*"]}),
        ("POST", "/v1/webhooks/{id}/secret") => json!({"overlap_secs": 60}),
        ("POST", "/v1/webhooks/{id}/replay") => json!({"from_position": 0}),
        (_, t) if t.ends_with("/disable") || t.ends_with("/enable") => json!({}),
        (_, t) if t.ends_with("/revoke") => json!({}),
        ("POST", "/v1/claims") => json!({"template_sn": f.sn, "user_id": "u9"}),
        ("POST", "/v1/code-batches") => json!({"template_sn": f.sn, "count": 5}),
        ("POST", "/v1/redemptions") => json!({"code": "AAAAAAAAAA", "user_id": "u1"}),
        ("POST", "/v1/packages") => json!({"name": "pack", "total": 5, "per_user_limit": 1,
            "items": [{"template_sn": f.sn, "count": 1}], "channels": [f.channel.id],
            "issue_window": {"begin": "2026-01-01T00:00:00Z", "end": "2036-01-01T00:00:00Z"}}),
        ("POST", "/v1/packages/{sn}/channels") => json!({"channel_id": f.channel.id}),
        ("POST", "/v1/packages/{sn}/claims") => json!({"user_id": "u9"}),
        ("POST", "/v1/orders/quote") => json!({"user_id": "u0", "order": order_body("o-q")}),
        ("POST", "/v1/orders/lock") => json!({"order": order_body("o-new"),
            "coupon_ids": [f.coupon], "expected_payable": "130.00"}),
        ("POST", "/v1/orders/{order_id}/refunds") => {
            json!({"refund_id": "r1", "lines": [{"line_id": "l1", "quantity": 1}]})
        }
        (_, t) if t.ends_with("/activate") || t.ends_with("/stop") || t.ends_with("/void") => {
            json!({})
        }
        (_, t) if t.ends_with("/confirm") || t.ends_with("/cancel") => json!({}),
        _ => return None,
    };
    Some(vec![body])
}

/// A valid value of each path parameter.
fn path_value(name: &str, template: &str, f: &Fixture) -> String {
    match name {
        "sn" => f.sn.clone(),
        "order_id" => f.order.clone(),
        "uid" | "user_id" => "u0".into(),
        "id" if template.starts_with("/v1/coupons") => f.coupon.clone(),
        "id" => uuid::Uuid::now_v7().to_string(),
        other => panic!("no valid value for path parameter {other} of {template}"),
    }
}

/// JSON pointers of every string in `v`.
fn string_leaves(v: &Value, at: String, out: &mut Vec<String>) {
    match v {
        Value::String(_) => out.push(at),
        Value::Array(items) => {
            for (i, item) in items.iter().enumerate() {
                string_leaves(item, format!("{at}/{i}"), out);
            }
        }
        Value::Object(map) => {
            for (k, item) in map {
                string_leaves(item, format!("{at}/{k}"), out);
            }
        }
        _ => {}
    }
}

/// One documented operation: method, path template, its path and query parameters.
struct Operation {
    method: Method,
    template: String,
    path_params: Vec<String>,
    query_params: Vec<String>,
    has_body: bool,
}

async fn operations(server: &Server) -> Vec<Operation> {
    let doc = server.openapi().await.unwrap();
    let mut ops = Vec::new();
    for (template, item) in doc["paths"].as_object().unwrap() {
        for (method, op) in item.as_object().unwrap() {
            let Ok(method) = Method::from_bytes(method.to_uppercase().as_bytes()) else {
                continue;
            };
            let params = op["parameters"].as_array().cloned().unwrap_or_default();
            let named = |place: &str| -> Vec<String> {
                let in_place = params.iter().filter(|p| p["in"] == place);
                in_place
                    .filter_map(|p| p["name"].as_str().map(str::to_owned))
                    .collect()
            };
            // A placeholder in the template is a path parameter, declared or not.
            let path_params = template
                .split('/')
                .filter_map(|s| s.strip_prefix('{')?.strip_suffix('}'))
                .map(str::to_owned)
                .collect();
            ops.push(Operation {
                method,
                template: template.clone(),
                path_params,
                query_params: named("query"),
                has_body: op.get("requestBody").is_some(),
            });
        }
    }
    ops
}

/// Sends one request as the route's caller; its status.
async fn send(
    server: &Server,
    f: &Fixture,
    method: &Method,
    path: &str,
    body: Option<&str>,
) -> u16 {
    let route = path.split('?').next().unwrap_or(path);
    let signed =
        route == "/v1/claims" || (route.starts_with("/v1/packages/") && route.ends_with("/claims"));
    let admin = [
        "/v1/templates",
        "/v1/channels",
        "/v1/code-batches",
        "/v1/packages",
        "/v1/reports",
        "/v1/audit",
        "/v1/ops",
        "/v1/api-keys",
        "/v1/webhooks",
    ];
    let mut req = if admin.iter().any(|p| route.starts_with(p)) && !signed {
        server.admin(method.clone(), path)
    } else {
        server.service(method.clone(), path)
    };
    if let Some(body) = body {
        req = req
            .header("Content-Type", "application/json")
            .body(body.to_owned());
        if signed {
            let nonce = uuid::Uuid::new_v4().to_string();
            for (k, v) in f.channel.sign(method.as_str(), route, body, &nonce).headers {
                req = req.header(k, v);
            }
        }
    }
    let response = req
        .send()
        .await
        .unwrap_or_else(|e| panic!("{method} {path}: {e}"));
    response.status().as_u16()
}

fn fill(template: &str, f: &Fixture, hostile: Option<(&str, &str)>) -> String {
    let mut path = template.to_owned();
    for segment in template.split('/') {
        let Some(name) = segment.strip_prefix('{').and_then(|s| s.strip_suffix('}')) else {
            continue;
        };
        let value = match hostile {
            Some((param, value)) if param == name => value.to_owned(),
            _ => path_value(name, template, f),
        };
        path = path.replace(segment, &value);
    }
    path
}

async fn sweep_operation(server: &Server, f: &Fixture, op: &Operation, failures: &mut Vec<String>) {
    let bodies = if op.has_body {
        let base = base_bodies(&op.method, &op.template, f);
        base.unwrap_or_else(|| panic!("no valid body for {} {}", op.method, op.template))
    } else {
        vec![]
    };
    let base_text = bodies.first().map(Value::to_string);
    let mut check = |what: String, status: u16| {
        if status >= 500 {
            failures.push(format!("{what}: {status}"));
        }
    };
    for param in &op.path_params {
        for value in hostile_url() {
            let path = fill(&op.template, f, Some((param, &value)));
            let status = send(server, f, &op.method, &path, base_text.as_deref()).await;
            check(
                format!("{} {} path {param}={:.40}", op.method, op.template, value),
                status,
            );
        }
    }
    let path = fill(&op.template, f, None);
    for param in &op.query_params {
        for value in hostile_url() {
            let with_query = format!("{path}?{param}={value}");
            let status = send(server, f, &op.method, &with_query, base_text.as_deref()).await;
            check(
                format!("{} {} query {param}={:.40}", op.method, op.template, value),
                status,
            );
        }
    }
    for body in &bodies {
        sweep_body(server, f, op, &path, body, failures).await;
    }
}

async fn sweep_body(
    server: &Server,
    f: &Fixture,
    op: &Operation,
    path: &str,
    body: &Value,
    failures: &mut Vec<String>,
) {
    let mut leaves = Vec::new();
    string_leaves(body, String::new(), &mut leaves);
    for pointer in leaves {
        let mut marked = body.clone();
        *marked.pointer_mut(&pointer).unwrap() = Value::String(PLACEHOLDER.into());
        let marked = marked.to_string();
        for value in hostile_json() {
            let text = marked.replace(&format!("\"{PLACEHOLDER}\""), &value);
            let status = send(server, f, &op.method, path, Some(&text)).await;
            if status >= 500 {
                let what = format!("{} {} body {pointer}={value:.40}", op.method, op.template);
                failures.push(format!("{what}: {status}"));
            }
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn hostile_text_in_any_field_of_any_route_is_never_a_5xx() {
    let env = Env::new().await.unwrap();
    let server = Server::start(&env).await.unwrap();
    let sn = server.active_template(1000, 100).await.unwrap();
    let channel = server.channel_for(&sn).await.unwrap();
    let paid = claim_many(&env, &sn, 0..1, 1).await.unwrap()[0];
    let unused = claim_many(&env, &sn, 0..1, 1).await.unwrap()[0];
    let order = checkout(&server, "u0", paid, true).await.unwrap();
    let fixture = Fixture {
        sn,
        channel,
        coupon: unused.to_string(),
        order,
    };
    let ops = operations(&server).await;
    assert!(ops.len() >= 15, "{} operations documented", ops.len());
    let mut failures = Vec::new();
    for op in &ops {
        sweep_operation(&server, &fixture, op, &mut failures).await;
    }
    assert!(failures.is_empty(), "5xx answers:\n{}", failures.join("\n"));
    let (status, _) = server.service_get("/healthz").await.unwrap();
    assert_eq!(status, 200, "the server is still up");
}
