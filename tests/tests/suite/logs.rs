//! `LEDGER_LOG_FORMAT=json` (issue 18): `ledger serve` writes one JSON
//! object per line, and one line per request with its id, route, status,
//! latency and the ids of the events it appended; no token in any line.

use std::collections::HashMap;

use serde_json::{Value, json};
use tests::{ADMIN_TOKEN, Env, SERVICE_TOKEN, Server};

/// The ids of the events whose correlation id is `request_id`, in order.
async fn events_of(client: &tokio_postgres::Client, request_id: &str) -> Vec<String> {
    client
        .query(
            "SELECT event_id::text FROM events
              WHERE metadata->>'correlation_id' = $1 ORDER BY position",
            &[&request_id],
        )
        .await
        .unwrap()
        .iter()
        .map(|r| r.get(0))
        .collect()
}

fn event_ids(line: &Value) -> Vec<String> {
    line["event_ids"]
        .as_str()
        .map(|s| s.split(',').map(str::to_owned).collect())
        .unwrap_or_default()
}

#[tokio::test]
async fn json_logs_have_one_object_per_line_and_a_line_per_request() {
    let env = Env::new().await.unwrap();
    let dir = std::env::temp_dir().join(format!("logs-{}", uuid::Uuid::now_v7()));
    std::fs::create_dir_all(&dir).unwrap();
    let log = dir.join("serve.stderr");
    let vars = [("LEDGER_LOG_FORMAT", "json"), ("RUST_LOG", "info")];
    let server = Server::start_logging_to(&env, &vars, &log).await.unwrap();

    // A template created with the admin token, under our request id.
    let r = server
        .admin(reqwest::Method::POST, "/v1/templates")
        .header("X-Request-Id", "logs-create")
        .json(&tests::template_body(10, 2))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 201);
    assert_eq!(r.headers()["x-request-id"], "logs-create");
    let sn = r.json::<Value>().await.unwrap()["sn"]
        .as_str()
        .unwrap()
        .to_owned();

    // Activated without an id: the server makes one and answers it.
    let r = server
        .admin(
            reqwest::Method::POST,
            &format!("/v1/templates/{sn}/activate"),
        )
        .json(&json!({}))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200);
    let activate_id = r.headers()["x-request-id"].to_str().unwrap().to_owned();
    let channel = server.channel_for(&sn).await.unwrap();

    // Claims: one group-committed (through the flash-sale gate), one
    // written alone (an Idempotency-Key takes that path).
    let mut claim_ids = Vec::new();
    for (request_id, user, key) in [
        ("logs-claim-batched", "u-1", None),
        ("logs-claim-alone", "u-2", Some("logs-key-1")),
    ] {
        let body = json!({"template_sn": sn, "user_id": user}).to_string();
        let nonce = uuid::Uuid::new_v4().to_string();
        let signed = channel.sign("POST", "/v1/claims", &body, &nonce);
        let mut req = server
            .http
            .post(server.url("/v1/claims"))
            .header("Content-Type", "application/json")
            .header("X-Request-Id", request_id)
            .body(body);
        for (name, value) in signed.headers {
            req = req.header(name, value);
        }
        if let Some(key) = key {
            req = req.header("Idempotency-Key", key);
        }
        let r = req.send().await.unwrap();
        assert_eq!(r.status(), 201, "{request_id}");
        let coupon: Value = r.json().await.unwrap();
        claim_ids.push((request_id, coupon["id"].as_str().unwrap().to_owned()));
    }

    // A 404 on a template route, and a 400 (a bad amount).
    let r = server
        .admin(reqwest::Method::GET, "/v1/templates/23456789ABCDEFGH")
        .header("X-Request-Id", "logs-404")
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 404);
    let mut bad = tests::template_body(10, 1);
    bad["discount"]["amount"] = json!("-5.00");
    let r = server
        .admin(reqwest::Method::POST, "/v1/templates")
        .header("X-Request-Id", "logs-400")
        .json(&bad)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 400);

    let status = server.terminate().await.unwrap();
    assert!(status.success(), "{status}");
    let text = std::fs::read_to_string(&log).unwrap();

    // Every line is one JSON object.
    let lines: Vec<Value> = text
        .lines()
        .map(|l| {
            let v: Value = serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}"));
            assert!(v.is_object(), "{l}");
            v
        })
        .collect();
    assert!(!lines.is_empty());
    assert!(!text.contains(ADMIN_TOKEN), "the admin token is in the log");
    assert!(
        !text.contains(SERVICE_TOKEN),
        "the service token is in the log"
    );
    assert!(
        !text.contains(&channel.secret),
        "a channel secret is in the log"
    );

    let requests: HashMap<&str, &Value> = lines
        .iter()
        .filter(|l| l["target"] == "ledger::api::http::request_log" && l["message"] == "request")
        .map(|l| (l["request_id"].as_str().unwrap(), l))
        .collect();
    for line in requests.values() {
        assert_eq!(line["level"], "INFO");
        assert!(line["timestamp"].is_string(), "{line}");
        let ms = line["latency_ms"].as_f64().unwrap_or(-1.0);
        assert!((0.0..30_000.0).contains(&ms), "{line}");
        assert!(
            line["method"].is_string() && line["route"].is_string(),
            "{line}"
        );
    }
    let line = |id: &str| -> &Value {
        requests
            .get(id)
            .unwrap_or_else(|| panic!("no request line for {id}:\n{text}"))
    };
    let client = env.db.client().await.unwrap();

    let create = line("logs-create");
    assert_eq!(create["method"], "POST");
    assert_eq!(create["route"], "/v1/templates");
    assert_eq!(create["status"], 201);
    let created = events_of(&client, "logs-create").await;
    assert!(!created.is_empty());
    assert_eq!(event_ids(create), created);

    let activate = line(&activate_id);
    assert_eq!(activate["route"], "/v1/templates/{sn}/activate");
    assert_eq!(activate["status"], 200);
    assert_eq!(event_ids(activate), events_of(&client, &activate_id).await);

    for (request_id, coupon_id) in &claim_ids {
        let claim = line(request_id);
        assert_eq!(claim["route"], "/v1/claims", "{claim}");
        assert_eq!(claim["status"], 201, "{claim}");
        let recorded = events_of(&client, request_id).await;
        assert_eq!(recorded.len(), 1, "{request_id}");
        assert_eq!(event_ids(claim), recorded, "{claim}");
        let stream: String = client
            .query_one(
                "SELECT stream_id FROM events WHERE event_id = $1::text::uuid",
                &[&recorded[0]],
            )
            .await
            .unwrap()
            .get(0);
        assert_eq!(stream, format!("coupon-{coupon_id}"));
    }

    let missing = line("logs-404");
    assert_eq!(missing["method"], "GET");
    assert_eq!(missing["route"], "/v1/templates/{sn}");
    assert_eq!(missing["status"], 404);
    assert!(missing.get("event_ids").is_none(), "{missing}");
    assert!(missing.get("error").is_none(), "{missing}");

    let refused = line("logs-400");
    assert_eq!(refused["route"], "/v1/templates");
    assert_eq!(refused["status"], 400);
    assert!(refused.get("event_ids").is_none(), "{refused}");
    assert!(events_of(&client, "logs-400").await.is_empty());

    std::fs::remove_dir_all(&dir).unwrap();
}

#[tokio::test]
async fn an_unknown_log_format_is_refused_at_start_naming_the_variable() {
    for bin in ["ledger", "workers"] {
        let out = tokio::process::Command::new(tests::bin(bin))
            .arg("--help")
            .env("LEDGER_LOG_FORMAT", "xml")
            .output()
            .await
            .unwrap();
        assert!(!out.status.success(), "{bin}");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(stderr.contains("LEDGER_LOG_FORMAT"), "{bin}: {stderr}");
    }
}
