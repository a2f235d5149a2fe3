//! A channel's lifecycle (docs/design.md §15): its secret rotated with an
//! overlap, the channel disabled and enabled (in every `serve` process
//! within the secret cache's bound), removed from a template, read without
//! its secret, and every one of these events replayed with no difference.

use std::time::{Duration, Instant};

use futures_util::future::join_all;
use reqwest::Method;
use serde_json::{Value, json};
use tests::codes::{batch, codes_of};
use tests::packages;
use tests::workers::{assert_verifies_once_caught_up, replay_both_ways};
use tests::{Channel, Env, Server};

/// How late another `serve` process may still serve a disabled channel:
/// the secret cache's TTL (5 s, `api/auth/secret_cache.rs`), with room for
/// a slow machine.
const OTHER_PROCESS_BOUND: Duration = Duration::from_secs(8);

/// `POST /v1/channels/{id}/secret` with `body`: (status, answer).
async fn rotate(server: &Server, channel: &Channel, body: Value) -> (u16, Value) {
    let path = format!("/v1/channels/{}/secret", channel.id);
    server.admin_post(&path, &body).await.unwrap()
}

/// The channel with its secret rotated, the replaced one overlapping `secs`.
async fn rotated(server: &Server, channel: &Channel, secs: i64) -> (Channel, Value) {
    let (status, answer) = rotate(server, channel, json!({"overlap_secs": secs})).await;
    assert_eq!(status, 200, "{answer}");
    let secret = answer["secret"].as_str().unwrap().to_owned();
    assert_eq!(secret.len(), 64, "{answer}");
    assert_ne!(secret, channel.secret);
    let new = Channel {
        id: channel.id.clone(),
        secret,
    };
    (new, answer)
}

/// `POST /v1/channels/{id}/{action}` (disable, enable), which must succeed.
async fn set(server: &Server, channel: &Channel, action: &str) -> Value {
    let path = format!("/v1/channels/{}/{action}", channel.id);
    let (status, view) = server.admin_post(&path, &json!({})).await.unwrap();
    assert_eq!(status, 200, "{view}");
    view
}

/// A signed `POST path` with `body` by `channel`: (status, answer).
async fn signed_post(server: &Server, channel: &Channel, path: &str, body: Value) -> (u16, Value) {
    let body = body.to_string();
    let signed = channel.sign("POST", path, &body, &uuid::Uuid::new_v4().to_string());
    let mut req = server.http.post(server.url(path)).body(body);
    req = req.header("Content-Type", "application/json");
    for (name, value) in signed.headers {
        req = req.header(name, value);
    }
    let r = req.send().await.unwrap();
    (r.status().as_u16(), r.json().await.unwrap_or(Value::Null))
}

/// A signed `GET path` by `channel`: (status, answer).
async fn signed_get(server: &Server, channel: &Channel, path: &str) -> (u16, Value) {
    let signed = channel.sign("GET", path, "", &uuid::Uuid::new_v4().to_string());
    let mut req = server.http.get(server.url(path));
    for (name, value) in signed.headers {
        req = req.header(name, value);
    }
    let r = req.send().await.unwrap();
    (r.status().as_u16(), r.json().await.unwrap_or(Value::Null))
}

fn code(answer: &Value) -> &str {
    answer["error"]["code"].as_str().unwrap_or("")
}

#[tokio::test(flavor = "multi_thread")]
async fn a_rotated_secret_overlaps_for_its_window_and_then_is_refused() {
    let env = Env::new().await.unwrap();
    let server = Server::start(&env).await.unwrap();
    let sn = server.active_template(100, 100).await.unwrap();
    let old = server.channel_for(&sn).await.unwrap();
    let (new, answer) = rotated(&server, &old, 2).await;
    assert_eq!(answer["secret_shown"], true);
    let until: chrono::DateTime<chrono::Utc> =
        serde_json::from_value(answer["previous_secret_valid_until"].clone()).unwrap();

    assert_eq!(server.claim(&new, &sn, "u-new-1").await.unwrap().0, 201);
    let (status, body) = server.claim(&old, &sn, "u-old-1").await.unwrap();
    assert_eq!(status, 201, "the old secret inside its overlap: {body}");
    let (_, view) = server
        .admin_get(&format!("/v1/channels/{}", old.id))
        .await
        .unwrap();
    assert_eq!(
        view["previous_secret_valid_until"],
        answer["previous_secret_valid_until"]
    );
    assert_eq!(view["secret_created_at"], answer["secret_created_at"]);

    // Real waiting: past the end of the overlap.
    let left = (until - chrono::Utc::now()).to_std().unwrap_or_default();
    tokio::time::sleep(left + Duration::from_millis(300)).await;
    let (status, body) = server.claim(&old, &sn, "u-old-2").await.unwrap();
    assert_eq!(status, 401, "the old secret after its overlap: {body}");
    assert_eq!(server.claim(&new, &sn, "u-new-2").await.unwrap().0, 201);
    let (_, view) = server
        .admin_get(&format!("/v1/channels/{}", old.id))
        .await
        .unwrap();
    assert_eq!(view["previous_secret_valid_until"], Value::Null, "{view}");

    // Two rotations: only the latest replaced secret overlaps.
    let (second, _) = rotated(&server, &new, 600).await;
    let (third, _) = rotated(&server, &second, 600).await;
    assert_eq!(server.claim(&third, &sn, "u-3").await.unwrap().0, 201);
    assert_eq!(server.claim(&second, &sn, "u-2").await.unwrap().0, 201);
    assert_eq!(server.claim(&new, &sn, "u-1").await.unwrap().0, 401);
}

#[tokio::test(flavor = "multi_thread")]
async fn a_rotation_holds_at_once_in_another_serve_process() {
    let env = Env::new().await.unwrap();
    let one = Server::start(&env).await.unwrap();
    let other = Server::start(&env).await.unwrap();
    let sn = one.active_template(100, 100).await.unwrap();
    let old = one.channel_for(&sn).await.unwrap();
    // The other process caches the old secret, then the first rotates it
    // with no overlap.
    assert_eq!(other.claim(&old, &sn, "u1").await.unwrap().0, 201);
    let (new, _) = rotated(&one, &old, 0).await;
    let (status, body) = other.claim(&new, &sn, "u2").await.unwrap();
    assert_eq!(status, 201, "the new secret at once, elsewhere too: {body}");
    assert_eq!(one.claim(&old, &sn, "u3").await.unwrap().0, 401);
    assert_eq!(other.claim(&old, &sn, "u4").await.unwrap().0, 401);
}

/// A code batch of `sn` and its codes.
async fn codes(server: &Server, sn: &str, count: i64) -> Vec<String> {
    codes_of(
        server,
        &batch(server, json!({"template_sn": sn, "count": count})).await,
    )
    .await
}

#[tokio::test(flavor = "multi_thread")]
async fn a_disabled_channel_is_refused_on_every_signed_route_until_enabled() {
    // Claims, redemptions, package claims and package-job reads.
    let env = Env::new().await.unwrap();
    let server = Server::start(&env).await.unwrap();
    let sn = server.active_template(1_000, 200).await.unwrap();
    let channel = server.channel_for(&sn).await.unwrap();
    let package = packages::package_for(&server, &[&channel], &[(&sn, 1)], 10, 5).await;
    let codes = codes(&server, &sn, 4).await;
    let claim_package = |user| packages::claim(&server, &channel, &package, user);
    // A package of more than 100 coupons: its claim is a job the channel reads.
    let large = packages::package_for(&server, &[&channel], &[(&sn, 101)], 10, 1).await;
    let (status, queued) = packages::claim(&server, &channel, &large, "u-large").await;
    assert_eq!(status, 202, "{queued}");
    let job = format!("/v1/package-jobs/{}", queued["job_id"].as_str().unwrap());

    let view = set(&server, &channel, "disable").await;
    assert_eq!(view["status"], "disabled");
    let (status, body) = server.claim(&channel, &sn, "u1").await.unwrap();
    assert_eq!((status, code(&body)), (403, "channel_disabled"), "{body}");
    let redeem = json!({"code": codes[0], "user_id": "u1"});
    let (status, body) = signed_post(&server, &channel, "/v1/redemptions", redeem).await;
    assert_eq!((status, code(&body)), (403, "channel_disabled"), "{body}");
    let (status, body) = claim_package("u1").await;
    assert_eq!((status, code(&body)), (403, "channel_disabled"), "{body}");
    let (status, body) = signed_get(&server, &channel, &job).await;
    assert_eq!((status, code(&body)), (403, "channel_disabled"), "{body}");
    // Disabling twice changes nothing.
    assert_eq!(
        set(&server, &channel, "disable").await["status"],
        "disabled"
    );
    let (_, list) = server.admin_get("/v1/channels").await.unwrap();
    assert_eq!(list["channels"][0]["status"], "disabled", "{list}");

    let view = set(&server, &channel, "enable").await;
    assert_eq!(view["status"], "active");
    let (status, body) = server.claim(&channel, &sn, "u1").await.unwrap();
    assert_eq!(status, 201, "{body}");
    let redeem = json!({"code": codes[1], "user_id": "u2"});
    let (status, body) = signed_post(&server, &channel, "/v1/redemptions", redeem).await;
    assert_eq!(status, 201, "{body}");
    let (status, body) = claim_package("u3").await;
    assert_eq!(status, 201, "{body}");
    let (status, body) = signed_get(&server, &channel, &job).await;
    assert_eq!(status, 200, "{body}");
    let client = env.db.client().await.unwrap();
    let events: i64 = client
        .query_one(
            "SELECT count(*) FROM events WHERE event_type IN ('ChannelDisabled', 'ChannelEnabled')",
            &[],
        )
        .await
        .unwrap()
        .get(0);
    assert_eq!(events, 2, "a disable that changes nothing writes nothing");
}

/// Claims through `server` (each a new user) until one answers `want`;
/// how long that took.
async fn until_answered(server: &Server, channel: &Channel, sn: &str, want: u16) -> Duration {
    let start = Instant::now();
    for i in 0.. {
        let user = format!("poll-{want}-{i}");
        let (status, body) = server.claim(channel, sn, &user).await.unwrap();
        if status == want {
            return start.elapsed();
        }
        assert!(
            start.elapsed() < OTHER_PROCESS_BOUND,
            "still {status} after {:?}: {body}",
            start.elapsed()
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    unreachable!()
}

#[tokio::test(flavor = "multi_thread")]
async fn another_serve_process_refuses_a_disabled_channel_within_the_cache_bound() {
    let env = Env::new().await.unwrap();
    let one = Server::start(&env).await.unwrap();
    let other = Server::start(&env).await.unwrap();
    let sn = one.active_template(1_000, 1).await.unwrap();
    let channel = one.channel_for(&sn).await.unwrap();
    // The other process has the channel cached as active.
    assert_eq!(other.claim(&channel, &sn, "warm").await.unwrap().0, 201);

    set(&one, &channel, "disable").await;
    let (status, body) = one.claim(&channel, &sn, "here").await.unwrap();
    assert_eq!(
        (status, code(&body)),
        (403, "channel_disabled"),
        "at once here"
    );
    let took = until_answered(&other, &channel, &sn, 403).await;
    assert!(took < OTHER_PROCESS_BOUND, "{took:?}");
    let (_, body) = other.claim(&channel, &sn, "after").await.unwrap();
    assert_eq!(code(&body), "channel_disabled", "{body}");

    set(&one, &channel, "enable").await;
    assert_eq!(one.claim(&channel, &sn, "back-here").await.unwrap().0, 201);
    let took = until_answered(&other, &channel, &sn, 201).await;
    assert!(took < OTHER_PROCESS_BOUND, "{took:?}");
}

/// A signed claim with an `Idempotency-Key`: written alone, not batched.
async fn claim_alone(server: &Server, channel: &Channel, sn: &str, user: &str) -> (u16, Value) {
    let body = json!({"template_sn": sn, "user_id": user}).to_string();
    let signed = channel.sign(
        "POST",
        "/v1/claims",
        &body,
        &uuid::Uuid::new_v4().to_string(),
    );
    let mut req = server.http.post(server.url("/v1/claims")).body(body);
    req = req.header("Content-Type", "application/json");
    req = req.header("Idempotency-Key", format!("alone-{user}"));
    for (name, value) in signed.headers {
        req = req.header(name, value);
    }
    let r = req.send().await.unwrap();
    (r.status().as_u16(), r.json().await.unwrap_or(Value::Null))
}

type Answers = Vec<anyhow::Result<(u16, Value)>>;

/// Every answer of `refused` is the 403 of a channel not on the list, and
/// every one of `served` a coupon.
fn assert_refused_and_served(refused: Answers, served: Answers) {
    for answer in refused {
        let (status, body) = answer.unwrap();
        assert_eq!((status, code(&body)), (403, "forbidden"), "{body}");
    }
    for answer in served {
        let (status, body) = answer.unwrap();
        assert_eq!(status, 201, "{body}");
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn a_channel_removed_from_a_template_can_no_longer_issue_it() {
    let env = Env::new().await.unwrap();
    let one = Server::start(&env).await.unwrap();
    let other = Server::start(&env).await.unwrap();
    // Exactly the stock the claims that must succeed take: a refused claim
    // that kept a unit or a user's limit would leave one of them without.
    let sn = one.active_template(41, 1).await.unwrap();
    let removed = one.channel_for(&sn).await.unwrap();
    let kept = one.channel_for(&sn).await.unwrap();
    // The other process's gate has the template (with both channels) cached.
    assert_eq!(other.claim(&removed, &sn, "before").await.unwrap().0, 201);

    let path = format!("/v1/templates/{sn}/channels/{}", removed.id);
    let r = one.admin(Method::DELETE, &path).send().await.unwrap();
    assert_eq!(r.status(), 200);
    let template: Value = r.json().await.unwrap();
    assert_eq!(template["channels"], json!([kept.id]), "{template}");

    let (status, body) = one.claim(&removed, &sn, "single").await.unwrap();
    assert_eq!((status, code(&body)), (403, "forbidden"), "{body}");
    let (status, body) = claim_alone(&one, &removed, &sn, "alone").await;
    assert_eq!((status, code(&body)), (403, "forbidden"), "{body}");
    // Many at once here, the removed channel's claims beside the kept
    // one's for the same users: the removed channel holds no stock in
    // this process's gate, so every claim of the kept one is served.
    let users: Vec<String> = (0..40).map(|i| format!("user-{i}")).collect();
    let (here, there) = users.split_at(20);
    let refused = join_all(here.iter().map(|u| one.claim(&removed, &sn, u)));
    let served = join_all(here.iter().map(|u| one.claim(&kept, &sn, u)));
    let (refused, served) = tokio::join!(refused, served);
    assert_refused_and_served(refused, served);
    // On the other process, whose gate may still admit the removed channel
    // for its cache's 2 s: its batches refuse it, and give back what it held.
    let refused = join_all(there.iter().map(|u| other.claim(&removed, &sn, u))).await;
    let served = join_all(there.iter().map(|u| other.claim(&kept, &sn, u))).await;
    assert_refused_and_served(refused, served);
    let client = env.db.client().await.unwrap();
    let by_removed: i64 = client
        .query_one(
            "SELECT count(*) FROM coupons WHERE channel_id = $1::text::uuid",
            &[&removed.id],
        )
        .await
        .unwrap()
        .get(0);
    assert_eq!(by_removed, 1, "only the claim before the removal");

    let r = one.admin(Method::DELETE, &path).send().await.unwrap();
    assert_eq!(r.status(), 404, "no longer on the list");
    let unknown = format!("/v1/templates/NO-SUCH/channels/{}", kept.id);
    let r = one.admin(Method::DELETE, &unknown).send().await.unwrap();
    assert_eq!(r.status(), 404);
}

#[tokio::test(flavor = "multi_thread")]
async fn a_channel_reads_without_any_secret_and_bad_input_is_named() {
    let env = Env::new().await.unwrap();
    let server = Server::start(&env).await.unwrap();
    let sn = server.active_template(10, 1).await.unwrap();
    let channel = server.channel_for(&sn).await.unwrap();
    let (new, _) = rotated(&server, &channel, 60).await;
    for path in [
        format!("/v1/channels/{}", channel.id),
        "/v1/channels".to_owned(),
    ] {
        let (status, body) = server.admin_get(&path).await.unwrap();
        let text = body.to_string();
        assert_eq!(status, 200, "{text}");
        assert!(
            !text.contains(&channel.secret) && !text.contains(&new.secret),
            "{text}"
        );
        assert!(!text.contains("\"secret\""), "{text}");
    }
    let (_, view) = server
        .admin_get(&format!("/v1/channels/{}", channel.id))
        .await
        .unwrap();
    assert_eq!(view["status"], "active");
    assert_eq!(view["name"], "test channel");
    assert!(view["previous_secret_valid_until"].is_string(), "{view}");
    let client = env.db.client().await.unwrap();
    for row in client
        .query("SELECT t::text FROM events t", &[])
        .await
        .unwrap()
    {
        let row: String = row.get(0);
        assert!(!row.contains(&new.secret), "{row}");
    }

    let unknown = uuid::Uuid::new_v4();
    let (status, _) = server
        .admin_get(&format!("/v1/channels/{unknown}"))
        .await
        .unwrap();
    assert_eq!(status, 404);
    for action in ["disable", "enable", "secret"] {
        let path = format!("/v1/channels/{unknown}/{action}");
        let (status, body) = server.admin_post(&path, &json!({})).await.unwrap();
        assert_eq!(status, 404, "{action}: {body}");
    }
    for bad in [json!(-1), json!(30 * 86_400 + 1), json!("soon"), json!(1.5)] {
        let (status, body) = rotate(&server, &channel, json!({"overlap_secs": bad})).await;
        assert_eq!(status, 400, "{bad}: {body}");
        let message = body["error"]["message"].as_str().unwrap();
        assert!(message.contains("overlap_secs"), "{bad}: {message}");
    }
    let (status, body) = rotate(&server, &channel, json!({})).await;
    assert_eq!(status, 200, "the overlap defaults: {body}");
}

#[tokio::test(flavor = "multi_thread")]
async fn every_lifecycle_event_replays_with_no_difference() {
    let env = Env::new().await.unwrap();
    let server = Server::start(&env).await.unwrap();
    let sn = server.active_template(100, 10).await.unwrap();
    let first = server.channel_for(&sn).await.unwrap();
    let second = server.channel_for(&sn).await.unwrap();
    assert_eq!(server.claim(&first, &sn, "u1").await.unwrap().0, 201);
    set(&server, &first, "disable").await;
    set(&server, &first, "enable").await;
    set(&server, &second, "disable").await;
    let (first, _) = rotated(&server, &first, 60).await;
    rotated(&server, &first, 0).await;
    let path = format!("/v1/templates/{sn}/channels/{}", second.id);
    let r = server.admin(Method::DELETE, &path).send().await.unwrap();
    assert_eq!(r.status(), 200);
    assert_verifies_once_caught_up(&env).await;

    // A hand edit of what the new events wrote is named.
    let client = env.db.client().await.unwrap();
    client
        .batch_execute(&format!(
            "UPDATE channels SET status = 'active' WHERE id = '{}';
             INSERT INTO template_channels (template_sn, channel_id) VALUES ('{sn}', '{}');",
            second.id, second.id
        ))
        .await
        .unwrap();
    let (code, stdout) = replay_both_ways(&env, &["replay", "--verify"]).await;
    assert_eq!(code, Some(1), "{stdout}");
    for expected in [
        format!(
            "channels {} status: live active vs replayed disabled",
            second.id
        ),
        format!(
            "template_channels (\"{sn}\", {}) (row): live present vs replayed (none)",
            second.id
        ),
    ] {
        assert!(
            stdout.contains(&expected),
            "missing {expected:?} in\n{stdout}"
        );
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn a_new_sealing_key_reseals_the_replaced_secret_too() {
    const OTHER_KEY: &str =
        "other:00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff";
    let env = Env::new().await.unwrap();
    let server = Server::start(&env).await.unwrap();
    let sn = server.active_template(100, 100).await.unwrap();
    let old = server.channel_for(&sn).await.unwrap();
    let (new, _) = rotated(&server, &old, 600).await;
    server.terminate().await.unwrap();

    let both = [
        ("LEDGER_SECRET_KEY", OTHER_KEY),
        ("LEDGER_SECRET_KEYS_OLD", tests::SECRET_KEY),
    ];
    Server::start_with(&env, &both)
        .await
        .unwrap()
        .terminate()
        .await
        .unwrap();
    let client = env.db.client().await.unwrap();
    let row = client
        .query_one("SELECT key_id, previous_key_id FROM channel_secrets", &[])
        .await
        .unwrap();
    let keys: (String, String) = (row.get(0), row.get(1));
    assert_eq!(keys, ("other".to_owned(), "other".to_owned()));
    // So the old key may go: both secrets still open, inside the overlap.
    let only_new = [("LEDGER_SECRET_KEY", OTHER_KEY)];
    let server = Server::start_with(&env, &only_new).await.unwrap();
    assert_eq!(server.claim(&new, &sn, "u-new").await.unwrap().0, 201);
    assert_eq!(server.claim(&old, &sn, "u-old").await.unwrap().0, 201);
}
