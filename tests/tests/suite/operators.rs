//! Named operators (docs/design.md §7 "Operators"): `LEDGER_ADMIN_TOKENS`
//! names them, `LEDGER_ADMIN_TOKEN` stays operator `admin`; every event an
//! admin route writes names the operator in its metadata (and the coupons
//! of an operator's issuance job), the template and coupon histories show
//! it, a wrong token is answered the same whoever is configured, and a bad
//! list stops `serve` naming the variable, never quoting a token.

use std::process::Stdio;
use std::time::Duration;

use reqwest::Method;
use serde_json::{Value, json};
use tests::workers::Workers;
use tests::{ADMIN_TOKEN, Env, Server, bin, template_body, uploads};
use tokio::process::Command;

const ALICE: &str = "alice-t0ken-5f2c9a";
const BOB: &str = "bob-t0ken-77e1d0";
const OPERATORS: &str = "alice:alice-t0ken-5f2c9a, bob:bob-t0ken-77e1d0";

/// One admin request as the operator holding `token`, with its own
/// request id (the events' `correlation_id`): (status, body, request id).
async fn call(
    server: &Server,
    token: &str,
    method: Method,
    path: &str,
    body: Option<Value>,
) -> (u16, Value, String) {
    let id = uuid::Uuid::new_v4().to_string();
    let mut req = server.http.request(method, server.url(path));
    req = req.bearer_auth(token).header("X-Request-Id", &id);
    if let Some(body) = body {
        req = req.json(&body);
    }
    let r = req.send().await.unwrap();
    let status = r.status().as_u16();
    (status, r.json().await.unwrap_or(Value::Null), id)
}

/// (actor, operator) of every event the request `id` wrote.
async fn written_by(env: &Env, id: &str) -> Vec<(String, Option<String>)> {
    let client = env.db.client().await.unwrap();
    let sql = "SELECT metadata->>'actor', metadata->>'operator' FROM events
                WHERE metadata->>'correlation_id' = $1 ORDER BY position";
    let rows = client.query(sql, &[&id]).await.unwrap();
    rows.iter().map(|r| (r.get(0), r.get(1))).collect()
}

/// Asserts the request `id` wrote at least one event, each by `operator`.
async fn assert_written_by(env: &Env, what: &str, id: &str, operator: &str) {
    let events = written_by(env, id).await;
    assert!(!events.is_empty(), "{what}: no event");
    for (actor, op) in &events {
        assert_eq!(actor, "admin", "{what}: the actor stays the role");
        assert_eq!(op.as_deref(), Some(operator), "{what}");
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn every_admin_route_records_the_operator_who_called_it() {
    let env = Env::new().await.unwrap();
    let server = Server::start_with(&env, &[("LEDGER_ADMIN_TOKENS", OPERATORS)])
        .await
        .unwrap();
    let workers = Workers::start(&env, "issuance").unwrap();
    let mut done = Vec::new();
    let mut step =
        async |who: (&str, &str), what: &str, method: Method, path: &str, body: Option<Value>| {
            let (status, answer, id) = call(&server, who.1, method, path, body).await;
            assert!((200..300).contains(&status), "{what}: {status} {answer}");
            assert_written_by(&env, what, &id, who.0).await;
            done.push(what.to_owned());
            answer
        };
    let (alice, bob, admin) = (("alice", ALICE), ("bob", BOB), ("admin", ADMIN_TOKEN));
    let post = Method::POST;
    let created = step(
        alice,
        "create template",
        post.clone(),
        "/v1/templates",
        Some(template_body(100, 5)),
    )
    .await;
    let sn = created["sn"].as_str().unwrap().to_owned();
    let t = format!("/v1/templates/{sn}");
    step(
        bob,
        "activate template",
        post.clone(),
        &format!("{t}/activate"),
        None,
    )
    .await;
    step(
        alice,
        "rename template",
        Method::PATCH,
        &t,
        Some(json!({"name": "renamed"})),
    )
    .await;
    step(
        bob,
        "raise quota",
        post.clone(),
        &format!("{t}/quota"),
        Some(json!({"total": 200})),
    )
    .await;
    let channel = step(
        alice,
        "create channel",
        post.clone(),
        "/v1/channels",
        Some(json!({"name": "shop"})),
    )
    .await;
    let allow = json!({"channel_id": channel["id"]});
    step(
        bob,
        "allow channel",
        post.clone(),
        &format!("{t}/channels"),
        Some(allow.clone()),
    )
    .await;
    let batch = json!({"template_sn": sn, "count": 3});
    let batch = step(
        alice,
        "create code batch",
        post.clone(),
        "/v1/code-batches",
        Some(batch),
    )
    .await;
    let stop = format!("/v1/code-batches/{}/stop", batch["id"].as_str().unwrap());
    step(bob, "stop code batch", post.clone(), &stop, None).await;
    let items = json!([{"template_sn": sn, "count": 1}]);
    let package = json!({"name": "pack", "items": items, "total": 10, "per_user_limit": 1,
        "issue_window": tests::packages::window()});
    let package = step(
        bob,
        "create package",
        post.clone(),
        "/v1/packages",
        Some(package),
    )
    .await;
    let p = format!("/v1/packages/{}", package["sn"].as_str().unwrap());
    step(
        alice,
        "activate package",
        post.clone(),
        &format!("{p}/activate"),
        None,
    )
    .await;
    step(
        admin,
        "allow package channel",
        post.clone(),
        &format!("{p}/channels"),
        Some(allow),
    )
    .await;
    step(
        bob,
        "stop package",
        post.clone(),
        &format!("{p}/stop"),
        None,
    )
    .await;

    // An issuance job's coupons name the operator who uploaded the file.
    let file = uploads::users_file(0..3);
    let r = server
        .http
        .post(server.url(&format!("/v1/issuance-jobs?template={sn}")))
        .bearer_auth(ALICE)
        .body(file)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 202);
    let job: Value = r.json().await.unwrap();
    let job_id = job["job_id"].as_str().unwrap();
    let coupons = issued_by_job(&env, job_id, 3).await;
    assert_eq!(issue_as(&env, &server, "bob", &sn).await, "bob");
    let void = format!("/v1/coupons/{}/void", coupons[0]);
    step(admin, "void coupon", post.clone(), &void, None).await;
    assert_eq!(done.len(), 13, "{done:?}");

    let client = env.db.client().await.unwrap();
    let unnamed = "SELECT count(*) FROM events
                    WHERE metadata->>'actor' = 'admin' AND metadata->>'operator' IS NULL";
    let unnamed: i64 = client.query_one(unnamed, &[]).await.unwrap().get(0);
    assert_eq!(unnamed, 0, "an admin event without its operator");

    let history = history_of(&server, &format!("{t}/events")).await;
    assert_eq!(
        history,
        [
            ("TemplateCreated", "alice"),
            ("TemplateActivated", "bob"),
            ("TemplateUpdated", "alice"),
            ("TemplateQuotaRaised", "bob"),
            ("TemplateChannelAllowed", "bob"),
        ]
        .map(|(t, o)| (t.to_owned(), o.to_owned()))
    );
    let coupon = history_of(&server, &format!("/v1/coupons/{}/events", coupons[0])).await;
    let coupon: Vec<&str> = coupon.iter().map(|(_, o)| o.as_str()).collect();
    assert_eq!(
        coupon,
        ["alice", "admin"],
        "issued for alice's job, voided by admin"
    );
    workers.terminate().await.unwrap();
}

/// The coupons of the job `job_id` once its `n` lines are issued.
async fn issued_by_job(env: &Env, job_id: &str, n: usize) -> Vec<String> {
    let client = env.db.client().await.unwrap();
    let job = uuid::Uuid::parse_str(job_id).unwrap();
    for _ in 0..600 {
        let sql = "SELECT id::text FROM coupons WHERE job_id = $1 ORDER BY job_line";
        let rows = client.query(sql, &[&job]).await.unwrap();
        if rows.len() == n {
            let sql = "SELECT count(*) FROM events
                        WHERE metadata->>'correlation_id' = $1
                          AND metadata->>'operator' = 'alice'
                          AND metadata->>'actor' = 'system:issuance'";
            let named: i64 = client.query_one(sql, &[&job_id]).await.unwrap().get(0);
            assert_eq!(named, n as i64, "every coupon of the job names alice");
            return rows.iter().map(|r| r.get(0)).collect();
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    panic!("job {job_id} did not issue {n} coupons");
}

/// Runs `ledger issue --operator <operator> --no-wait` for `sn`, the
/// operators in its environment: the operator its job records.
async fn issue_as(env: &Env, server: &Server, operator: &str, sn: &str) -> String {
    let file = std::env::temp_dir().join(format!("operators-{}.txt", uuid::Uuid::new_v4()));
    std::fs::write(&file, "user-7\nuser-8\n").unwrap();
    let out = Command::new(bin("ledger"))
        .args([
            "issue",
            "--template",
            sn,
            "--no-wait",
            "--operator",
            operator,
        ])
        .arg("--file")
        .arg(&file)
        .envs(env.vars())
        .env("LEDGER_ADMIN_TOKENS", OPERATORS)
        .env("LEDGER_URL", &server.base)
        .stdin(Stdio::null())
        .output()
        .await
        .unwrap();
    std::fs::remove_file(&file).unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{out:?}");
    let job = uuid::Uuid::parse_str(stdout.trim()).unwrap();
    let client = env.db.client().await.unwrap();
    let sql = "SELECT operator FROM issuance_jobs WHERE id = $1";
    client.query_one(sql, &[&job]).await.unwrap().get(0)
}

/// (event type, operator) of each event a history route answers.
async fn history_of(server: &Server, path: &str) -> Vec<(String, String)> {
    let (status, events, _) = call(server, ADMIN_TOKEN, Method::GET, path, None).await;
    assert_eq!(status, 200, "{events}");
    let events = events.as_array().unwrap();
    events
        .iter()
        .map(|e| {
            let operator = e["metadata"]["operator"].as_str().unwrap_or("-");
            (e["event_type"].as_str().unwrap().into(), operator.into())
        })
        .collect()
}

/// Status, content type and body of each of a run of wrong-token requests
/// (the first ones 403, the rest 429 once the address used its window).
async fn wrong_answers(server: &Server) -> Vec<(u16, String, Vec<u8>)> {
    // Prefixes and extensions of real tokens, other roles', none at all.
    let wrong = [
        "",
        "a",
        "alice-t0ken-5f2c9",
        "alice-t0ken-5f2c9a0",
        "bob-t0ken-77e1d",
        "bob",
        "test-admin-toke",
        "test-admin-token0",
        "test-service-token",
        "alice:alice-t0ken-5f2c9a",
    ];
    let mut answers = Vec::new();
    for token in wrong.iter().cycle().take(24) {
        for path in [
            "/v1/templates",
            "/v1/coupons/00000000-0000-0000-0000-000000000000",
        ] {
            let mut req = server.http.get(server.url(path));
            if !token.is_empty() {
                req = req.bearer_auth(token);
            }
            let r = req.send().await.unwrap();
            let kind = r
                .headers()
                .get("content-type")
                .map(|v| v.to_str().unwrap().to_owned());
            let status = r.status().as_u16();
            answers.push((
                status,
                kind.unwrap_or_default(),
                r.bytes().await.unwrap().to_vec(),
            ));
        }
    }
    answers
}

#[tokio::test(flavor = "multi_thread")]
async fn a_wrong_token_is_answered_alike_whatever_operators_exist() {
    let three = [("LEDGER_ADMIN_TOKENS", OPERATORS)];
    let one = [
        ("LEDGER_ADMIN_TOKENS", "alice:alice-t0ken-5f2c9a"),
        ("LEDGER_ADMIN_TOKEN", ""),
    ];
    let configs: [&[(&str, &str)]; 3] = [&[], &one, &three];
    let mut runs = Vec::new();
    for extra in configs {
        // Each its own Redis prefix: every run starts with a fresh window.
        let env = Env::new().await.unwrap();
        let server = Server::start_with(&env, extra).await.unwrap();
        runs.push(wrong_answers(&server).await);
    }
    let statuses: Vec<u16> = runs[0].iter().map(|a| a.0).collect();
    assert!(statuses.contains(&401) && statuses.contains(&403) && statuses.contains(&429));
    for body in runs[0].iter().map(|a| String::from_utf8_lossy(&a.2)) {
        for name in ["alice", "bob", "operator"] {
            assert!(!body.contains(name), "an answer names {name}: {body}");
        }
    }
    assert_eq!(runs[0], runs[1], "no operator and one are answered alike");
    assert_eq!(runs[0], runs[2], "no operator and three are answered alike");
}

/// `ledger serve` with `vars` on top of the test's: (exit code, stderr).
async fn serve_with(env: &Env, vars: &[(&str, &str)]) -> (Option<i32>, String) {
    let run = Command::new(bin("ledger"))
        .arg("serve")
        .envs(env.vars())
        .envs(vars.iter().copied())
        .env("LEDGER_LISTEN", "127.0.0.1:0")
        .stdin(Stdio::null())
        .output();
    let out = tokio::time::timeout(Duration::from_secs(20), run)
        .await
        .expect("serve stops at once on a bad configuration")
        .unwrap();
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[tokio::test(flavor = "multi_thread")]
async fn a_bad_operator_list_stops_serve_naming_the_variable_and_no_token() {
    let env = Env::new().await.unwrap();
    let hundred_one: Vec<String> = (0..101).map(|i| format!("op{i}:sekrit-{i:03}")).collect();
    let hundred_one = hundred_one.join(",");
    let long_name = format!("{}:sekrit-1", "n".repeat(65));
    for list in [
        "alice:sekrit-1,alice:sekrit-2",
        "alice:sekrit-1,bob:sekrit-1",
        "alice:",
        ":sekrit-1",
        "sekrit-1",
        "alice:sekrit-1,",
        "al ice:sekrit-1",
        "alice!:sekrit-1",
        &long_name,
        "admin:sekrit-2",
        "bob:test-admin-token",
        &hundred_one,
    ] {
        let (code, stderr) = serve_with(&env, &[("LEDGER_ADMIN_TOKENS", list)]).await;
        assert_eq!(code, Some(1), "{list}: {stderr}");
        assert!(stderr.contains("LEDGER_ADMIN_TOKENS: "), "{list}: {stderr}");
        for secret in ["sekrit", "test-admin-token"] {
            assert!(!stderr.contains(secret), "{list}: a token in {stderr}");
        }
    }
    let none = [("LEDGER_ADMIN_TOKEN", ""), ("LEDGER_ADMIN_TOKENS", "")];
    let (code, stderr) = serve_with(&env, &none).await;
    assert_eq!(code, Some(1), "{stderr}");
    assert!(
        stderr.contains("LEDGER_ADMIN_TOKEN (or LEDGER_ADMIN_TOKENS) is required"),
        "{stderr}"
    );
}
