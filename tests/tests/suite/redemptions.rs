//! Redemption codes over HTTP against real Postgres and Redis (docs/design.md §13):
//! batches and their codes (recomputed, streamed, exported), redemptions of
//! one-use and shared codes under many concurrent clients, the answers
//! (404 the same for forged and unknown, 409, 410, 422, 429), Redis down,
//! and `ledger replay --verify` agreeing with the counters.

use std::collections::HashSet;
use std::sync::Arc;

use reqwest::Method;
use serde_json::{Value, json};
use tests::codes::{batch, codes, codes_of, redeem};
use tests::scenario::holders;
use tests::workers::{assert_verifies_once_caught_up, ledger};
use tests::{Env, Server};

const ALPHABET: &str = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789";

#[tokio::test(flavor = "multi_thread")]
async fn a_batchs_codes_are_distinct_readable_and_exported_alike() {
    let env = Env::new().await.unwrap();
    let server = Server::start(&env).await.unwrap();
    let sn = server.active_template(1_000, 1).await.unwrap();
    let first = batch(&server, json!({"template_sn": sn, "count": 500})).await;
    let second = batch(
        &server,
        json!({"template_sn": sn, "count": 300, "uses_per_code": 5}),
    )
    .await;
    assert_eq!(first["first_serial"], 0);
    assert_eq!(
        second["first_serial"], 500,
        "batches take consecutive ranges"
    );
    let a = codes(&server, first["id"].as_str().unwrap()).await;
    let b = codes(&server, second["id"].as_str().unwrap()).await;
    assert_eq!((a.len(), b.len()), (500, 300));
    let all: HashSet<&String> = a.iter().chain(&b).collect();
    assert_eq!(all.len(), 800, "no code twice, within or across batches");
    assert!(
        all.iter()
            .all(|c| c.len() == 10 && c.chars().all(|ch| ALPHABET.contains(ch)))
    );

    let r = server
        .admin(
            Method::GET,
            &format!(
                "/v1/code-batches/{}/codes?format=csv",
                first["id"].as_str().unwrap()
            ),
        )
        .send()
        .await
        .unwrap();
    let csv = r.text().await.unwrap();
    let mut lines = csv.lines();
    assert_eq!(lines.next(), Some("serial,code"));
    assert_eq!(lines.next(), Some(format!("0,{}", a[0]).as_str()));

    let file = std::env::temp_dir().join(format!("codes-{}.txt", uuid::Uuid::new_v4()));
    let id = first["id"].as_str().unwrap();
    let out = ledger(
        &env,
        &[
            "codes",
            "export",
            "--batch",
            id,
            "--file",
            file.to_str().unwrap(),
        ],
    )
    .await
    .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let exported: Vec<String> = std::fs::read_to_string(&file)
        .unwrap()
        .lines()
        .map(str::to_owned)
        .collect();
    assert_eq!(exported, a, "the CLI and the API compute the same codes");
    let out = ledger(
        &env,
        &[
            "codes",
            "export",
            "--batch",
            &uuid::Uuid::new_v4().to_string(),
            "--file",
            "-",
        ],
    )
    .await
    .unwrap();
    assert_eq!(out.status.code(), Some(1));
}

#[tokio::test(flavor = "multi_thread")]
async fn a_code_gives_its_coupon_once_and_every_refusal_has_its_answer() {
    let env = Env::new().await.unwrap();
    let server = Server::start(&env).await.unwrap();
    let sn = server.active_template(1_000, 5).await.unwrap();
    let one_use = batch(&server, json!({"template_sn": sn, "count": 10})).await;
    let codes = codes(&server, one_use["id"].as_str().unwrap()).await;

    // Typed loosely: lower case, grouped with a dash.
    let typed = format!("{}-{}", &codes[0][..5], &codes[0][5..]).to_lowercase();
    let (status, body) = redeem(&server, &typed, "ann").await;
    assert_eq!(status, 201, "{body}");
    assert_eq!(body["serial"], 0);
    assert_eq!(
        (body["uses"].clone(), body["uses_left"].clone()),
        (json!(1), json!(0))
    );
    assert_eq!(body["coupons"][0]["template_sn"], sn.as_str());
    assert_eq!(body["coupons"][0]["user_id"], "ann");
    // Redis knows it is used up: repeats are answered without Postgres.
    let redis = redis::Client::open(env.redis.url.as_str()).unwrap();
    let mut conn = redis.get_multiplexed_async_connection().await.unwrap();
    let key = format!(
        "{}codes:{}:used-up",
        env.redis.prefix,
        one_use["id"].as_str().unwrap()
    );
    let bit: i64 = redis::cmd("GETBIT")
        .arg(&key)
        .arg(0)
        .query_async(&mut conn)
        .await
        .unwrap();
    assert_eq!(bit, 1, "{key}");
    let (status, _) = redeem(&server, &codes[0], "bob").await;
    assert_eq!(status, 410, "used up");
    let (status, _) = redeem(&server, &codes[0], "ann").await;
    assert_eq!(status, 410, "used up, whoever asks");
    let (status, body) = redeem(&server, &codes[1], "ann").await;
    assert_eq!(status, 409, "one code of the batch per user: {body}");
    assert_eq!(body["error"]["code"], "already_redeemed");

    // Forged, mistyped and unknown codes: one answer.
    let mut typo = codes[2].clone().into_bytes();
    typo[3] = if typo[3] == b'A' { b'B' } else { b'A' };
    let typo = String::from_utf8(typo).unwrap();
    for bad in ["AAAAAAAAAA", typo.as_str(), "SHORT", "0000000000"] {
        let (status, body) = redeem(&server, bad, "cyd").await;
        assert_eq!(status, 404, "{bad}: {body}");
        assert_eq!(body["error"]["message"], format!("code {bad} not found"));
    }

    // The event carries the code; the coupon's CouponIssued says which code.
    let client = env.db.client().await.unwrap();
    let row = client
        .query_one(
            "SELECT e.metadata FROM events e WHERE e.event_type = 'CouponIssued'
                AND e.payload->>'user_id' = 'ann'",
            &[],
        )
        .await
        .unwrap();
    let metadata: Value = row.get(0);
    assert_eq!(metadata["code"]["batch_id"], one_use["id"]);
    assert_eq!(metadata["code"]["serial"], 0);
    let redeemed: i64 = client
        .query_one(
            "SELECT count(*) FROM events WHERE event_type = 'CodeRedeemed'",
            &[],
        )
        .await
        .unwrap()
        .get(0);
    assert_eq!(redeemed, 1);

    // Stopped and expired batches: 422.
    let id = one_use["id"].as_str().unwrap();
    let (status, stopped) = server
        .admin_post(&format!("/v1/code-batches/{id}/stop"), &json!({}))
        .await
        .unwrap();
    assert_eq!((status, stopped["status"].clone()), (200, json!("stopped")));
    let (status, body) = redeem(&server, &codes[5], "dan").await;
    assert_eq!(
        (status, body["error"]["code"].clone()),
        (422, json!("code_batch_stopped"))
    );
    let soon = chrono::Utc::now() + chrono::Duration::seconds(2);
    let expired = batch(
        &server,
        json!({"template_sn": sn, "count": 2, "expires_at": soon}),
    )
    .await;
    let code = codes_of(&server, &expired).await.remove(0);
    tokio::time::sleep(std::time::Duration::from_millis(2_500)).await;
    let (status, body) = redeem(&server, &code, "dan").await;
    assert_eq!(
        (status, body["error"]["code"].clone()),
        (422, json!("code_batch_expired"))
    );

    assert_verifies_once_caught_up(&env).await;
}

/// A `serve` keeps the batches its redemptions found for a few seconds
/// (docs/design.md §13); a stop made through another `serve` must still
/// refuse the next code at once, from many clients, alone or batched.
#[tokio::test(flavor = "multi_thread")]
async fn a_batch_stopped_through_another_server_refuses_its_codes_at_once() {
    let env = Env::new().await.unwrap();
    let (here, there) = (
        Arc::new(Server::start(&env).await.unwrap()),
        Server::start(&env).await.unwrap(),
    );
    let sn = here.active_template(1_000, 1).await.unwrap();
    let made = batch(&here, json!({"template_sn": sn, "count": 200})).await;
    let codes = codes_of(&here, &made).await;
    // Found, and kept, by `here`.
    assert_eq!(redeem(&here, &codes[0], "first").await.0, 201);
    let id = made["id"].as_str().unwrap();
    let (status, _) = there
        .admin_post(&format!("/v1/code-batches/{id}/stop"), &json!({}))
        .await
        .unwrap();
    assert_eq!(status, 200);
    let tries: Vec<_> = (1..101)
        .map(|i| {
            let (here, code) = (Arc::clone(&here), codes[i].clone());
            tokio::spawn(async move { redeem(&here, &code, &format!("u{i}")).await })
        })
        .collect();
    for t in tries {
        let (status, body) = t.await.unwrap();
        assert_eq!(
            (status, body["error"]["code"].clone()),
            (422, json!("code_batch_stopped"))
        );
    }
    // With an Idempotency-Key, the redemption is written alone.
    let r = here
        .service(Method::POST, "/v1/redemptions")
        .header("Idempotency-Key", "alone-after-stop")
        .json(&json!({"code": codes[150], "user_id": "alone"}))
        .send()
        .await
        .unwrap();
    let status = r.status().as_u16();
    let body: Value = r.json().await.unwrap();
    assert_eq!(
        (status, body["error"]["code"].clone()),
        (422, json!("code_batch_stopped"))
    );
    let client = env.db.client().await.unwrap();
    let used: i64 = client
        .query_one("SELECT count(*) FROM code_redemptions", &[])
        .await
        .unwrap()
        .get(0);
    assert_eq!(used, 1, "only the code redeemed before the stop");
}

#[tokio::test(flavor = "multi_thread")]
async fn guessing_codes_is_answered_429_per_user_and_per_address() {
    let env = Env::new().await.unwrap();
    let server = Server::start(&env).await.unwrap();
    let sn = server.active_template(10, 1).await.unwrap();
    let good = codes_of(
        &server,
        &batch(&server, json!({"template_sn": sn, "count": 3})).await,
    )
    .await;
    for _ in 0..10 {
        assert_eq!(redeem(&server, "AAAAAAAAAA", "guesser").await.0, 404);
    }
    let r = server
        .service(Method::POST, "/v1/redemptions")
        .json(&json!({"code": good[0], "user_id": "guesser"}))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 429, "limited even with a good code");
    assert!(r.headers().contains_key("retry-after"));
    assert_eq!(
        redeem(&server, &good[0], "honest").await.0,
        201,
        "others are not"
    );
    // One address guessing for many users.
    for i in 0..50 {
        let r = server
            .service(Method::POST, "/v1/redemptions")
            .header("X-Forwarded-For", "203.0.113.9")
            .json(&json!({"code": "BBBBBBBBBB", "user_id": format!("bot-{i}")}))
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), 404);
    }
    let r = server
        .service(Method::POST, "/v1/redemptions")
        .header("X-Forwarded-For", "203.0.113.9")
        .json(&json!({"code": good[1], "user_id": "new-user"}))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 429);
}

/// `clients` concurrent redemptions of `code`, user `user(i)` for the i-th.
async fn race(
    server: &Arc<Server>,
    code: &str,
    clients: usize,
    user: fn(usize) -> String,
) -> Vec<(String, u16)> {
    let mut tasks = tokio::task::JoinSet::new();
    for i in 0..clients {
        let (server, code) = (server.clone(), code.to_owned());
        tasks.spawn(async move {
            let who = user(i);
            let (status, body) = redeem(&server, &code, &who).await;
            assert!([201, 409, 410].contains(&status), "{status} {body}");
            (who, status)
        });
    }
    let mut out = Vec::new();
    while let Some(r) = tasks.join_next().await {
        out.push(r.unwrap());
    }
    out
}

async fn one_use_and_shared_codes_are_exact(env: Env) {
    let server = Arc::new(Server::start(&env).await.unwrap());
    let sn = server.active_template(10_000, 5).await.unwrap();
    let one = codes_of(
        &server,
        &batch(&server, json!({"template_sn": sn, "count": 1})).await,
    )
    .await;
    let results = race(&server, &one[0], 200, |i| format!("one-{i}")).await;
    let won: Vec<_> = results.iter().filter(|(_, s)| *s == 201).collect();
    assert_eq!(won.len(), 1, "exactly one redemption of a one-use code");
    assert!(results.iter().all(|(_, s)| [201, 410].contains(s)));

    let shared_batch = batch(
        &server,
        json!({"template_sn": sn, "count": 1, "uses_per_code": 100}),
    )
    .await;
    let shared = codes_of(&server, &shared_batch).await;
    // 300 users, the first 30 of them asking twice.
    let results = race(&server, &shared[0], 330, |i| format!("fan-{}", i % 300)).await;
    let won = results.iter().filter(|(_, s)| *s == 201).count();
    assert_eq!(won, 100, "exactly the code's uses");
    let coupons = holders(&env, &sn).await;
    let fans: Vec<_> = coupons
        .iter()
        .filter(|(u, _)| u.starts_with("fan-"))
        .collect();
    assert_eq!(fans.len(), 100);
    assert!(fans.iter().all(|(_, n)| **n == 1), "no user twice");
    let client = env.db.client().await.unwrap();
    let row = client
        .query_one(
            "SELECT (SELECT uses FROM code_uses WHERE batch_id = $1),
                    (SELECT sum(redeemed)::int8 FROM code_batch_users WHERE batch_id = $1),
                    (SELECT count(*) FROM events WHERE event_type = 'CodeRedeemed'
                        AND payload->>'batch_id' = $1::text)",
            &[&uuid::Uuid::parse_str(shared_batch["id"].as_str().unwrap()).unwrap()],
        )
        .await
        .unwrap();
    let (uses, redeemed, events): (i32, i64, i64) = (row.get(0), row.get(1), row.get(2));
    assert_eq!((uses, redeemed, events), (100, 100, 100));
    assert_verifies_once_caught_up(&env).await;
}

#[tokio::test(flavor = "multi_thread")]
async fn concurrent_redemptions_of_one_use_and_shared_codes_are_exact() {
    one_use_and_shared_codes_are_exact(Env::new().await.unwrap()).await;
}

#[tokio::test(flavor = "multi_thread")]
async fn with_redis_down_redemptions_are_still_exact() {
    let mut env = Env::new().await.unwrap();
    env.redis_url = Some("redis://127.0.0.1:1/".into());
    one_use_and_shared_codes_are_exact(env).await;
}

#[tokio::test(flavor = "multi_thread")]
async fn replay_names_a_code_counter_edited_behind_the_ledgers_back() {
    let env = Env::new().await.unwrap();
    let server = Server::start(&env).await.unwrap();
    let sn = server.active_template(100, 1).await.unwrap();
    let b = batch(
        &server,
        json!({"template_sn": sn, "count": 3, "uses_per_code": 2}),
    )
    .await;
    let codes = codes_of(&server, &b).await;
    assert_eq!(redeem(&server, &codes[0], "ann").await.0, 201);
    let client = env.db.client().await.unwrap();
    client
        .execute("UPDATE code_uses SET uses = 2", &[])
        .await
        .unwrap();
    let out = ledger(&env, &["replay", "--verify"]).await.unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{stdout}");
    assert!(
        stdout.contains("code_uses") && stdout.contains("uses: live 2 vs replayed 1"),
        "{stdout}"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn bad_batches_are_refused_naming_the_field() {
    let env = Env::new().await.unwrap();
    let server = Server::start(&env).await.unwrap();
    let sn = server.active_template(100, 1).await.unwrap();
    for (body, field) in [
        (json!({"template_sn": sn, "count": 0}), "count"),
        (json!({"template_sn": sn, "count": 100_000_001}), "count"),
        (
            json!({"template_sn": sn, "count": 5, "uses_per_code": 0}),
            "uses_per_code",
        ),
        (
            json!({"template_sn": sn, "count": 5, "per_user": -1}),
            "per_user",
        ),
        (
            json!({"template_sn": sn, "count": 5, "colour": "red"}),
            "colour",
        ),
        (
            json!({"template_sn": sn, "count": 5, "expires_at": "2020-01-01T00:00:00Z"}),
            "expires_at",
        ),
    ] {
        let (status, answer) = server.admin_post("/v1/code-batches", &body).await.unwrap();
        assert_eq!(status, 400, "{body}: {answer}");
        assert!(
            answer["error"]["message"].as_str().unwrap().contains(field),
            "{answer}"
        );
    }
    let (status, _) = server
        .admin_post(
            "/v1/code-batches",
            &json!({"template_sn": "NOSUCHTEMPLATE", "count": 5}),
        )
        .await
        .unwrap();
    assert_eq!(status, 404);
    let (status, _) = server
        .service_post("/v1/code-batches", &json!({"template_sn": sn, "count": 5}))
        .await
        .unwrap();
    assert_eq!(status, 403);
}

#[tokio::test(flavor = "multi_thread")]
async fn a_channel_redeems_with_a_signed_request_and_nothing_else_gets_in() {
    let env = Env::new().await.unwrap();
    let server = Server::start(&env).await.unwrap();
    let sn = server.active_template(10, 1).await.unwrap();
    let channel = server.channel_for(&sn).await.unwrap();
    let codes = codes_of(
        &server,
        &batch(&server, json!({"template_sn": sn, "count": 2})).await,
    )
    .await;
    let send = |body: String, headers: Vec<(&'static str, String)>| {
        let mut req = server
            .http
            .post(server.url("/v1/redemptions"))
            .header("Content-Type", "application/json")
            .body(body);
        for (k, v) in headers {
            req = req.header(k, v);
        }
        async move {
            let r = req.send().await.unwrap();
            (
                r.status().as_u16(),
                r.json::<Value>().await.unwrap_or(Value::Null),
            )
        }
    };
    let body = json!({"code": codes[0], "user_id": "ann"}).to_string();
    let signed = channel.sign(
        "POST",
        "/v1/redemptions",
        &body,
        &uuid::Uuid::new_v4().to_string(),
    );
    let (status, got) = send(body.clone(), signed.headers.clone()).await;
    assert_eq!(status, 201, "{got}");
    let (status, _) = send(body.clone(), signed.headers).await;
    assert_eq!(status, 401, "a nonce is spent once");
    let forged = json!({"code": codes[1], "user_id": "bob"}).to_string();
    let mut headers = channel
        .sign(
            "POST",
            "/v1/redemptions",
            &body,
            &uuid::Uuid::new_v4().to_string(),
        )
        .headers;
    headers.retain(|(k, _)| *k != "Content-Type");
    assert_eq!(
        send(forged.clone(), headers).await.0,
        401,
        "signed for another body"
    );
    assert_eq!(send(forged, vec![]).await.0, 401, "no credentials");
    let client = env.db.client().await.unwrap();
    let metadata: Value = client
        .query_one(
            "SELECT metadata FROM events WHERE event_type = 'CodeRedeemed'",
            &[],
        )
        .await
        .unwrap()
        .get(0);
    assert_eq!(metadata["channel_id"], channel.id.as_str());
    assert_eq!(metadata["actor"], format!("channel:{}", channel.id));
}
