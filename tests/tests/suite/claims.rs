//! Claims over HTTP against real services: exact quota and per-user limits
//! under many concurrent clients, status changes, signatures, idempotency.

use std::collections::HashSet;
use std::sync::Arc;

use serde_json::json;
use tests::{Env, Server};

async fn issued_everywhere(env: &Env, sn: &str) -> (i64, i64, i64) {
    let events = env.db.count("SELECT count(*) FROM events WHERE event_type = 'CouponIssued' AND payload->>'template_sn' = $1", &[&sn]).await;
    let coupons = env
        .db
        .count(
            "SELECT count(*) FROM coupons WHERE template_sn = $1",
            &[&sn],
        )
        .await;
    let counter = env
        .db
        .count("SELECT issued FROM templates WHERE sn = $1", &[&sn])
        .await;
    (events, coupons, counter)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn five_hundred_concurrent_claims_on_a_quota_of_100_issue_exactly_100() {
    let env = Env::new().await.unwrap();
    let server = Arc::new(Server::start(&env).await.unwrap());
    let sn = server.active_template(100, 1).await.unwrap();
    let channel = Arc::new(server.channel_for(&sn).await.unwrap());
    let tasks: Vec<_> = (0..500)
        .map(|n| {
            let (server, channel, sn) = (server.clone(), channel.clone(), sn.clone());
            tokio::spawn(async move {
                server
                    .claim(&channel, &sn, &format!("user-{n}"))
                    .await
                    .unwrap()
            })
        })
        .collect();
    let mut statuses = Vec::new();
    for t in tasks {
        statuses.push(t.await.unwrap());
    }
    let created = statuses.iter().filter(|(s, _)| *s == 201).count();
    let sold_out: Vec<_> = statuses.iter().filter(|(s, _)| *s == 410).collect();
    assert_eq!(
        created,
        100,
        "{:?}",
        statuses.iter().find(|(s, _)| *s != 201 && *s != 410)
    );
    assert_eq!(sold_out.len(), 400);
    assert_eq!(sold_out[0].1["error"]["code"], "sold_out");
    assert_eq!(issued_everywhere(&env, &sn).await, (100, 100, 100));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn fifty_concurrent_claims_by_one_user_with_limit_two_issue_two() {
    let env = Env::new().await.unwrap();
    let server = Arc::new(Server::start(&env).await.unwrap());
    let sn = server.active_template(1000, 2).await.unwrap();
    let channel = Arc::new(server.channel_for(&sn).await.unwrap());
    let tasks: Vec<_> = (0..50)
        .map(|_| {
            let (server, channel, sn) = (server.clone(), channel.clone(), sn.clone());
            tokio::spawn(async move { server.claim(&channel, &sn, "the-same-user").await.unwrap() })
        })
        .collect();
    let mut statuses = Vec::new();
    for t in tasks {
        statuses.push(t.await.unwrap().0);
    }
    assert_eq!(statuses.iter().filter(|s| **s == 201).count(), 2);
    assert_eq!(statuses.iter().filter(|s| **s == 409).count(), 48);
    assert_eq!(issued_everywhere(&env, &sn).await, (2, 2, 2));
}

#[tokio::test]
async fn raising_the_quota_reopens_claims_and_stop_or_void_closes_them() {
    let env = Env::new().await.unwrap();
    let server = Server::start(&env).await.unwrap();
    let sn = server.active_template(1, 5).await.unwrap();
    let ch = server.channel_for(&sn).await.unwrap();
    assert_eq!(server.claim(&ch, &sn, "u1").await.unwrap().0, 201);
    assert_eq!(server.claim(&ch, &sn, "u2").await.unwrap().0, 410);

    let (status, body) = server
        .admin_post(&format!("/v1/templates/{sn}/quota"), &json!({"total": 2}))
        .await
        .unwrap();
    assert_eq!((status, body["total"].as_i64()), (200, Some(2)));
    assert_eq!(server.claim(&ch, &sn, "u2").await.unwrap().0, 201);
    let (status, _) = server
        .admin_post(&format!("/v1/templates/{sn}/quota"), &json!({"total": 1}))
        .await
        .unwrap();
    assert_eq!(status, 409, "a quota never shrinks");
    server
        .admin_post(&format!("/v1/templates/{sn}/quota"), &json!({"total": 10}))
        .await
        .unwrap();

    let (status, _) = server
        .admin_post(&format!("/v1/templates/{sn}/stop"), &json!({}))
        .await
        .unwrap();
    assert_eq!(status, 200);
    let (status, body) = server.claim(&ch, &sn, "u3").await.unwrap();
    assert_eq!(
        (status, body["error"]["code"].as_str()),
        (422, Some("template_not_active"))
    );
    server
        .admin_post(&format!("/v1/templates/{sn}/activate"), &json!({}))
        .await
        .unwrap();
    assert_eq!(server.claim(&ch, &sn, "u3").await.unwrap().0, 201);

    let (status, _) = server
        .admin_post(&format!("/v1/templates/{sn}/void"), &json!({}))
        .await
        .unwrap();
    assert_eq!(status, 200);
    assert_eq!(server.claim(&ch, &sn, "u4").await.unwrap().0, 422);
    let (status, _) = server
        .admin_post(&format!("/v1/templates/{sn}/activate"), &json!({}))
        .await
        .unwrap();
    assert_eq!(status, 409, "void is final");
    assert_eq!(issued_everywhere(&env, &sn).await, (3, 3, 3));
}

#[tokio::test]
async fn bad_signatures_stale_timestamps_unknown_channels_and_replays_are_refused() {
    let env = Env::new().await.unwrap();
    let server = Server::start(&env).await.unwrap();
    let sn = server.active_template(100, 10).await.unwrap();
    let ch = server.channel_for(&sn).await.unwrap();
    let body = json!({"template_sn": sn, "user_id": "u1"}).to_string();

    let signed = ch.sign("POST", "/v1/claims", &body, "nonce-1");
    assert_eq!(
        server.send_signed(signed, body.clone()).await.unwrap().0,
        201
    );
    let replay = ch.sign("POST", "/v1/claims", &body, "nonce-1");
    let (status, err) = server.send_signed(replay, body.clone()).await.unwrap();
    assert_eq!(status, 401, "{err}");

    let wrong = tests::Channel {
        id: ch.id.clone(),
        secret: "not-the-secret".into(),
    };
    assert_eq!(
        server
            .send_signed(wrong.sign("POST", "/v1/claims", &body, "n2"), body.clone())
            .await
            .unwrap()
            .0,
        401
    );
    let stale = ch.sign_at(
        "POST",
        "/v1/claims",
        &body,
        "n3",
        chrono::Utc::now().timestamp() - 301,
    );
    assert_eq!(
        server.send_signed(stale, body.clone()).await.unwrap().0,
        401
    );
    let unknown = tests::Channel {
        id: uuid::Uuid::new_v4().to_string(),
        secret: ch.secret.clone(),
    };
    assert_eq!(
        server
            .send_signed(
                unknown.sign("POST", "/v1/claims", &body, "n4"),
                body.clone()
            )
            .await
            .unwrap()
            .0,
        401
    );
    let tampered = ch.sign("POST", "/v1/claims", &body, "n5");
    let other_body = json!({"template_sn": sn, "user_id": "u2"}).to_string();
    assert_eq!(
        server.send_signed(tampered, other_body).await.unwrap().0,
        401
    );
    let (status, _) = server
        .http
        .post(server.url("/v1/claims"))
        .body(body.clone())
        .send()
        .await
        .map(|r| (r.status().as_u16(), ()))
        .unwrap();
    assert_eq!(status, 401, "unsigned");

    // A real channel that this template does not list.
    let other_sn = server.active_template(10, 1).await.unwrap();
    let outsider = server.channel_for(&other_sn).await.unwrap();
    assert_eq!(server.claim(&outsider, &sn, "u9").await.unwrap().0, 403);
    assert_eq!(
        env.db
            .count(
                "SELECT count(*) FROM coupons WHERE template_sn = $1",
                &[&sn]
            )
            .await,
        1
    );
}

#[tokio::test]
async fn the_same_idempotency_key_returns_the_same_coupon_and_another_body_is_422() {
    let env = Env::new().await.unwrap();
    let server = Server::start(&env).await.unwrap();
    let sn = server.active_template(100, 10).await.unwrap();
    let ch = server.channel_for(&sn).await.unwrap();
    let send = |user: &'static str, nonce: &'static str| {
        let body = json!({"template_sn": sn, "user_id": user}).to_string();
        let signed = ch.sign("POST", "/v1/claims", &body, nonce);
        let mut req = server
            .http
            .post(server.url("/v1/claims"))
            .header("Idempotency-Key", "claim-1")
            .body(body);
        for (k, v) in signed.headers {
            req = req.header(k, v);
        }
        req.send()
    };
    let first = send("u1", "a").await.unwrap();
    assert_eq!(first.status(), 201);
    let first: serde_json::Value = first.json().await.unwrap();
    let again = send("u1", "b").await.unwrap();
    assert_eq!(again.status(), 201);
    let again: serde_json::Value = again.json().await.unwrap();
    assert_eq!(again["id"], first["id"]);
    let other = send("u2", "c").await.unwrap();
    assert_eq!(other.status(), 422);
    let ids: HashSet<String> = [first["id"].to_string(), again["id"].to_string()].into();
    assert_eq!(ids.len(), 1);
    assert_eq!(
        env.db
            .count(
                "SELECT count(*) FROM coupons WHERE template_sn = $1",
                &[&sn]
            )
            .await,
        1
    );
}

#[tokio::test]
async fn every_event_carries_actor_correlation_and_idempotency_key() {
    let env = Env::new().await.unwrap();
    let server = Server::start(&env).await.unwrap();
    let r = server
        .admin(reqwest::Method::POST, "/v1/templates")
        .header("X-Request-Id", "req-42")
        .header("Idempotency-Key", "tpl-1")
        .json(&tests::template_body(5, 1))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 201);
    let sn = r.json::<serde_json::Value>().await.unwrap()["sn"]
        .as_str()
        .unwrap()
        .to_owned();
    let client = env.db.client().await.unwrap();
    let meta: serde_json::Value = client
        .query_one(
            "SELECT metadata FROM events WHERE stream_id = $1",
            &[&format!("template-{sn}")],
        )
        .await
        .unwrap()
        .get(0);
    assert_eq!(
        meta,
        json!({"actor": "admin", "correlation_id": "req-42", "idempotency_key": "tpl-1",
               "operator": "admin", "role": "admin"}),
        "the single LEDGER_ADMIN_TOKEN is operator admin (docs/design.md §7)"
    );

    server
        .admin_post(&format!("/v1/templates/{sn}/activate"), &json!({}))
        .await
        .unwrap();
    let ch = server.channel_for(&sn).await.unwrap();
    let (status, coupon) = server.claim(&ch, &sn, "u1").await.unwrap();
    assert_eq!(status, 201);
    let meta: serde_json::Value = client
        .query_one(
            "SELECT metadata FROM events WHERE stream_id = $1",
            &[&format!("coupon-{}", coupon["id"].as_str().unwrap())],
        )
        .await
        .unwrap()
        .get(0);
    assert_eq!(meta["actor"], format!("channel:{}", ch.id));
    assert_eq!(meta["channel_id"], ch.id.as_str());
    assert!(
        meta["correlation_id"]
            .as_str()
            .is_some_and(|c| !c.is_empty())
    );
    assert_eq!(coupon["channel_id"], ch.id.as_str());
}

#[tokio::test]
async fn template_terms_are_immutable_but_name_and_reminder_may_change() {
    let env = Env::new().await.unwrap();
    let server = Server::start(&env).await.unwrap();
    let sn = server.active_template(10, 1).await.unwrap();
    let path = format!("/v1/templates/{sn}");
    let patch = |body: serde_json::Value| {
        server
            .admin(reqwest::Method::PATCH, &path)
            .json(&body)
            .send()
    };
    for (field, value) in [
        (
            "discount",
            json!({"type": "fixed_off", "threshold": "1.00", "amount": "1.00"}),
        ),
        ("stacking", json!("exclusive")),
        ("use_scope", json!([])),
        ("face_value", json!("99.00")),
        ("kind", json!("shipping")),
    ] {
        let r = patch(json!({ field: value })).await.unwrap();
        assert_eq!(r.status(), 409, "{field}");
        let body: serde_json::Value = r.json().await.unwrap();
        assert_eq!(body["error"]["code"], "immutable_field");
    }
    assert_eq!(
        patch(json!({"total": 99})).await.unwrap().status(),
        409,
        "quota has its own route"
    );

    let r = patch(json!({"name": "renamed", "remind_days_before": null}))
        .await
        .unwrap();
    assert_eq!(r.status(), 200);
    let view: serde_json::Value = r.json().await.unwrap();
    assert_eq!(
        (view["name"].as_str(), view["remind_days_before"].is_null()),
        (Some("renamed"), true)
    );
    assert_eq!(view["discount"]["amount"], "20.00", "terms untouched");
    let client = env.db.client().await.unwrap();
    let types: Vec<String> = client
        .query(
            "SELECT event_type FROM events WHERE stream_id = $1 ORDER BY stream_version",
            &[&format!("template-{sn}")],
        )
        .await
        .unwrap()
        .iter()
        .map(|r| r.get(0))
        .collect();
    assert_eq!(
        types,
        ["TemplateCreated", "TemplateActivated", "TemplateUpdated"]
    );
}
