//! Restarts lose nothing; with Redis down, claims still never over-issue and
//! replayed nonces are still refused.

use std::sync::Arc;

use serde_json::{Value, json};
use tests::{Env, Server};

async fn template(server: &Server, sn: &str) -> Value {
    let r = server
        .admin(reqwest::Method::GET, &format!("/v1/templates/{sn}"))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200);
    r.json().await.unwrap()
}

#[tokio::test]
async fn a_killed_server_restarts_with_everything_it_committed() {
    let env = Env::new().await.unwrap();
    let server = Server::start(&env).await.unwrap();
    let sn = server.active_template(15, 1).await.unwrap();
    let ch = server.channel_for(&sn).await.unwrap();
    let mut ids = Vec::new();
    for n in 0..10 {
        let (status, coupon) = server.claim(&ch, &sn, &format!("u{n}")).await.unwrap();
        assert_eq!(status, 201);
        ids.push(coupon["id"].clone());
    }
    server.kill().await.unwrap();

    let server = Server::start(&env).await.unwrap();
    assert_eq!(template(&server, &sn).await["issued"], 10);
    let mut created = 0;
    for n in 0..10 {
        created += (server.claim(&ch, &sn, &format!("v{n}")).await.unwrap().0 == 201) as usize;
    }
    assert_eq!(
        created, 5,
        "the quota of 15 counts the 10 from before the restart"
    );
    let client = env.db.client().await.unwrap();
    for id in ids {
        let id: uuid::Uuid = id.as_str().unwrap().parse().unwrap();
        let n: i64 = client
            .query_one("SELECT count(*) FROM coupons WHERE id = $1", &[&id])
            .await
            .unwrap()
            .get(0);
        assert_eq!(n, 1);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn with_redis_down_claims_never_over_issue_and_replays_are_refused() {
    let mut env = Env::new().await.unwrap();
    env.redis_url = Some("redis://127.0.0.1:1/0".into()); // nothing listens there
    let server = Arc::new(Server::start(&env).await.unwrap());

    let ready = server.http.get(server.url("/readyz")).send().await.unwrap();
    assert_eq!(ready.status(), 503);
    let ready: Value = ready.json().await.unwrap();
    assert_eq!(ready["down"], json!(["redis"]));

    let sn = server.active_template(50, 1).await.unwrap();
    let ch = Arc::new(server.channel_for(&sn).await.unwrap());
    let tasks: Vec<_> = (0..200)
        .map(|n| {
            let (server, ch, sn) = (server.clone(), ch.clone(), sn.clone());
            tokio::spawn(async move { server.claim(&ch, &sn, &format!("u{n}")).await.unwrap().0 })
        })
        .collect();
    let mut created = 0;
    for t in tasks {
        let status = t.await.unwrap();
        assert!(status == 201 || status == 410, "{status}");
        created += (status == 201) as usize;
    }
    assert_eq!(created, 50);
    assert_eq!(template(&server, &sn).await["issued"], 50);

    server
        .admin_post(&format!("/v1/templates/{sn}/quota"), &json!({"total": 60}))
        .await
        .unwrap();
    let body = json!({"template_sn": sn, "user_id": "late"}).to_string();
    let signed = ch.sign("POST", "/v1/claims", &body, "once");
    assert_eq!(
        server.send_signed(signed, body.clone()).await.unwrap().0,
        201
    );
    let replay = ch.sign("POST", "/v1/claims", &body, "once");
    assert_eq!(server.send_signed(replay, body).await.unwrap().0, 401);
}

#[tokio::test]
async fn readiness_is_200_when_every_dependency_answers() {
    let env = Env::new().await.unwrap();
    let server = Server::start(&env).await.unwrap();
    let ready = server.http.get(server.url("/readyz")).send().await.unwrap();
    assert_eq!(ready.status(), 200);
    let ready: Value = ready.json().await.unwrap();
    assert_eq!(ready["down"], json!([]));
    let metrics = server.metrics().await.unwrap();
    assert!(
        metrics.contains("couponledger_http_requests_total"),
        "{metrics}"
    );
}

#[tokio::test]
async fn sigterm_answers_what_was_sent_then_exits_cleanly() {
    let env = Env::new().await.unwrap();
    let server = Server::start(&env).await.unwrap();
    // A request sent just before the signal: whether it is still running when
    // the signal lands or not, it must be answered, and the exit must be clean.
    let http = server.http.clone();
    let url = server.url("/v1/templates");
    let in_flight = tokio::spawn(async move {
        http.post(url)
            .bearer_auth(tests::ADMIN_TOKEN)
            .json(&tests::template_body(5, 1))
            .send()
            .await
            .map(|r| r.status().as_u16())
    });
    tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    let status = server.terminate().await.unwrap();
    assert!(status.success(), "exit status {status}");
    assert_eq!(
        in_flight.await.unwrap().unwrap(),
        201,
        "the request sent before SIGTERM was answered"
    );
}
