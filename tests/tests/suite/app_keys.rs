//! App keys (docs/design.md §19): made by the admin and shown once, scoped,
//! rotated with an overlap, revoked on every server within 5 s, each with
//! its own code-guess budget; every key action and every request of a key
//! names its principal in the events, `GET /v1/audit/actions` lists who did
//! what, and `replay --verify` rebuilds the keys from the log.

use std::time::{Duration, Instant};

use reqwest::Method;
use serde_json::{Value, json};
use tests::access::{assert_forbidden, call, make_key};
use tests::shop::order;
use tests::workers::assert_verifies_once_caught_up;
use tests::{Env, Server};

#[tokio::test(flavor = "multi_thread")]
async fn a_key_with_orders_checks_out_and_is_refused_wallets() {
    let env = Env::new().await.unwrap();
    let server = Server::start(&env).await.unwrap();
    let (key_id, key) = make_key(&server, "checkout", &["orders"]).await;
    let sn = server.active_template(10, 1).await.unwrap();
    let channel = server.channel_for(&sn).await.unwrap();
    let (status, coupon) = server.claim(&channel, &sn, "u-1").await.unwrap();
    assert_eq!(status, 201, "{coupon}");
    let o = order("o-1", "u-1", &[("l1", 1, "150.00")], "0.00");
    let quote = json!({"user_id": "u-1", "order": o});
    let (status, quoted) = call(
        &server,
        &key,
        Method::POST,
        "/v1/orders/quote",
        Some(&quote),
    )
    .await;
    assert_eq!(status, 200, "{quoted}");
    let lock = json!({"order": o, "coupon_ids": [coupon["id"]], "expected_payable": "130.00"});
    let (status, locked) = call(&server, &key, Method::POST, "/v1/orders/lock", Some(&lock)).await;
    assert_eq!(status, 200, "{locked}");
    let confirm = call(
        &server,
        &key,
        Method::POST,
        "/v1/orders/o-1/confirm",
        Some(&json!({})),
    )
    .await;
    assert_eq!(confirm.0, 200, "{}", confirm.1);
    let wallet = call(&server, &key, Method::GET, "/v1/users/u-1/coupons", None).await;
    assert_forbidden("wallet read", &wallet, "wallets:read");
    // The lock's events name the key; the key's own, the operator.
    let client = env.db.client().await.unwrap();
    let sql = "SELECT metadata FROM events WHERE stream_id = 'order-o-1' ORDER BY position";
    let meta: Value = client.query(sql, &[]).await.unwrap()[0].get(0);
    assert_eq!(
        meta["api_key"],
        json!({"id": key_id, "name": "checkout"}),
        "{meta}"
    );
    assert_eq!(meta["actor"], "service");
    let sql = "SELECT metadata FROM events WHERE stream_id = $1";
    let meta: Value = client
        .query_one(sql, &[&format!("apikey-{key_id}")])
        .await
        .unwrap()
        .get(0);
    assert_eq!(
        (&meta["operator"], &meta["role"]),
        (&json!("admin"), &json!("admin"))
    );
    let (status, page) = server
        .admin_get("/v1/audit/actions?api_key=checkout")
        .await
        .unwrap();
    assert_eq!(status, 200, "{page}");
    let types: Vec<&str> = page["actions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a["event_type"].as_str().unwrap())
        .collect();
    assert!(
        types.contains(&"OrderLocked") && types.contains(&"OrderConfirmed"),
        "{types:?}"
    );
    let (_, page) = server
        .admin_get("/v1/audit/actions?operator=admin&limit=500")
        .await
        .unwrap();
    let made = page["actions"]
        .as_array()
        .unwrap()
        .iter()
        .any(|a| a["event_type"] == "ApiKeyCreated");
    assert!(made, "{page}");
    assert_verifies_once_caught_up(&env).await;
}

/// Polls `server` with `key` until it is refused `key_revoked`; how long it took.
async fn until_revoked(server: &Server, key: &str) -> Duration {
    let began = Instant::now();
    loop {
        let (status, body) = call(
            server,
            key,
            Method::POST,
            "/v1/orders/quote",
            Some(&json!({})),
        )
        .await;
        if status == 401 {
            assert_eq!(body["error"]["code"], "key_revoked", "{body}");
            return began.elapsed();
        }
        assert_eq!(status, 400, "a live key's empty quote: {body}");
        assert!(began.elapsed() < Duration::from_secs(10), "never revoked");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn a_revoked_key_is_refused_by_every_server_within_five_seconds() {
    let env = Env::new().await.unwrap();
    let (one, two) = (
        Server::start(&env).await.unwrap(),
        Server::start(&env).await.unwrap(),
    );
    let (id, key) = make_key(&one, "app", &["orders"]).await;
    for server in [&one, &two] {
        // Both servers have read the key (and cached it) before it goes.
        let live = call(
            server,
            &key,
            Method::POST,
            "/v1/orders/quote",
            Some(&json!({})),
        )
        .await;
        assert_eq!(live.0, 400, "{}", live.1);
    }
    let (status, revoked) = one
        .admin_post(&format!("/v1/api-keys/{id}/revoke"), &json!({}))
        .await
        .unwrap();
    assert_eq!(status, 200, "{revoked}");
    for server in [&one, &two] {
        let took = until_revoked(server, &key).await;
        assert!(took <= Duration::from_secs(5), "refused after {took:?}");
    }
    let (_, read) = one.admin_get(&format!("/v1/api-keys/{id}")).await.unwrap();
    assert!(
        read["revoked_at"].is_string() && read.get("key").is_none(),
        "{read}"
    );
    let (status, _) = one
        .admin_post(
            &format!("/v1/api-keys/{id}/rotate"),
            &json!({"overlap_secs": 1}),
        )
        .await
        .unwrap();
    assert_eq!(status, 409, "a revoked key is not rotated");
    tests::workers::assert_replay_verifies(&env).await;
}

#[tokio::test(flavor = "multi_thread")]
async fn a_rotated_key_works_beside_the_new_one_for_its_overlap_only() {
    let env = Env::new().await.unwrap();
    let server = Server::start(&env).await.unwrap();
    let (id, old) = make_key(&server, "app", &["wallets:read"]).await;
    let rotate = json!({"overlap_secs": 3});
    let (status, rotated) = server
        .admin_post(&format!("/v1/api-keys/{id}/rotate"), &rotate)
        .await
        .unwrap();
    assert_eq!(status, 200, "{rotated}");
    let new = rotated["key"].as_str().unwrap().to_owned();
    assert_ne!(new, old);
    let read = |key: String| {
        let server = &server;
        async move {
            call(server, &key, Method::GET, "/v1/users/u-1/balance", None)
                .await
                .0
        }
    };
    assert_eq!(
        (read(old.clone()).await, read(new.clone()).await),
        (200, 200)
    );
    tokio::time::sleep(Duration::from_secs(4)).await;
    assert_eq!(refused_read(&server, &old).await, 401);
    assert_eq!(read(new).await, 200);
    tests::workers::assert_replay_verifies(&env).await;
}

async fn refused_read(server: &Server, key: &str) -> u16 {
    let (status, body) = call(server, key, Method::GET, "/v1/users/u-1/balance", None).await;
    assert_eq!(body["error"]["code"], "key_revoked", "{body}");
    status
}

#[tokio::test(flavor = "multi_thread")]
async fn bad_keys_are_refused_naming_what_and_nothing_shows_a_key() {
    let env = Env::new().await.unwrap();
    let server = Server::start(&env).await.unwrap();
    let too_many: Vec<String> = (0..101).map(|_| "orders".to_owned()).collect();
    for (body, says) in [
        (
            json!({"name": "a", "scopes": ["orders", "admin:all"]}),
            "admin:all",
        ),
        (json!({"name": "a", "scopes": []}), "scopes"),
        (json!({"name": "a", "scopes": too_many}), "100"),
        (json!({"name": "bad name", "scopes": ["orders"]}), "name"),
    ] {
        let (status, answer) = server.admin_post("/v1/api-keys", &body).await.unwrap();
        assert_eq!(status, 400, "{body}: {answer}");
        assert!(
            answer["error"]["message"].as_str().unwrap().contains(says),
            "{answer}"
        );
    }
    let (_, key) = make_key(&server, "app", &["orders", "orders"]).await;
    let (status, taken) = server
        .admin_post(
            "/v1/api-keys",
            &json!({"name": "app", "scopes": ["orders"]}),
        )
        .await
        .unwrap();
    assert_eq!(
        (status, taken["error"]["code"].as_str()),
        (409, Some("key_name_taken"))
    );
    let (_, list) = server.admin_get("/v1/api-keys").await.unwrap();
    assert_eq!(list["keys"][0]["scopes"], json!(["orders"]));
    assert!(
        !list.to_string().contains(&key[4..]),
        "a list never shows a key"
    );
    let client = env.db.client().await.unwrap();
    let events: String = client
        .query_one("SELECT string_agg(payload::text, '') FROM events", &[])
        .await
        .unwrap()
        .get(0);
    assert!(!events.contains(&key[4..]), "the log holds digests only");
}

#[tokio::test(flavor = "multi_thread")]
async fn each_key_has_its_own_code_guess_budget_whatever_address_it_names() {
    let env = Env::new().await.unwrap();
    let server = Server::start(&env).await.unwrap();
    let (_, guesser) = make_key(&server, "guesser", &["redemptions"]).await;
    let (_, other) = make_key(&server, "other", &["redemptions"]).await;
    let guess = |key: String, i: usize| {
        let server = &server;
        async move {
            let body = json!({"code": "AAAAAAAAAA", "user_id": format!("u-{i}")});
            let req = server
                .http
                .post(server.url("/v1/redemptions"))
                .bearer_auth(key);
            let req = req.header(
                "X-Forwarded-For",
                format!("10.{}.{}.{}", i >> 16 & 255, i >> 8 & 255, i & 255),
            );
            req.json(&body).send().await.unwrap().status().as_u16()
        }
    };
    // A new user and a new address on every try: only the key's own
    // budget (2,000 a minute) can stop it.
    let mut limited_at = None;
    for i in 0..2_100 {
        if guess(guesser.clone(), i).await == 429 {
            limited_at = Some(i);
            break;
        }
    }
    assert_eq!(
        limited_at,
        Some(2_000),
        "the key's budget is 2,000 failed guesses"
    );
    assert_eq!(
        guess(other, 5_000).await,
        404,
        "another key's budget is its own"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn metrics_need_their_token_when_it_is_set_and_health_stays_open() {
    let env = Env::new().await.unwrap();
    let server = Server::start_with(&env, &[("LEDGER_METRICS_TOKEN", "m-t0ken")])
        .await
        .unwrap();
    let get = |token: Option<&str>| {
        let mut req = server.http.get(server.url("/metrics"));
        if let Some(token) = token {
            req = req.bearer_auth(token);
        }
        async move { req.send().await.unwrap().status().as_u16() }
    };
    assert_eq!(get(None).await, 401);
    assert_eq!(get(Some("wrong")).await, 403);
    assert_eq!(
        get(Some(tests::ADMIN_TOKEN)).await,
        403,
        "an operator's token is not the metrics'"
    );
    assert_eq!(get(Some("m-t0ken")).await, 200);
    for path in ["/healthz", "/readyz"] {
        let r = server.http.get(server.url(path)).send().await.unwrap();
        assert_eq!(r.status(), 200, "{path}");
        let text = r.text().await.unwrap();
        for internal in ["lag", "cluster", "127.0.0.1", "coupon."] {
            assert!(!text.contains(internal), "{path} says {internal}: {text}");
        }
    }
    // An operator sees the details.
    let r = server.admin(Method::GET, "/readyz").send().await.unwrap();
    let ready: Value = r.json().await.unwrap();
    assert!(
        ready["lag"].is_array() && ready["cluster"].is_object(),
        "{ready}"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_key_over_its_own_rate_waits_and_another_key_does_not() {
    let env = Env::new().await.unwrap();
    let server = Server::start(&env).await.unwrap();
    let body = json!({"name": "slow", "scopes": ["orders"],
        "rate_limit": {"per_second": 1, "burst": 3}});
    let (status, made) = server.admin_post("/v1/api-keys", &body).await.unwrap();
    assert_eq!(status, 201, "{made}");
    let slow = made["key"].as_str().unwrap().to_owned();
    let (_, free) = make_key(&server, "free", &["orders"]).await;
    let quote = |key: String| {
        let server = &server;
        async move {
            let req = server
                .http
                .post(server.url("/v1/orders/quote"))
                .bearer_auth(key);
            let r = req.json(&json!({})).send().await.unwrap();
            let wait = r
                .headers()
                .get("retry-after")
                .map(|v| v.to_str().unwrap().to_owned());
            (r.status().as_u16(), wait)
        }
    };
    for _ in 0..3 {
        assert_eq!(quote(slow.clone()).await.0, 400, "within its burst");
    }
    assert_eq!(quote(slow.clone()).await, (429, Some("1".to_owned())));
    for _ in 0..10 {
        assert_eq!(
            quote(free.clone()).await.0,
            400,
            "another key is not slowed"
        );
    }
    let bad =
        json!({"name": "bad", "scopes": ["orders"], "rate_limit": {"per_second": 0, "burst": 1}});
    assert_eq!(
        server.admin_post("/v1/api-keys", &bad).await.unwrap().0,
        400
    );
    tests::workers::assert_replay_verifies(&env).await;
}

#[tokio::test(flavor = "multi_thread")]
async fn at_most_a_thousand_keys_are_live_even_when_made_at_once() {
    let env = Env::new().await.unwrap();
    let server = Server::start(&env).await.unwrap();
    let mut last = String::new();
    for i in 0..990 {
        last = make_key(&server, &format!("app-{i}"), &["orders"]).await.0;
    }
    // The last places, raced for by 20 makers at once: exactly 10 win.
    let racers = (0..20).map(|i| {
        let server = &server;
        async move {
            let body = json!({"name": format!("racer-{i}"), "scopes": ["orders"]});
            server.admin_post("/v1/api-keys", &body).await.unwrap()
        }
    });
    let answers = futures_util::future::join_all(racers).await;
    let made = answers.iter().filter(|(status, _)| *status == 201).count();
    assert_eq!(made, 10, "{answers:?}");
    for (status, body) in answers.iter().filter(|(status, _)| *status != 201) {
        assert_eq!(
            (*status, body["error"]["code"].as_str()),
            (409, Some("too_many_keys"))
        );
    }
    let one_more = json!({"name": "app-1000", "scopes": ["orders"]});
    let (status, refused) = server.admin_post("/v1/api-keys", &one_more).await.unwrap();
    assert_eq!(
        (status, refused["error"]["code"].as_str()),
        (409, Some("too_many_keys")),
        "{refused}"
    );
    let revoke = format!("/v1/api-keys/{last}/revoke");
    assert_eq!(server.admin_post(&revoke, &json!({})).await.unwrap().0, 200);
    let (status, made) = server.admin_post("/v1/api-keys", &one_more).await.unwrap();
    assert_eq!(status, 201, "a revoked key frees its place: {made}");
}
