//! Packages and channels (docs/design.md §6, §13): a package lists the channels
//! that may claim it, as a template does (an empty list: none may); a claim
//! by a channel it does not list is 403 with nothing issued; every coupon a
//! channel gives out records it (a claim, a large package's job, a code
//! the channel redeemed), so finance's liability and cost by channel count
//! them under it; `ledger replay --verify` rebuilds the list and the
//! coupons' channel.

use std::sync::Arc;

use serde_json::{Value, json};
use tests::codes::{batch_codes, redeem};
use tests::packages::{allow, claim, finished, issued, package, package_for};
use tests::scenario::checkout;
use tests::workers::{Workers, assert_verifies_once_caught_up, replay_both_ways};
use tests::{Channel, Env, Server};
use uuid::Uuid;

/// The channel every coupon of `user` records ("none" for no channel),
/// each with how many.
async fn channels_of(env: &Env, user: &str) -> Vec<(String, i64)> {
    let client = env.db.client().await.unwrap();
    let sql = "SELECT coalesce(channel_id::text, 'none'), count(*) FROM coupons
                WHERE user_id = $1 GROUP BY 1 ORDER BY 1";
    let rows = client.query(sql, &[&user]).await.unwrap();
    rows.iter().map(|r| (r.get(0), r.get(1))).collect()
}

/// The channel the `CouponIssued` events of `user`'s coupons name, as
/// [`channels_of`] counts them: the events, not only the rows.
async fn channels_in_events(env: &Env, user: &str) -> Vec<(String, i64)> {
    let client = env.db.client().await.unwrap();
    let sql = "SELECT coalesce(payload->>'channel_id', 'none'), count(*) FROM events
                WHERE event_type = 'CouponIssued' AND payload->>'user_id' = $1
                GROUP BY 1 ORDER BY 1";
    let rows = client.query(sql, &[&user]).await.unwrap();
    rows.iter().map(|r| (r.get(0), r.get(1))).collect()
}

/// `GET /v1/packages/{sn}`.
async fn read(server: &Server, sn: &str) -> Value {
    let r = server
        .admin(reqwest::Method::GET, &format!("/v1/packages/{sn}"))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200);
    r.json().await.unwrap()
}

/// The liability report by channel as of now, from the admin route: each
/// group's (issued, face value outstanding, cost).
async fn liability_by_channel(server: &Server) -> Vec<(String, (i64, String, String))> {
    let path = "/v1/reports/liability?as_of=now&by=channel";
    let r = server
        .admin(reqwest::Method::GET, path)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200);
    let body: Value = r.json().await.unwrap();
    let rows = body["rows"].as_array().unwrap().iter();
    let text = |v: &Value| v.as_str().unwrap().to_owned();
    rows.map(|r| {
        let money = (text(&r["face_value_outstanding"]), text(&r["cost"]));
        (
            text(&r["group"]),
            (r["issued"].as_i64().unwrap(), money.0, money.1),
        )
    })
    .collect()
}

fn id(channel: &Channel) -> String {
    channel.id.clone()
}

#[tokio::test(flavor = "multi_thread")]
async fn a_package_is_claimed_only_by_its_channels_and_its_coupons_record_the_channel() {
    let env = Env::new().await.unwrap();
    let server = Arc::new(Server::start(&env).await.unwrap());
    let a = server.active_template(1_000, 5).await.unwrap();
    let b = server.active_template(1_000, 5).await.unwrap();
    // Both channels may issue template `a` itself: the package's list decides.
    let ch_a = Arc::new(server.channel_for(&a).await.unwrap());
    let ch_b = Arc::new(server.channel_for(&a).await.unwrap());
    let sn = package(&server, &[(&a, 2), (&b, 1)], 100, 1).await;

    // An empty list: no channel may claim it.
    let (status, refused) = claim(&server, &ch_a, &sn, "early").await;
    assert_eq!(status, 403, "{refused}");
    assert_eq!(refused["error"]["code"], "forbidden");
    assert_eq!(read(&server, &sn).await["channels"], json!([]));

    let allowed = allow(&server, &sn, &ch_a).await;
    assert_eq!(allowed["channels"], json!([id(&ch_a)]));
    let again = allow(&server, &sn, &ch_a).await;
    assert_eq!(again["channels"], json!([id(&ch_a)]), "allowed once");
    assert_eq!(read(&server, &sn).await["channels"], json!([id(&ch_a)]));
    let unknown = json!({"channel_id": Uuid::new_v4()});
    let path = format!("/v1/packages/{sn}/channels");
    let (status, body) = server.admin_post(&path, &unknown).await.unwrap();
    assert_eq!(status, 404, "{body}");
    let (status, body) = server
        .admin_post(
            "/v1/packages/NOSUCH/channels",
            &json!({"channel_id": id(&ch_a)}),
        )
        .await
        .unwrap();
    assert_eq!(status, 404, "{body}");

    let (status, got) = claim(&server, &ch_a, &sn, "ann").await;
    assert_eq!(status, 201, "{got}");
    for coupon in got["coupons"].as_array().unwrap() {
        assert_eq!(coupon["channel_id"], id(&ch_a).as_str(), "{coupon}");
    }
    assert_eq!(channels_of(&env, "ann").await, [(id(&ch_a), 3)]);
    assert_eq!(channels_in_events(&env, "ann").await, [(id(&ch_a), 3)]);

    // Many clients at once, half of them channel B: B is refused every
    // time with nothing issued, A's claims all pass and record A.
    let before = issued(&env, &[&a, &b]).await;
    let mut tasks = tokio::task::JoinSet::new();
    for i in 0..40 {
        let (server, sn) = (server.clone(), sn.clone());
        let channel = if i % 2 == 0 {
            ch_a.clone()
        } else {
            ch_b.clone()
        };
        tasks.spawn(async move { (i % 2, claim(&server, &channel, &sn, &format!("u{i}")).await) });
    }
    while let Some(done) = tasks.join_next().await {
        let (is_b, (status, body)) = done.unwrap();
        let want = if is_b == 1 { 403 } else { 201 };
        assert_eq!(status, want, "{body}");
    }
    let after = issued(&env, &[&a, &b]).await;
    assert_eq!(
        after[0].0 - before[0].0,
        40,
        "20 claims of A, 2 coupons each"
    );
    assert_eq!(after[1].0 - before[1].0, 20);
    assert_eq!(read(&server, &sn).await["claimed"], 21);
    let client = env.db.client().await.unwrap();
    let by_channel = client
        .query(
            "SELECT coalesce(channel_id::text, 'none'), count(*) FROM coupons GROUP BY 1",
            &[],
        )
        .await
        .unwrap();
    let by_channel: Vec<(String, i64)> = by_channel.iter().map(|r| (r.get(0), r.get(1))).collect();
    assert_eq!(by_channel, [(id(&ch_a), 63)], "every coupon is A's");

    // Finance: one of ann's coupons of `a` used on an order (20.00 off).
    let ann_a: Uuid = got["coupons"][0]["id"].as_str().unwrap().parse().unwrap();
    checkout(&server, "ann", ann_a, true).await.unwrap();
    let report = liability_by_channel(&server).await;
    let outstanding = format!("{}.00", 62 * 20);
    let want = (63, outstanding, "20.00".to_owned());
    assert!(report.contains(&(id(&ch_a), want)), "{report:?}");
    assert!(!report.iter().any(|(g, _)| g == "none"), "{report:?}");
    assert!(!report.iter().any(|(g, _)| *g == id(&ch_b)), "{report:?}");

    assert_verifies_once_caught_up(&env).await;
    // The list and the coupons' channel are rebuilt from the events: a
    // hand edit of either is named.
    client
        .batch_execute(&format!(
            "DELETE FROM package_channels WHERE package_sn = '{sn}';
             UPDATE coupons SET channel_id = NULL WHERE id = '{ann_a}';"
        ))
        .await
        .unwrap();
    let (code, stdout) = replay_both_ways(&env, &["replay", "--verify"]).await;
    assert_eq!(code, Some(1), "{stdout}");
    for expected in [
        format!(
            "package_channels (\"{sn}\", {}) (row): live (none) vs replayed present",
            ch_a.id
        ),
        format!(
            "coupons {ann_a} channel_id: live null vs replayed {}",
            ch_a.id
        ),
    ] {
        assert!(
            stdout.contains(&expected),
            "missing {expected:?} in\n{stdout}"
        );
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn a_large_packages_job_records_the_channel_that_claimed_it() {
    let env = Env::new().await.unwrap();
    let server = Server::start(&env).await.unwrap();
    let workers = Workers::start(&env, "issuance").unwrap();
    let a = server.active_template(1_000, 150).await.unwrap();
    let b = server.active_template(1_000, 10).await.unwrap();
    let ch_a = server.channel_for(&a).await.unwrap();
    let ch_b = server.channel_for(&a).await.unwrap();
    let sn = package_for(&server, &[&ch_a], &[(&a, 150), (&b, 10)], 10, 1).await;

    let (status, body) = claim(&server, &ch_a, &sn, "ann").await;
    assert_eq!(status, 202, "{body}");
    let done = finished(&server, body["job_id"].as_str().unwrap()).await;
    assert_eq!(done["status"], "done", "{done}");
    assert_eq!(channels_of(&env, "ann").await, [(id(&ch_a), 160)]);
    assert_eq!(channels_in_events(&env, "ann").await, [(id(&ch_a), 160)]);

    // B is refused by the request itself: no job is recorded.
    let (status, refused) = claim(&server, &ch_b, &sn, "bob").await;
    assert_eq!(status, 403, "{refused}");
    let client = env.db.client().await.unwrap();
    let jobs: i64 = client
        .query_one("SELECT count(*) FROM package_jobs", &[])
        .await
        .unwrap()
        .get(0);
    assert_eq!(jobs, 1);
    assert!(channels_of(&env, "bob").await.is_empty());
    let report = liability_by_channel(&server).await;
    let want = (160, format!("{}.00", 160 * 20), "0.00".to_owned());
    assert!(report.contains(&(id(&ch_a), want)), "{report:?}");

    workers.terminate().await.unwrap();
    assert_verifies_once_caught_up(&env).await;
}

/// A signed `POST /v1/redemptions` by `channel`: (status, body).
async fn redeem_as(server: &Server, channel: &Channel, code: &str, user: &str) -> (u16, Value) {
    let body = json!({"code": code, "user_id": user}).to_string();
    let nonce = Uuid::new_v4().to_string();
    let signed = channel.sign("POST", "/v1/redemptions", &body, &nonce);
    let mut req = server.http.post(server.url("/v1/redemptions"));
    req = req.header("Content-Type", "application/json").body(body);
    for (name, value) in signed.headers {
        req = req.header(name, value);
    }
    let r = req.send().await.unwrap();
    (r.status().as_u16(), r.json().await.unwrap_or(Value::Null))
}

/// A package's code is the grant (as a template's code is): the channel
/// that redeems it need not be on the package's list, and its coupons
/// record that channel; the service's redemptions record none.
#[tokio::test(flavor = "multi_thread")]
async fn a_packages_code_redeemed_by_a_channel_records_the_channel() {
    let env = Env::new().await.unwrap();
    let server = Server::start(&env).await.unwrap();
    let workers = Workers::start(&env, "issuance").unwrap();
    let a = server.active_template(1_000, 150).await.unwrap();
    let b = server.active_template(1_000, 150).await.unwrap();
    let channel = server.channel_for(&a).await.unwrap();
    let small = package(&server, &[(&a, 1), (&b, 2)], 10, 1).await;
    let large = package(&server, &[(&a, 100), (&b, 1)], 10, 1).await;
    let small_codes = batch_codes(&server, json!({"package_sn": small, "count": 2})).await;
    let large_codes = batch_codes(&server, json!({"package_sn": large, "count": 2})).await;

    let (status, got) = redeem_as(&server, &channel, &small_codes[0], "ann").await;
    assert_eq!(status, 201, "{got}");
    for coupon in got["coupons"].as_array().unwrap() {
        assert_eq!(coupon["channel_id"], id(&channel).as_str(), "{coupon}");
    }
    let (status, queued) = redeem_as(&server, &channel, &large_codes[0], "ann").await;
    assert_eq!(status, 202, "{queued}");
    let done = finished(&server, queued["job_id"].as_str().unwrap()).await;
    assert_eq!(done["status"], "done", "{done}");
    assert_eq!(channels_of(&env, "ann").await, [(id(&channel), 104)]);
    assert_eq!(channels_in_events(&env, "ann").await, [(id(&channel), 104)]);

    // The service's redemptions: no channel.
    assert_eq!(redeem(&server, &small_codes[1], "bob").await.0, 201);
    let (status, queued) = redeem(&server, &large_codes[1], "bob").await;
    assert_eq!(status, 202, "{queued}");
    let done = finished(&server, queued["job_id"].as_str().unwrap()).await;
    assert_eq!(done["status"], "done", "{done}");
    assert_eq!(channels_of(&env, "bob").await, [("none".to_owned(), 104)]);
    assert_eq!(
        channels_in_events(&env, "bob").await,
        [("none".to_owned(), 104)]
    );

    workers.terminate().await.unwrap();
    assert_verifies_once_caught_up(&env).await;
}
