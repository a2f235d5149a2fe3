//! The routes behind the console's finance and workers pages (docs/design.md §14):
//! the liability report over HTTP (the CLI's numbers, JSON or a CSV
//! download), the audit status (last checkpoint, last verify and its
//! verdict), the pipeline's lag, queue depths and dead letters, and the
//! channel list. Admin only.

use std::time::Duration;

use chrono::Utc;
use ledger::store::{self, NewEvent};
use reqwest::Method;
use serde_json::{Value, json};
use tests::scenario::append_unknown;
use tests::workers::{Workers, ledger};
use tests::{Env, Server};
use uuid::Uuid;

/// Polls `path` until `ready` holds of its body (at most 90 s).
async fn until(server: &Server, path: &str, ready: impl Fn(&Value) -> bool) -> Value {
    let deadline = tokio::time::Instant::now() + Duration::from_secs(90);
    loop {
        let (status, body) = server.admin_get(path).await.unwrap();
        assert_eq!(status, 200, "{body}");
        if ready(&body) {
            return body;
        }
        assert!(tokio::time::Instant::now() < deadline, "{path}: {body}");
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn the_liability_route_gives_the_clis_numbers_as_json_and_as_a_csv_download() {
    let env = Env::new().await.unwrap();
    let server = Server::start(&env).await.unwrap();
    let sn = server.active_template(100, 1).await.unwrap();
    let channel = server.channel_for(&sn).await.unwrap();
    for user in ["ann", "bob", "cyd"] {
        assert_eq!(server.claim(&channel, &sn, user).await.unwrap().0, 201);
    }
    for by in ["template", "channel", "day"] {
        let (status, body) = server
            .admin_get(&format!("/v1/reports/liability?as_of=now&by={by}"))
            .await
            .unwrap();
        assert_eq!(status, 200, "{body}");
        let out = ledger(
            &env,
            &[
                "report",
                "liability",
                "--as-of",
                "now",
                "--by",
                by,
                "--format",
                "json",
            ],
        )
        .await
        .unwrap();
        assert!(out.status.success());
        let cli: Value = serde_json::from_slice(&out.stdout).unwrap();
        // The route's rows also name their template or channel (`name`).
        let mut rows = body["rows"].clone();
        for row in rows.as_array_mut().unwrap() {
            row.as_object_mut().unwrap().remove("name");
        }
        assert_eq!(rows, cli["rows"], "by {by}");
        assert_eq!(body["by"], by);
    }
    let (_, body) = server
        .admin_get("/v1/reports/liability?as_of=now")
        .await
        .unwrap();
    let row = |group: &str| {
        body["rows"]
            .as_array()
            .unwrap()
            .iter()
            .find(|r| r["group"] == group)
            .cloned()
            .unwrap()
    };
    assert_eq!(row(&sn)["issued"], 3);
    assert_eq!(row(&sn)["face_value_outstanding"], "60.00");
    assert_eq!(row("total")["unused"], 3);
    // A day long before the claims: nothing was owed yet.
    let (_, before) = server
        .admin_get("/v1/reports/liability?as_of=2020-01-01")
        .await
        .unwrap();
    assert_eq!(
        before["rows"],
        json!([{"group": "total", "issued": 0, "unused": 0,
        "locked": 0, "used": 0, "refunded": 0, "expired": 0, "void": 0,
        "face_value_outstanding": "0.00", "cost": "0.00"}])
    );

    let r = server
        .admin(
            Method::GET,
            "/v1/reports/liability?as_of=now&by=channel&format=csv",
        )
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200);
    let kind = r.headers()["content-type"].to_str().unwrap().to_owned();
    let disposition = r.headers()["content-disposition"]
        .to_str()
        .unwrap()
        .to_owned();
    assert!(kind.starts_with("text/csv"), "{kind}");
    assert!(
        disposition.starts_with("attachment; filename=\"liability-")
            && disposition.ends_with("-by-channel.csv\""),
        "{disposition}"
    );
    let text = r.text().await.unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(
        lines[0],
        "group,issued,unused,locked,used,refunded,expired,void,face_value_outstanding,cost"
    );
    assert!(
        lines.contains(&format!("{},3,3,0,0,0,0,0,60.00,0.00", channel.id).as_str()),
        "{text}"
    );
    assert_eq!(lines.last().unwrap(), &"total,3,3,0,0,0,0,0,60.00,0.00");
}

#[tokio::test(flavor = "multi_thread")]
async fn the_liability_route_refuses_bad_queries_naming_the_field() {
    let env = Env::new().await.unwrap();
    let server = Server::start(&env).await.unwrap();
    for (query, field) in [
        ("as_of=yesterday", "as_of: "),
        ("as_of=2026-13-01", "as_of: "),
        ("as_of=now&by=week", "by: "),
        ("as_of=now&format=xml", "format: "),
        ("as_of=now&colour=red", "colour"),
        ("by=template", "as_of"),
    ] {
        let (status, body) = server
            .admin_get(&format!("/v1/reports/liability?{query}"))
            .await
            .unwrap();
        assert_eq!(status, 400, "{query}: {body}");
        let message = body["error"]["message"].as_str().unwrap();
        assert!(message.contains(field), "{query}: {message}");
    }
    let anonymous = server
        .http
        .get(server.url("/v1/reports/liability?as_of=now"))
        .send()
        .await
        .unwrap();
    assert_eq!(anonymous.status(), 401);
    let service = server
        .service(Method::GET, "/v1/reports/liability?as_of=now")
        .send()
        .await
        .unwrap();
    // The service token is the key `service`, with every scope: `reports:read` too.
    assert_eq!(service.status(), 200);
}

#[tokio::test(flavor = "multi_thread")]
async fn the_audit_status_shows_the_last_checkpoint_and_each_verify_verdict() {
    let env = Env::new().await.unwrap();
    let server = Server::start(&env).await.unwrap();
    let (_, empty) = server.admin_get("/v1/audit/status").await.unwrap();
    assert_eq!(
        empty,
        json!({"sealed_events": 0, "last_checkpoint": null, "last_verify": null})
    );
    {
        let mut client = env.db.pool.get().await.unwrap();
        let tx = client.transaction().await.unwrap();
        let events: Vec<NewEvent> = (0..30)
            .map(|i| NewEvent {
                event_id: Uuid::now_v7(),
                event_type: ledger::domain::EventType::ChannelCreated,
                schema_version: 1,
                payload: json!({ "n": i }),
                metadata: json!({ "actor": "test" }),
                occurred_at: Utc::now(),
            })
            .collect();
        store::append(&tx, "test-1", 0, &events).await.unwrap();
        tx.commit().await.unwrap();
    }
    let args = ["--checkpoint-events", "10", "--checkpoint-secs", "1"];
    let sealer = Workers::start_with(&env, "sealer", &args).unwrap();
    let status = until(&server, "/v1/audit/status", |b| {
        b["last_checkpoint"]["last_seq"] == 30
    })
    .await;
    sealer.terminate().await.unwrap();
    assert_eq!(status["sealed_events"], 30);
    assert_eq!(status["last_verify"], Value::Null);
    let out = ledger(&env, &["audit", "checkpoints"]).await.unwrap();
    let printed = String::from_utf8_lossy(&out.stdout);
    assert_eq!(
        status["last_checkpoint"]["line"].as_str(),
        printed.lines().last(),
        "the line finance keeps is the CLI's"
    );

    let head = status["last_checkpoint"]["head"]
        .as_str()
        .unwrap()
        .to_owned();
    let out = ledger(&env, &["audit", "verify", "--expect", &head])
        .await
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let (_, status) = server.admin_get("/v1/audit/status").await.unwrap();
    let verify = &status["last_verify"];
    assert_eq!(verify["intact"], true);
    assert_eq!(verify["events"], 30);
    assert_eq!(verify["expected_head"], true);
    assert_eq!(verify["head"].as_str(), Some(head.as_str()));
    assert_eq!(verify["finding"], Value::Null);

    let client = env.db.client().await.unwrap();
    client
        .batch_execute(
            "ALTER TABLE events DISABLE TRIGGER USER;
             UPDATE events SET payload = '{\"n\": 99}' WHERE stream_version = 5;
             ALTER TABLE events ENABLE TRIGGER USER;",
        )
        .await
        .unwrap();
    let out = ledger(&env, &["audit", "verify"]).await.unwrap();
    assert_eq!(out.status.code(), Some(1));
    let (_, status) = server.admin_get("/v1/audit/status").await.unwrap();
    let verify = &status["last_verify"];
    assert_eq!(verify["intact"], false, "{status}");
    let finding = verify["finding"].as_str().unwrap();
    assert!(finding.contains("position"), "{finding}");
}

#[tokio::test(flavor = "multi_thread")]
async fn the_workers_status_shows_lag_queues_and_the_latest_dead_letter() {
    let env = Env::new().await.unwrap();
    let position = append_unknown(&env, "CouponTeleported", 1).await;
    let server = Server::start(&env).await.unwrap();
    let (status, before) = server.admin_get("/v1/ops/workers").await.unwrap();
    assert_eq!(status, 200, "{before}");
    assert!(before["head_position"].as_i64().unwrap() >= position);
    let lag = |body: &Value, consumer: &str| {
        body["consumers"]
            .as_array()
            .unwrap()
            .iter()
            .find(|c| c["consumer"] == consumer)
            .map(|c| c["events_behind"].as_i64().unwrap())
    };
    assert!(
        lag(&before, "relay:coupon.events.balances").unwrap() > 0,
        "{before}"
    );
    assert!(lag(&before, "balances").unwrap() > 0, "{before}");

    let workers = Workers::start(&env, "relay,balances").unwrap();
    let after = until(&server, "/v1/ops/workers", |b| {
        b["dead_letters"].as_array().is_some_and(|d| !d.is_empty())
    })
    .await;
    workers.terminate().await.unwrap();
    let letter = &after["dead_letters"][0];
    assert_eq!(letter["consumer"], "balances");
    assert_eq!(letter["original_queue"], "coupon.events.balances");
    let error = letter["error"].as_str().unwrap();
    assert!(
        error.contains(&format!("event at position {position} (coupon-")),
        "{error}"
    );
    assert!(error.contains("CouponTeleported"), "{error}");
    assert_eq!(
        lag(&after, "relay:coupon.events.balances"),
        Some(0),
        "{after}"
    );
    let queues = after["queues"].as_array().unwrap();
    let names: Vec<&str> = queues
        .iter()
        .map(|q| q["queue"].as_str().unwrap())
        .collect();
    for queue in ledger::messaging::topology::QUEUES {
        assert!(names.contains(&queue), "{queue} in {names:?}");
    }
    // Looking at the dead letters does not consume them.
    let again = until(&server, "/v1/ops/workers", |b| {
        b["queues"].as_array().is_some_and(|qs| {
            qs.iter()
                .any(|q| q["queue"] == "coupon.dead.letters" && q["messages"] == 1)
        })
    })
    .await;
    assert_eq!(again["dead_letters"].as_array().unwrap().len(), 1);

    // Without the management API the Postgres half still answers.
    let blind = Server::start_with(&env, &[("RABBITMQ_MANAGEMENT_URL", "http://127.0.0.1:9")])
        .await
        .unwrap();
    let (status, body) = blind.admin_get("/v1/ops/workers").await.unwrap();
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["queues"], Value::Null);
    assert!(body["broker_error"].as_str().is_some_and(|e| !e.is_empty()));
    assert!(lag(&body, "balances").is_some());
}

#[tokio::test(flavor = "multi_thread")]
async fn channels_are_listed_by_name_without_their_secrets() {
    let env = Env::new().await.unwrap();
    let server = Server::start(&env).await.unwrap();
    for name in ["zeta shop", "alpha app"] {
        let (status, _) = server
            .admin_post("/v1/channels", &json!({ "name": name }))
            .await
            .unwrap();
        assert_eq!(status, 201);
    }
    let (status, body) = server.admin_get("/v1/channels").await.unwrap();
    assert_eq!(status, 200);
    let channels = body["channels"].as_array().unwrap();
    let names: Vec<&str> = channels
        .iter()
        .map(|c| c["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["alpha app", "zeta shop"]);
    assert!(channels.iter().all(|c| c.get("secret").is_none()));
    let service = server
        .service(Method::GET, "/v1/channels")
        .send()
        .await
        .unwrap();
    assert_eq!(service.status(), 403);
}
