//! Passphrase codes (口令, docs/design.md §20): one code chosen by hand that
//! many users type. Exact under 2,000 concurrent redemptions (uses and
//! once per user), found however users type it (full width, any case, any
//! script), one active batch per passphrase, the same answers as generated
//! codes, every bad field named, and replayed.

use std::collections::HashSet;
use std::sync::Arc;

use serde_json::{Value, json};
use tests::codes::{batch, codes, redeem};
use tests::workers::assert_verifies_once_caught_up;
use tests::{Env, Server};

fn passphrase(sn: &str, code: &str, uses: i64) -> Value {
    json!({"kind": "passphrase", "code": code, "template_sn": sn, "uses": uses, "per_user": 1})
}

#[tokio::test(flavor = "multi_thread")]
async fn two_thousand_concurrent_redemptions_take_exactly_the_uses_once_per_user() {
    let env = Env::new().await.unwrap();
    let server = Arc::new(Server::start(&env).await.unwrap());
    let sn = server.active_template(10_000, 1).await.unwrap();
    let made = batch(&server, passphrase(&sn, "DOUBLE11", 500)).await;
    assert_eq!(
        (&made["kind"], &made["code"]),
        (&json!("passphrase"), &json!("DOUBLE11"))
    );
    // 1,500 users; the first 500 ask twice: 2,000 requests at once.
    let users: Vec<String> = (0..2_000).map(|i| format!("p{}", i % 1_500)).collect();
    let mut tasks = tokio::task::JoinSet::new();
    for user in users {
        let server = server.clone();
        tasks.spawn(async move { (redeem(&server, "double11", &user).await, user) });
    }
    let mut granted = vec![];
    while let Some(r) = tasks.join_next().await {
        let ((status, body), user) = r.unwrap();
        match status {
            201 => granted.push(user),
            409 | 410 => {}
            _ => panic!("{user}: {status} {body}"),
        }
    }
    assert_eq!(granted.len(), 500, "exactly the passphrase's uses");
    let distinct: HashSet<&String> = granted.iter().collect();
    assert_eq!(distinct.len(), 500, "no user twice");
    let client = env.db.client().await.unwrap();
    let row = client
        .query_one(
            "SELECT count(*), count(DISTINCT user_id) FROM coupons WHERE template_sn = $1",
            &[&sn],
        )
        .await
        .unwrap();
    assert_eq!((row.get::<_, i64>(0), row.get::<_, i64>(1)), (500, 500));
    let id = made["id"].as_str().unwrap();
    let (_, read) = server
        .admin_get(&format!("/v1/code-batches/{id}"))
        .await
        .unwrap();
    assert_eq!(read["redeemed"], 500, "{read}");
    assert_eq!(redeem(&server, "DOUBLE11", "late").await.0, 410, "used up");
    assert_verifies_once_caught_up(&env).await;
}

#[tokio::test]
async fn what_users_type_finds_the_batch_in_any_width_case_or_script() {
    let env = Env::new().await.unwrap();
    let server = Server::start(&env).await.unwrap();
    let sn = server.active_template(100, 5).await.unwrap();
    let latin = batch(&server, passphrase(&sn, "double11", 100)).await;
    let han = batch(&server, passphrase(&sn, "双十一快乐", 100)).await;
    let typed = [
        ("ＤＯＵＢＬＥ１１", &latin),
        ("Double-11", &latin),
        ("双十一快乐", &han),
        (" 双十一快乐 ", &han),
    ];
    for (i, (text, batch)) in typed.iter().enumerate() {
        let (status, body) = redeem(&server, text, &format!("t{i}")).await;
        assert_eq!(status, 201, "{text}: {body}");
        assert_eq!(body["batch_id"], batch["id"], "{text}");
        assert_eq!(body["coupons"][0]["template_sn"], json!(sn));
    }
    // The same user again: 409, as for a shared generated code.
    assert_eq!(redeem(&server, "DOUBLE11", "t0").await.0, 409);
    // Unknown passphrases and forged codes: the same 404.
    let (status, body) = redeem(&server, "double12", "t9").await;
    assert_eq!((status, &body["error"]["code"]), (404, &json!("not_found")));
    let id = latin["id"].as_str().unwrap();
    assert_eq!(codes(&server, id).await, ["double11"]);
    assert_verifies_once_caught_up(&env).await;
}

#[tokio::test]
async fn one_active_batch_holds_a_passphrase_until_stopped_or_expired() {
    let env = Env::new().await.unwrap();
    let server = Server::start(&env).await.unwrap();
    let sn = server.active_template(100, 5).await.unwrap();
    let first = batch(&server, passphrase(&sn, "Spring", 10)).await;
    let (status, body) = server
        .admin_post("/v1/code-batches", &passphrase(&sn, "ＳＰＲＩＮＧ", 10))
        .await
        .unwrap();
    assert_eq!(
        (status, &body["error"]["code"]),
        (409, &json!("code_taken")),
        "{body}"
    );
    let id = first["id"].as_str().unwrap();
    let (status, _) = server
        .admin_post(&format!("/v1/code-batches/{id}/stop"), &json!({}))
        .await
        .unwrap();
    assert_eq!(status, 200);
    // Stopped, and nothing else holds it: 422, as a stopped batch's code.
    assert_eq!(redeem(&server, "spring", "s1").await.0, 422);
    let second = batch(&server, passphrase(&sn, "spring", 10)).await;
    let (status, body) = redeem(&server, "SPRING", "s1").await;
    assert_eq!((status, &body["batch_id"]), (201, &second["id"]), "{body}");
    // An expired holder gives the passphrase up to a new batch.
    let soon = chrono::Utc::now() + chrono::Duration::seconds(2);
    let mut expiring = passphrase(&sn, "autumn", 10);
    expiring["expires_at"] = json!(soon);
    let old = batch(&server, expiring).await;
    tokio::time::sleep(std::time::Duration::from_millis(2_500)).await;
    assert_eq!(redeem(&server, "autumn", "a1").await.0, 422);
    let new = batch(&server, passphrase(&sn, "AUTUMN", 10)).await;
    let old_id = old["id"].as_str().unwrap();
    let (_, old) = server
        .admin_get(&format!("/v1/code-batches/{old_id}"))
        .await
        .unwrap();
    assert_eq!(old["status"], "stopped", "{old}");
    assert_eq!(
        redeem(&server, "autumn", "a1").await.1["batch_id"],
        new["id"]
    );
    assert_verifies_once_caught_up(&env).await;
}

#[tokio::test]
async fn bad_passphrase_batches_are_refused_naming_the_field() {
    let env = Env::new().await.unwrap();
    let server = Server::start(&env).await.unwrap();
    let sn = server.active_template(100, 5).await.unwrap();
    let with = |edit: &dyn Fn(&mut Value)| {
        let mut body = passphrase(&sn, "summer", 10);
        edit(&mut body);
        body
    };
    let cases: Vec<(Value, &str)> = vec![
        (with(&|b| b["kind"] = json!("secret")), "kind"),
        (with(&|b| b["code"] = json!("x")), "code"),
        (with(&|b| b["code"] = json!("x".repeat(33))), "code"),
        (with(&|b| b["code"] = json!("50%OFF")), "code"),
        // Ten characters of the generated alphabet: a generated code's form.
        (with(&|b| b["code"] = json!("HAPPY22222")), "code"),
        (with(&|b| b["uses"] = json!(0)), "uses"),
        (with(&|b| b["per_user"] = json!(2)), "per_user"),
        (with(&|b| b["count"] = json!(5)), "count"),
        (with(&|b| b["uses_per_code"] = json!(5)), "uses_per_code"),
        (
            with(&|b| {
                b.as_object_mut()
                    .unwrap()
                    .remove("code")
                    .map(drop)
                    .unwrap_or(())
            }),
            "code",
        ),
        (
            with(&|b| {
                b.as_object_mut()
                    .unwrap()
                    .remove("uses")
                    .map(drop)
                    .unwrap_or(())
            }),
            "uses",
        ),
        (
            json!({"template_sn": sn, "count": 5, "code": "summer"}),
            "code",
        ),
        (json!({"template_sn": sn}), "count"),
    ];
    for (body, field) in cases {
        let (status, answer) = server.admin_post("/v1/code-batches", &body).await.unwrap();
        assert_eq!(status, 400, "{body}: {answer}");
        let message = answer["error"]["message"].as_str().unwrap();
        assert!(message.starts_with(field), "{body}: {message}");
    }
    let client = env.db.client().await.unwrap();
    let batches: i64 = client
        .query_one("SELECT count(*) FROM code_batches", &[])
        .await
        .unwrap()
        .get(0);
    assert_eq!(batches, 0, "nothing was made");
}
