//! Channel secrets at rest and failed signatures: rows are sealed under
//! LEDGER_SECRET_KEY, a wrong or missing key stops `serve`, a secret is shown
//! once, and repeated bad signatures end in 429.

use std::process::Stdio;
use std::time::Duration;

use serde_json::{Value, json};
use tests::{Channel, Env, SECRET_KEY, Server, bin};
use tokio::process::Command;
use uuid::Uuid;

const OTHER_KEY: &str = "other:00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff";

/// Every row of `table`, each as its text form.
async fn rows_as_text(env: &Env, table: &str) -> Vec<String> {
    let client = env.db.client().await.unwrap();
    let sql = format!("SELECT t::text FROM {table} t");
    let rows = client.query(sql.as_str(), &[]).await.unwrap();
    rows.iter().map(|r| r.get(0)).collect()
}

/// Runs `ledger serve` with the test's env, `unset` removed and `extra` set;
/// returns (exit code, stderr), or panics if it is still running after 20 s.
async fn serve_exits(
    env: &Env,
    args: &[&str],
    unset: &[&str],
    extra: &[(&str, &str)],
) -> (Option<i32>, String) {
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let vars = env.vars().into_iter().filter(|(k, _)| !unset.contains(k));
    let child = Command::new(bin("ledger"))
        .arg("serve")
        .args(args)
        .env_clear()
        .env("PATH", std::env::var("PATH").unwrap_or_default())
        .envs(vars)
        .envs(extra.iter().copied())
        .env("LEDGER_LISTEN", format!("127.0.0.1:{port}"))
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .unwrap();
    let out = tokio::time::timeout(Duration::from_secs(20), child.wait_with_output())
        .await
        .expect("serve should have refused to start, but it keeps running")
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    (out.status.code(), stderr)
}

#[tokio::test(flavor = "multi_thread")]
async fn a_stored_channel_row_holds_no_plaintext_secret_and_signed_claims_work() {
    let env = Env::new().await.unwrap();
    let server = Server::start(&env).await.unwrap();
    let sn = server.active_template(10, 1).await.unwrap();
    let channel = server.channel_for(&sn).await.unwrap();
    for table in ["channels", "channel_secrets", "idempotency_keys", "events"] {
        for row in rows_as_text(&env, table).await {
            assert!(!row.contains(&channel.secret), "{table}: {row}");
        }
    }
    let sealed = rows_as_text(&env, "channel_secrets").await;
    assert_eq!(sealed.len(), 1);
    assert!(
        sealed[0].contains(",test,"),
        "sealed under key id test: {sealed:?}"
    );
    let (status, body) = server.claim(&channel, &sn, "user-1").await.unwrap();
    assert_eq!(status, 201, "{body}");
}

#[tokio::test(flavor = "multi_thread")]
async fn an_idempotent_replay_of_channel_creation_does_not_show_the_secret() {
    let env = Env::new().await.unwrap();
    let server = Server::start(&env).await.unwrap();
    let post = || async {
        let r = server
            .admin(reqwest::Method::POST, "/v1/channels")
            .header("Idempotency-Key", "channel-1")
            .json(&json!({"name": "shop"}))
            .send()
            .await
            .unwrap();
        (r.status().as_u16(), r.text().await.unwrap())
    };
    let (status, first) = post().await;
    assert_eq!(status, 201, "{first}");
    let first: Value = serde_json::from_str(&first).unwrap();
    let secret = first["secret"].as_str().unwrap().to_owned();
    assert_eq!(secret.len(), 64);
    assert_eq!(first["secret_shown"], true);
    let (status, replay) = post().await;
    assert_eq!(status, 201, "{replay}");
    assert!(!replay.contains(&secret), "{replay}");
    let replay: Value = serde_json::from_str(&replay).unwrap();
    assert_eq!(replay["id"], first["id"]);
    assert_eq!(replay["name"], "shop");
    assert_eq!(replay["secret"], Value::Null);
    assert_eq!(replay["secret_shown"], false);
    for row in rows_as_text(&env, "idempotency_keys").await {
        assert!(!row.contains(&secret), "{row}");
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn serve_refuses_to_start_with_a_key_that_cannot_open_the_stored_secrets() {
    let env = Env::new().await.unwrap();
    let server = Server::start(&env).await.unwrap();
    server.active_template(10, 1).await.unwrap();
    let (status, body) = server
        .admin_post("/v1/channels", &json!({"name": "shop"}))
        .await
        .unwrap();
    assert_eq!(status, 201, "{body}");
    server.terminate().await.unwrap();

    let same_id_other_bytes = OTHER_KEY.replace("other", "test");
    for key in [OTHER_KEY, same_id_other_bytes.as_str()] {
        let (code, stderr) = serve_exits(&env, &[], &[], &[("LEDGER_SECRET_KEY", key)]).await;
        assert_eq!(code, Some(1), "{stderr}");
        assert!(stderr.contains("LEDGER_SECRET_KEY"), "{stderr}");
        assert!(
            !stderr.contains(&key[key.len() - 16..]),
            "the key leaked: {stderr}"
        );
    }
    // The right key still starts.
    Server::start(&env).await.unwrap();
}

#[tokio::test(flavor = "multi_thread")]
async fn serve_without_a_key_or_with_a_malformed_one_refuses_naming_the_variable() {
    let env = Env::new().await.unwrap();
    let (code, stderr) = serve_exits(&env, &[], &["LEDGER_SECRET_KEY"], &[]).await;
    assert_eq!(code, Some(1), "{stderr}");
    assert!(stderr.contains("LEDGER_SECRET_KEY is required"), "{stderr}");
    let (code, stderr) =
        serve_exits(&env, &["--dev"], &[], &[("LEDGER_SECRET_KEY", "test:abcd")]).await;
    assert_eq!(code, Some(1), "{stderr}");
    assert!(stderr.contains("LEDGER_SECRET_KEY"), "{stderr}");
    assert_eq!(stderr.trim().lines().count(), 1, "one line: {stderr}");
}

/// A channel as it was before V6: its secret in plain.
async fn plaintext_channel(env: &Env, secret: &str) -> Channel {
    let id = Uuid::new_v4();
    let client = env.db.client().await.unwrap();
    client
        .execute(
            "INSERT INTO channels (id, name, created_at, secret_created_at)
             VALUES ($1, 'old', now(), now())",
            &[&id],
        )
        .await
        .unwrap();
    client
        .execute(
            "INSERT INTO channel_secrets (channel_id, secret) VALUES ($1, $2)",
            &[&id, &secret],
        )
        .await
        .unwrap();
    Channel {
        id: id.to_string(),
        secret: secret.to_owned(),
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn plaintext_rows_are_sealed_at_start_and_a_rotated_key_reseals_them() {
    let env = Env::new().await.unwrap();
    let secret = "0123456789abcdef0123456789abcdef-from-before-v6";
    let channel = plaintext_channel(&env, secret).await;
    let server = Server::start(&env).await.unwrap();
    let rows = rows_as_text(&env, "channel_secrets").await;
    assert!(
        !rows[0].contains(secret) && rows[0].contains(",test,"),
        "{rows:?}"
    );
    let sn = server.active_template(10, 5).await.unwrap();
    let allow = json!({"channel_id": channel.id});
    let (status, body) = server
        .admin_post(&format!("/v1/templates/{sn}/channels"), &allow)
        .await
        .unwrap();
    assert_eq!(status, 200, "{body}");
    assert_eq!(server.claim(&channel, &sn, "u1").await.unwrap().0, 201);
    server.terminate().await.unwrap();

    // Rotation: the new key seals, the old one opens what it sealed.
    let rotated = [
        ("LEDGER_SECRET_KEY", OTHER_KEY),
        ("LEDGER_SECRET_KEYS_OLD", SECRET_KEY),
    ];
    let server = Server::start_with(&env, &rotated).await.unwrap();
    let rows = rows_as_text(&env, "channel_secrets").await;
    assert!(rows[0].contains(",other,"), "re-sealed: {rows:?}");
    assert_eq!(server.claim(&channel, &sn, "u2").await.unwrap().0, 201);
    server.terminate().await.unwrap();
    // So the old key may go.
    let only_new = [("LEDGER_SECRET_KEY", OTHER_KEY)];
    let server = Server::start_with(&env, &only_new).await.unwrap();
    assert_eq!(server.claim(&channel, &sn, "u3").await.unwrap().0, 201);
}

#[tokio::test(flavor = "multi_thread")]
async fn repeated_bad_signatures_end_in_429_and_another_channel_is_still_served() {
    let env = Env::new().await.unwrap();
    let server = Server::start(&env).await.unwrap();
    let sn = server.active_template(10, 5).await.unwrap();
    let good = server.channel_for(&sn).await.unwrap();
    let victim = server.channel_for(&sn).await.unwrap();
    let forged = Channel {
        id: victim.id.clone(),
        secret: "a guess".into(),
    };
    let body = json!({"template_sn": sn, "user_id": "u1"}).to_string();
    for i in 0..ledger::api::auth::auth_limit::CHANNEL_FAILURES {
        let signed = forged.sign("POST", "/v1/claims", &body, &format!("n{i}"));
        let (status, answer) = server.send_signed(signed, body.clone()).await.unwrap();
        assert_eq!(status, 401, "attempt {i}: {answer}");
    }
    let signed = forged.sign("POST", "/v1/claims", &body, "n-last");
    let r = server
        .http
        .post(server.url("/v1/claims"))
        .header("Content-Type", "application/json")
        .headers(
            signed
                .headers
                .iter()
                .map(|(k, v)| (k.parse().unwrap(), v.parse().unwrap()))
                .collect(),
        )
        .body(body.clone())
        .send()
        .await
        .unwrap();
    assert_eq!(r.status().as_u16(), 429);
    let retry: u64 = r.headers()["Retry-After"]
        .to_str()
        .unwrap()
        .parse()
        .unwrap();
    assert!((1..=60).contains(&retry), "{retry}");
    let answer: Value = r.json().await.unwrap();
    assert_eq!(answer["error"]["code"], "rate_limited", "{answer}");
    // Even the real secret waits: the limit is on the channel id.
    assert_eq!(server.claim(&victim, &sn, "u1").await.unwrap().0, 429);
    let (status, answer) = server.claim(&good, &sn, "u1").await.unwrap();
    assert_eq!(status, 201, "{answer}");
}
