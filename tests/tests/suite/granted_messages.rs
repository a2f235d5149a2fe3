//! `CouponsGranted` (docs/design.md §10, issue 49): an issuance job uploaded
//! with `notify=true` sends each of its users ONE message on
//! `coupon.notifications` once it has ended, made by the notify projection
//! from the job's events and sent by the workers' notification sender:
//! 100,000 users get one each through a SIGKILL of the sender (none twice:
//! a batch the broker committed is marked sent before anything else is
//! sent, whenever the sender died), a user
//! listed twice gets both coupons in one, a job without notify sends none,
//! a job whose coupons were voided first sends none, and `replay --verify`
//! agrees with the rows. `ledger issue --notify` asks for it as the API does.

use std::collections::HashMap;
use std::time::Duration;

use ledger::domain::granted::{MESSAGE_TYPE, message_id};
use reqwest::Method;
use serde_json::{Value, json};
use tests::ops_metrics::value;
use tests::reminder_days::{CANCELLED, PENDING, SENT};
use tests::reminders::{Granted, TouchQueue};
use tests::uploads::wait_done;
use tests::workers::{Workers, assert_replay_verifies, projections_caught_up};
use tests::{Env, Server, template_body};
use uuid::Uuid;

/// How long the workers' sender (one run a minute) may take to send what is due.
const SENDER_PATIENCE: Duration = Duration::from_secs(180);

/// Uploads `text` for `sn` under `key` with `?notify=<notify>`; (status, answer).
async fn upload(server: &Server, sn: &str, key: &str, notify: &str, text: String) -> (u16, Value) {
    let path = format!("/v1/issuance-jobs?template={sn}&key={key}&notify={notify}");
    let r = server
        .admin(Method::POST, &path)
        .timeout(Duration::from_secs(600))
        .header("Content-Type", "text/plain")
        .body(text)
        .send()
        .await
        .unwrap();
    (r.status().as_u16(), r.json().await.unwrap_or(Value::Null))
}

/// Uploads and waits for the job to end `done`; its id.
async fn issue(server: &Server, sn: &str, key: &str, notify: &str, text: String) -> Uuid {
    let (status, answer) = upload(server, sn, key, notify, text).await;
    assert_eq!(status, 202, "{answer}");
    let id = answer["job_id"].as_str().unwrap().to_owned();
    wait_done(server, &id, Duration::from_secs(600)).await;
    id.parse().unwrap()
}

/// An active template of `per_user_limit`, with expiry reminders or none.
async fn template(server: &Server, per_user_limit: i32, remind: Value) -> String {
    let mut body = template_body(1_000_000, per_user_limit);
    body["remind_days_before"] = remind;
    server.activate_template(&body).await.unwrap()
}

/// The granted rows: (job, user) → (status, attempts).
async fn granted_rows(env: &Env) -> HashMap<(Uuid, String), (i16, i32)> {
    let client = env.db.client().await.unwrap();
    let rows = client
        .query(
            "SELECT job_id, user_id, status, attempts FROM notify_msg WHERE notify_type = 2",
            &[],
        )
        .await
        .unwrap();
    rows.iter()
        .map(|r| ((r.get(0), r.get(1)), (r.get(2), r.get(3))))
        .collect()
}

/// Expiry reminder rows still pending.
async fn pending_reminders(env: &Env) -> i64 {
    let client = env.db.client().await.unwrap();
    let sql = "SELECT count(*) FROM notify_msg WHERE notify_type = 1 AND status = $1";
    client.query_one(sql, &[&PENDING]).await.unwrap().get(0)
}

/// Waits until `/metrics` counts `n` granted rows in `status`.
async fn wait_gauge(server: &Server, status: &str, n: f64) {
    let labels = [("type", "coupons_granted"), ("status", status)];
    let mut seen = None;
    for _ in 0..100 {
        let text = server.metrics().await.unwrap();
        seen = value(&text, "couponledger_notifications", &labels);
        if seen == Some(n) {
            return;
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    panic!("couponledger_notifications {labels:?}: {seen:?}, not {n}");
}

/// The coupons `job` gave `user`, in line order.
async fn coupons_of(env: &Env, job: Uuid, user: &str) -> Vec<Uuid> {
    let client = env.db.client().await.unwrap();
    let sql = "SELECT id FROM coupons WHERE job_id = $1 AND user_id = $2 ORDER BY job_line";
    let rows = client.query(sql, &[&job, &user]).await.unwrap();
    rows.iter().map(|r| r.get(0)).collect()
}

/// Granted rows in `status`.
async fn count_in(env: &Env, status: i16) -> i64 {
    let client = env.db.client().await.unwrap();
    let sql = "SELECT count(*) FROM notify_msg WHERE notify_type = 2 AND status = $1";
    client.query_one(sql, &[&status]).await.unwrap().get(0)
}

/// Waits until `n` granted rows are in `status`.
async fn wait_rows(env: &Env, status: i16, n: i64, patience: Duration) {
    let until = std::time::Instant::now() + patience;
    loop {
        let got = count_in(env, status).await;
        if got >= n {
            return;
        }
        assert!(
            std::time::Instant::now() < until,
            "{got} of {n} granted rows in status {status} after {patience:?}"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// The messages by (job, user), each with the id derived from its job and
/// user and the message's own type; a repeat (the same id again) must be
/// the same message. The repeats are counted.
fn by_job_and_user(got: &[Granted]) -> (HashMap<(Uuid, String), &Granted>, usize) {
    let mut out: HashMap<(Uuid, String), &Granted> = HashMap::new();
    let mut repeats = 0;
    for g in got {
        assert_eq!(g.message_type, MESSAGE_TYPE);
        let key = (g.body.job_id, g.body.user_id.clone());
        assert_eq!(g.message_id, message_id(key.0, &key.1).to_string());
        if let Some(first) = out.insert(key.clone(), g) {
            assert_eq!(first.body, g.body, "{key:?} repeated otherwise");
            repeats += 1;
        }
    }
    (out, repeats)
}

#[tokio::test(flavor = "multi_thread")]
async fn a_hundred_thousand_users_get_one_message_each_through_a_sender_kill() {
    const USERS: usize = 100_000;
    let env = Env::new().await.unwrap();
    let server = Server::start(&env).await.unwrap();
    let sn = template(&server, 1, Value::Null).await;
    // A quorum queue, as docs/design.md §5 advises outside subscribers.
    let mut touch = TouchQueue::quorum(&env, "test.touch.granted")
        .await
        .unwrap();
    let issuing = Workers::start(&env, "relay,issuance").unwrap();
    let text: String = (0..USERS).map(|i| format!("user-{i}\n")).collect();
    let job = issue(&server, &sn, "granted-100k", "true", text).await;

    // The projection makes the rows (the relay still carrying the last
    // chunks' events to it) and the sender sends them; that process is
    // killed once a tenth of them has gone, and started again.
    let notify = Workers::start(&env, "notify").unwrap();
    wait_rows(&env, SENT, (USERS / 10) as i64, SENDER_PATIENCE).await;
    let pid = notify.pid().unwrap().to_string();
    let killed = tokio::process::Command::new("kill")
        .args(["-KILL", &pid])
        .status()
        .await
        .unwrap();
    assert!(killed.success());
    drop(notify);
    let sent_before = count_in(&env, SENT).await;
    assert!(
        sent_before < USERS as i64,
        "the kill came mid-sending ({sent_before} sent)"
    );
    let notify = Workers::start(&env, "notify").unwrap();
    wait_rows(&env, SENT, USERS as i64, SENDER_PATIENCE).await;
    let got = touch.drain_granted(Duration::from_secs(5)).await.unwrap();
    notify.terminate().await.unwrap();
    issuing.terminate().await.unwrap();

    let (messages, repeats) = by_job_and_user(&got);
    assert_eq!(messages.len(), USERS, "one message per user");
    // Not even the batch the sender was committing when killed: its mark
    // came with it, and the restarted sender settled it first.
    assert_eq!((repeats, got.len()), (0, USERS), "none twice");
    for ((j, _), g) in &messages {
        assert_eq!(*j, job);
        assert_eq!((g.body.count, g.body.coupon_ids.len()), (1, 1));
        assert_eq!(g.body.face_value_total.to_string(), "20.00");
        assert_eq!(g.body.template_sn, sn);
    }
    let rows = granted_rows(&env).await;
    assert_eq!(rows.len(), USERS);
    assert!(rows.values().all(|v| *v == (SENT, 1)), "sent once each");
    eprintln!(
        "{USERS} CouponsGranted: {sent_before} rows sent when the sender was killed, \
         {} messages in all, {repeats} repeated",
        got.len()
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_user_listed_twice_gets_one_message_with_both_coupons_and_replay_agrees() {
    let env = Env::new().await.unwrap();
    let refresh = [("LEDGER_METRICS_REFRESH_SECS", "1")];
    let server = Server::start_with(&env, &refresh).await.unwrap();
    let sn = template(&server, 2, json!(1)).await;
    let voided = template(&server, 1, Value::Null).await;
    // A quorum queue: the sender's transactions reach it as a classic one.
    let mut touch = TouchQueue::quorum(&env, "test.touch.granted")
        .await
        .unwrap();
    let issuing = Workers::start(&env, "relay,issuance,balances,template_stats").unwrap();
    // u1 twice (the limit allows two), u2 once; then u2 again in another
    // job of the same template and day; u3 in a job without notify; u4 in
    // a job of a template voided before anything is sent.
    let a = issue(&server, &sn, "job-a", "true", "u1\nu2\nu1\n".into()).await;
    let c = issue(&server, &sn, "job-c", "true", "u2\n".into()).await;
    let b = issue(&server, &sn, "job-b", "false", "u3\n".into()).await;
    let d = issue(&server, &voided, "job-d", "true", "u4\n".into()).await;
    let path = format!("/v1/templates/{voided}/void");
    let (status, answer) = server.admin_post(&path, &json!({})).await.unwrap();
    assert_eq!(status, 200, "{answer}");

    let notify = Workers::start(&env, "notify").unwrap();
    wait_rows(&env, SENT, 3, SENDER_PATIENCE).await;
    wait_rows(&env, CANCELLED, 1, SENDER_PATIENCE).await;
    projections_caught_up(&env, Duration::from_secs(120))
        .await
        .unwrap();
    let got = touch.drain_granted(Duration::from_secs(3)).await.unwrap();
    let (messages, repeats) = by_job_and_user(&got);
    assert_eq!(repeats, 0, "nothing killed, nothing repeated");
    let mut keys: Vec<_> = messages.keys().cloned().collect();
    keys.sort();
    let mut expected = vec![(a, "u1".to_owned()), (a, "u2".into()), (c, "u2".into())];
    expected.sort();
    assert_eq!(
        keys, expected,
        "none for job {b} (no notify) nor {d} (voided)"
    );
    let both = messages[&(a, "u1".to_owned())];
    assert_eq!(both.body.count, 2);
    let u1 = coupons_of(&env, a, "u1").await;
    assert_eq!(both.body.coupon_ids, u1, "both coupons, in line order");
    assert_eq!(both.body.face_value_total.to_string(), "40.00");
    let rows = granted_rows(&env).await;
    assert_eq!(rows.len(), 4, "{rows:?}");
    assert_eq!(rows[&(d, "u4".to_owned())], (CANCELLED, 0));
    // Reminders go on beside them: one per user of the reminding template.
    assert_eq!(pending_reminders(&env).await, 3, "u1, u2, u3 reminded");
    wait_gauge(&server, "sent", 3.0).await;
    wait_gauge(&server, "cancelled", 1.0).await;

    issuing.terminate().await.unwrap();
    notify.terminate().await.unwrap();
    assert_replay_verifies(&env).await;
}

#[tokio::test(flavor = "multi_thread")]
async fn notify_is_true_or_false_shown_on_the_job_and_part_of_what_its_key_names() {
    let env = Env::new().await.unwrap();
    let server = Server::start(&env).await.unwrap();
    let sn = template(&server, 1, Value::Null).await;
    for bad in ["maybe", "1", "yes", ""] {
        let (status, answer) = upload(&server, &sn, "bad", bad, "u1\n".into()).await;
        assert_eq!(status, 400, "notify={bad}: {answer}");
        let message = answer["error"]["message"].as_str().unwrap_or_default();
        assert!(message.contains("notify"), "notify={bad}: {answer}");
    }
    let (status, job) = upload(&server, &sn, "k1", "true", "u1\n".into()).await;
    assert_eq!((status, &job["notify"]), (202, &json!(true)), "{job}");
    let path = format!("/v1/issuance-jobs?template={sn}");
    let (_, list) = server.admin_get(&path).await.unwrap();
    assert_eq!(list["jobs"][0]["notify"], json!(true), "{list}");
    // The same key asking otherwise is another request.
    let (status, answer) = upload(&server, &sn, "k1", "false", "u1\n".into()).await;
    assert_eq!(status, 422, "{answer}");
    assert_eq!(answer["error"]["code"], "idempotency_key_reused");
    // The same key and file asking the same: the same job.
    let (status, again) = upload(&server, &sn, "k1", "true", "u1\n".into()).await;
    assert_eq!((status, &again["job_id"]), (202, &job["job_id"]));
    // Without the parameter: false.
    let path = format!("/v1/issuance-jobs?template={sn}&key=k2");
    let r = server
        .admin(Method::POST, &path)
        .body("u2\n")
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 202);
    let plain: Value = r.json().await.unwrap();
    assert_eq!(plain["notify"], json!(false), "{plain}");
}

#[tokio::test(flavor = "multi_thread")]
async fn ledger_issue_notify_uploads_with_notify_true() {
    let env = Env::new().await.unwrap();
    let server = Server::start(&env).await.unwrap();
    let sn = template(&server, 1, Value::Null).await;
    let file = std::env::temp_dir().join(format!("granted-{}.txt", Uuid::now_v7()));
    std::fs::write(&file, "u3\n").unwrap();
    let path = file.to_str().unwrap();
    let args = [
        "issue",
        "--template",
        &sn,
        "--file",
        path,
        "--notify",
        "--no-wait",
    ];
    let out = tokio::process::Command::new(tests::bin("ledger"))
        .args(args)
        .envs(env.vars())
        .env("LEDGER_URL", &server.base)
        .output()
        .await
        .unwrap();
    std::fs::remove_file(&file).unwrap();
    assert!(out.status.success(), "{out:?}");
    let id = String::from_utf8_lossy(&out.stdout).trim().to_owned();
    let (_, job) = server
        .admin_get(&format!("/v1/issuance-jobs/{id}"))
        .await
        .unwrap();
    assert_eq!(job["notify"], json!(true), "{job}");
}
