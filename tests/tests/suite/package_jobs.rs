//! Claims of large packages (docs/design.md §13) end to end, with the issuance
//! worker running: a package of more than 100 coupons is claimed (or
//! redeemed by one of its codes) as a job answered 202, which has taken
//! its counts (docs/design.md §13); the job ends done with exactly its
//! coupons, or refused (a code's use taken meanwhile, a channel disabled)
//! with every counter given back; a claim its templates cannot cover is
//! refused by the request; concurrent claims never pass the package's total; a job that cannot be queued answers 503; a code a
//! job used up is marked in Redis as the request's path marks it; and
//! `ledger replay --verify` agrees with the result.

use std::collections::{HashMap, HashSet};
use std::sync::Arc;

use serde_json::{Value, json};
use tests::codes::{batch, batch_codes, codes_of, redeem};
use tests::packages::{claim, claim_with_key, finished, issued, job, package, package_for};
use tests::workers::{Workers, assert_verifies_once_caught_up};
use tests::{Channel, Env, Server};
use uuid::Uuid;

/// A signed `GET /v1/package-jobs/{id}` by `channel`.
async fn signed_job(server: &Server, channel: &Channel, id: &str) -> (u16, Value) {
    let path = format!("/v1/package-jobs/{id}");
    let signed = channel.sign("GET", &path, "", &Uuid::new_v4().to_string());
    let mut req = server.http.get(server.url(&path));
    for (name, value) in signed.headers {
        req = req.header(name, value);
    }
    let r = req.send().await.unwrap();
    (r.status().as_u16(), r.json().await.unwrap_or(Value::Null))
}

/// The job id of a 202.
fn queued((status, body): (u16, Value)) -> String {
    assert_eq!(status, 202, "{body}");
    assert_eq!(body["status"], "queued", "{body}");
    body["job_id"].as_str().unwrap().to_owned()
}

/// Each template's coupons held by `user`.
async fn held(env: &Env, user: &str) -> HashMap<String, i64> {
    let client = env.db.client().await.unwrap();
    let sql = "SELECT template_sn, count(*) FROM coupons WHERE user_id = $1 GROUP BY 1";
    let rows = client.query(sql, &[&user]).await.unwrap();
    rows.iter().map(|r| (r.get(0), r.get(1))).collect()
}

/// The package's `claimed` counter, as the API reads it.
async fn claimed(server: &Server, sn: &str) -> i64 {
    let r = server
        .admin(reqwest::Method::GET, &format!("/v1/packages/{sn}"))
        .send()
        .await
        .unwrap();
    let p: Value = r.json().await.unwrap();
    p["claimed"].as_i64().unwrap()
}

fn ids(job: &Value) -> Vec<Uuid> {
    let ids = job["coupon_ids"].as_array().unwrap();
    ids.iter()
        .map(|v| v.as_str().unwrap().parse().unwrap())
        .collect()
}

#[tokio::test(flavor = "multi_thread")]
async fn a_large_package_is_claimed_by_a_job() {
    let env = Env::new().await.unwrap();
    let server = Server::start(&env).await.unwrap();
    let workers = Workers::start(&env, "issuance").unwrap();
    let a = server.active_template(1_000, 150).await.unwrap();
    let b = server.active_template(1_000, 60).await.unwrap();
    let c = server.active_template(1_000, 40).await.unwrap();
    let channel = server.channel_for(&a).await.unwrap();
    let other = server.channel_for(&a).await.unwrap();
    let sn = package_for(
        &server,
        &[&channel],
        &[(&a, 150), (&b, 60), (&c, 40)],
        10,
        1,
    )
    .await;

    let id = queued(claim_with_key(&server, &channel, &sn, "ann", Some("k-ann")).await);
    let replayed = queued(claim_with_key(&server, &channel, &sn, "ann", Some("k-ann")).await);
    assert_eq!(replayed, id, "the key's replay answers the same job");
    let done = finished(&server, &id).await;
    assert_eq!(done["status"], "done", "{done}");
    assert_eq!(done["coupons_issued"], 250);
    assert!(done.get("error").is_none(), "{done}");

    let want: HashMap<String, i64> = [(a.clone(), 150), (b.clone(), 60), (c.clone(), 40)].into();
    assert_eq!(held(&env, "ann").await, want);
    assert_eq!(
        issued(&env, &[&a, &b, &c]).await,
        [(150, 150), (60, 60), (40, 40)]
    );
    assert_eq!(claimed(&server, &sn).await, 1);
    let coupons = ids(&done);
    let client = env.db.client().await.unwrap();
    let first_and_last: Vec<String> = client
        .query(
            "SELECT template_sn FROM coupons WHERE id = ANY($1) ORDER BY array_position($1, id)",
            &[&vec![coupons[0], coupons[249]]],
        )
        .await
        .unwrap()
        .iter()
        .map(|r| r.get(0))
        .collect();
    assert_eq!(first_and_last, [a.clone(), c.clone()], "in item order");
    let claims = client
        .query(
            "SELECT payload->'coupon_ids' FROM events WHERE event_type = 'PackageClaimed'",
            &[],
        )
        .await
        .unwrap();
    assert_eq!(claims.len(), 1);
    let in_event: Vec<Uuid> = serde_json::from_value(claims[0].get(0)).unwrap();
    assert_eq!(
        in_event, coupons,
        "the event names exactly the job's coupons"
    );
    let jobs = env.db.count("SELECT count(*) FROM package_jobs", &[]).await;
    assert_eq!(jobs, 1, "the replay queued nothing");

    // The channel that asked reads its job; another channel does not.
    let (status, read) = signed_job(&server, &channel, &id).await;
    assert_eq!((status, read["status"].clone()), (200, json!("done")));
    assert_eq!(signed_job(&server, &other, &id).await.0, 404);
    assert_eq!(job(&server, &Uuid::now_v7().to_string()).await.0, 404);

    // At the package's per-user limit: refused by the request itself.
    let (status, again) = claim(&server, &channel, &sn, "ann").await;
    assert_eq!(
        (status, again["error"]["code"].clone()),
        (409, json!("per_user_limit"))
    );
    workers.terminate().await.unwrap();
    assert_verifies_once_caught_up(&env).await;
}

/// A large claim whose templates cannot cover it is refused by the request
/// itself (its counts are taken there: docs/design.md §13), with no job and
/// every counter as it was.
#[tokio::test(flavor = "multi_thread")]
async fn a_claim_its_templates_cannot_cover_is_refused_at_once_leaving_every_counter() {
    let env = Env::new().await.unwrap();
    let server = Server::start(&env).await.unwrap();
    let workers = Workers::start(&env, "issuance").unwrap();
    let a = server.active_template(1_000, 150).await.unwrap();
    // 100 in all: the second claim's 60 do not fit in the 40 left.
    let b = server.active_template(100, 60).await.unwrap();
    let c = server.active_template(1_000, 40).await.unwrap();
    let channel = server.channel_for(&a).await.unwrap();
    let sn = package_for(
        &server,
        &[&channel],
        &[(&a, 150), (&b, 60), (&c, 40)],
        10,
        1,
    )
    .await;
    let id = queued(claim(&server, &channel, &sn, "ann").await);
    assert_eq!(finished(&server, &id).await["status"], "done");
    let before = issued(&env, &[&a, &b, &c]).await;
    assert_eq!(before, [(150, 150), (60, 60), (40, 40)]);

    let (status, refused) = claim(&server, &channel, &sn, "bob").await;
    assert_eq!(status, 410, "{refused}");
    assert_eq!(refused["error"]["code"], "sold_out", "{refused}");
    let jobs = env.db.count("SELECT count(*) FROM package_jobs", &[]).await;
    assert_eq!(jobs, 1, "no job for a refused claim");

    assert_eq!(issued(&env, &[&a, &b, &c]).await, before, "nothing issued");
    assert!(held(&env, "bob").await.is_empty());
    assert_eq!(claimed(&server, &sn).await, 1, "the package's counter");
    let bob = "bob";
    let package_count = "SELECT count(*) FROM package_claims WHERE user_id = $1";
    assert_eq!(
        env.db.count(package_count, &[&bob]).await,
        0,
        "bob's count of the package"
    );
    let template_counts = "SELECT count(*) FROM user_claims WHERE user_id = $1";
    assert_eq!(
        env.db.count(template_counts, &[&bob]).await,
        0,
        "bob's counts of the templates"
    );
    let events = "SELECT count(*) FROM events WHERE event_type = 'PackageClaimed'";
    assert_eq!(env.db.count(events, &[]).await, 1);
    workers.terminate().await.unwrap();
    assert_verifies_once_caught_up(&env).await;
}

#[tokio::test(flavor = "multi_thread")]
async fn concurrent_large_claims_never_pass_the_packages_total() {
    let env = Env::new().await.unwrap();
    let server = Arc::new(Server::start(&env).await.unwrap());
    // Two competing workers: the package's guards, not one consumer, keep it exact.
    let one = Workers::start(&env, "issuance").unwrap();
    let two = Workers::start(&env, "issuance").unwrap();
    let a = server.active_template(10_000, 60).await.unwrap();
    let b = server.active_template(10_000, 50).await.unwrap();
    let channel = Arc::new(server.channel_for(&a).await.unwrap());
    let sn = package_for(&server, &[channel.as_ref()], &[(&a, 60), (&b, 50)], 5, 1).await;
    let mut tasks = tokio::task::JoinSet::new();
    for i in 0..20 {
        let (server, channel, sn) = (server.clone(), channel.clone(), sn.clone());
        tasks.spawn(async move { claim(&server, &channel, &sn, &format!("u{i}")).await });
    }
    let (mut jobs, mut sold_out_at_once) = (Vec::new(), 0);
    while let Some(answer) = tasks.join_next().await {
        let (status, body) = answer.unwrap();
        match status {
            202 => jobs.push(body["job_id"].as_str().unwrap().to_owned()),
            410 => sold_out_at_once += 1,
            other => panic!("{other}: {body}"),
        }
    }
    // A 202 took the package's count: exactly its total, and every job done.
    assert_eq!(jobs.len(), 5, "exactly the package's total");
    assert_eq!(sold_out_at_once, 15);
    for id in &jobs {
        let job = finished(&server, id).await;
        assert_eq!(job["status"], "done", "{job}");
    }
    assert_eq!(issued(&env, &[&a, &b]).await, [(300, 300), (250, 250)]);
    assert_eq!(claimed(&server, &sn).await, 5);
    one.terminate().await.unwrap();
    two.terminate().await.unwrap();
    assert_verifies_once_caught_up(&env).await;
}

#[tokio::test(flavor = "multi_thread")]
async fn a_large_packages_code_is_redeemed_by_a_job() {
    let env = Env::new().await.unwrap();
    let server = Server::start(&env).await.unwrap();
    let a = server.active_template(1_000, 101).await.unwrap();
    let sn = package(&server, &[(&a, 101)], 10, 5).await;
    let codes = batch_codes(&server, json!({"package_sn": sn, "count": 2})).await;

    // Queued before any worker runs: both pass the request's checks.
    let ann = queued(redeem(&server, &codes[0], "ann").await);
    let bob = queued(redeem(&server, &codes[0], "bob").await);
    let workers = Workers::start(&env, "issuance").unwrap();
    let done = finished(&server, &ann).await;
    assert_eq!(
        (done["status"].clone(), done["coupons_issued"].clone()),
        (json!("done"), json!(101))
    );
    assert!(done["code_batch_id"].is_string(), "{done}");
    let refused = finished(&server, &bob).await;
    assert_eq!(refused["status"], "refused", "{refused}");
    assert_eq!(refused["error"]["status"], 410, "{refused}");
    assert_eq!(refused["error"]["message"], "the code is used up");

    // Used up now: the request answers at once.
    let (status, used) = redeem(&server, &codes[0], "cyd").await;
    assert_eq!(
        (status, used["error"]["code"].clone()),
        (410, json!("sold_out"))
    );
    // Another code of the batch, for a user who redeemed one: 409 at once.
    let (status, again) = redeem(&server, &codes[1], "ann").await;
    assert_eq!(
        (status, again["error"]["code"].clone()),
        (409, json!("already_redeemed"))
    );

    assert_eq!(issued(&env, &[&a]).await, [(101, 101)]);
    assert_eq!(held(&env, "ann").await, [(a.clone(), 101)].into());
    assert!(held(&env, "bob").await.is_empty());
    let redeemed = "SELECT count(*) FROM events WHERE event_type = 'CodeRedeemed'
                     AND jsonb_array_length(payload->'coupon_ids') = 101";
    assert_eq!(env.db.count(redeemed, &[]).await, 1);
    let with_code = "SELECT count(*) FROM events WHERE event_type = 'CouponIssued'
                      AND metadata->'code' IS NOT NULL";
    assert_eq!(
        env.db.count(with_code, &[]).await,
        101,
        "each coupon names its code"
    );
    let uses = "SELECT coalesce(sum(uses), 0)::bigint FROM code_uses";
    assert_eq!(env.db.count(uses, &[]).await, 1);
    workers.terminate().await.unwrap();
    assert_verifies_once_caught_up(&env).await;
}

/// The bit of `serial`'s place in the batch's Redis bitmap of used-up codes.
async fn used_up_bit(env: &Env, batch_id: &str, offset: usize) -> i64 {
    let redis = redis::Client::open(env.redis.url.as_str()).unwrap();
    let mut conn = redis.get_multiplexed_async_connection().await.unwrap();
    let key = format!("{}codes:{batch_id}:used-up", env.redis.prefix);
    redis::cmd("GETBIT")
        .arg(&key)
        .arg(offset)
        .query_async(&mut conn)
        .await
        .unwrap()
}

/// A one-use code a large package's job used up is marked in Redis once
/// the job committed, as a redemption written in the request is: its
/// repeats are answered 410 from Redis, without Postgres.
#[tokio::test(flavor = "multi_thread")]
async fn a_code_a_job_used_up_is_answered_from_redis() {
    let env = Env::new().await.unwrap();
    let server = Server::start(&env).await.unwrap();
    let workers = Workers::start(&env, "issuance").unwrap();
    let a = server.active_template(1_000, 101).await.unwrap();
    let sn = package(&server, &[(&a, 101)], 10, 5).await;
    let made = batch(&server, json!({"package_sn": sn, "count": 3})).await;
    let batch_id = made["id"].as_str().unwrap();
    let codes = codes_of(&server, &made).await;
    let id = queued(redeem(&server, &codes[1], "ann").await);
    assert_eq!(finished(&server, &id).await["status"], "done");
    // Set after the job's commit, so a moment after it reads done.
    let deadline = tokio::time::Instant::now() + std::time::Duration::from_secs(10);
    while used_up_bit(&env, batch_id, 1).await == 0 {
        assert!(
            tokio::time::Instant::now() < deadline,
            "the bit is never set"
        );
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    assert_eq!(used_up_bit(&env, batch_id, 0).await, 0, "only its own bit");
    let (status, body) = redeem(&server, &codes[1], "bob").await;
    assert_eq!(
        (status, body["error"]["code"].clone()),
        (410, json!("sold_out"))
    );
    workers.terminate().await.unwrap();
    assert_verifies_once_caught_up(&env).await;

    // Postgres made to forget the use: the 410 can only be Redis's.
    let client = env.db.client().await.unwrap();
    client.execute("DELETE FROM code_uses", &[]).await.unwrap();
    let (status, body) = redeem(&server, &codes[1], "cyd").await;
    assert_eq!(status, 410, "answered from Redis: {body}");
    // Without the bit, Postgres (as tampered) lets the repeat through.
    let redis = redis::Client::open(env.redis.url.as_str()).unwrap();
    let mut conn = redis.get_multiplexed_async_connection().await.unwrap();
    let key = format!("{}codes:{batch_id}:used-up", env.redis.prefix);
    let _: i64 = redis::cmd("DEL")
        .arg(&key)
        .query_async(&mut conn)
        .await
        .unwrap();
    let (status, body) = redeem(&server, &codes[1], "dan").await;
    assert_eq!(status, 202, "{body}");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_job_that_cannot_be_queued_answers_503_and_claims_nothing() {
    let env = Env::new().await.unwrap();
    // Nothing listens on port 1: every publish fails.
    let broker = [("AMQP_URL", "amqp://guest:guest@127.0.0.1:1/%2f")];
    let server = Server::start_with(&env, &broker).await.unwrap();
    let a = server.active_template(1_000, 101).await.unwrap();
    let channel = server.channel_for(&a).await.unwrap();
    let sn = package_for(&server, &[&channel], &[(&a, 101)], 10, 1).await;
    for _ in 0..2 {
        // The same key asks afresh: a failed job keeps no answer under it.
        let (status, body) = claim_with_key(&server, &channel, &sn, "ann", Some("k1")).await;
        assert_eq!(
            (status, body["error"]["code"].clone()),
            (503, json!("unavailable"))
        );
        let message = body["error"]["message"].as_str().unwrap();
        assert!(!message.contains("guest:guest"), "{message}");
    }
    let client = env.db.client().await.unwrap();
    let rows = client
        .query(
            "SELECT id, status, error_status, finished_at IS NOT NULL FROM package_jobs",
            &[],
        )
        .await
        .unwrap();
    assert_eq!(rows.len(), 2, "one job a request");
    let mut seen = HashSet::new();
    for r in &rows {
        assert!(seen.insert(r.get::<_, Uuid>(0)));
        assert_eq!(r.get::<_, &str>(1), "failed");
        assert_eq!(r.get::<_, Option<i16>>(2), Some(503));
        assert!(r.get::<_, bool>(3));
        let (status, read) = job(&server, &r.get::<_, Uuid>(0).to_string()).await;
        assert_eq!(
            (status, read["error"]["code"].clone()),
            (200, json!("unavailable"))
        );
    }
    assert_eq!(claimed(&server, &sn).await, 0);
    assert_eq!(issued(&env, &[&a]).await, [(0, 0)]);
}

#[tokio::test(flavor = "multi_thread")]
async fn a_package_of_the_most_coupons_is_one_job() {
    let env = Env::new().await.unwrap();
    let server = Server::start(&env).await.unwrap();
    let workers = Workers::start(&env, "issuance").unwrap();
    let a = server.active_template(100_000, 5_000).await.unwrap();
    let b = server.active_template(100_000, 5_000).await.unwrap();
    let channel = server.channel_for(&a).await.unwrap();
    // MAX_COUPONS: each template's share by one COPY, not a claim a coupon.
    let sn = package_for(&server, &[&channel], &[(&a, 5_000), (&b, 5_000)], 10, 1).await;
    let id = queued(claim(&server, &channel, &sn, "ann").await);
    let done = finished(&server, &id).await;
    assert_eq!(done["coupons_issued"], 10_000, "{}", done["status"]);
    assert_eq!(
        issued(&env, &[&a, &b]).await,
        [(5_000, 5_000), (5_000, 5_000)]
    );
    // Its ids come a page of at most 1,000 at a time, every one once.
    assert_eq!(ids(&done).len(), 1_000);
    let mut all = std::collections::HashSet::new();
    let mut offset = Some(0);
    while let Some(at) = offset {
        let path = format!("/v1/package-jobs/{id}?offset={at}&limit=1000");
        let r = server
            .service(reqwest::Method::GET, &path)
            .send()
            .await
            .unwrap();
        let page: Value = r.json().await.unwrap();
        let got = ids(&page);
        assert!(!got.is_empty() && got.len() <= 1_000);
        all.extend(got);
        offset = page["next_offset"].as_i64();
    }
    assert_eq!(all.len(), 10_000);
    let r = server
        .service(
            reqwest::Method::GET,
            &format!("/v1/package-jobs/{id}?limit=1001"),
        )
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 400, "a page holds at most 1,000 ids");
    workers.terminate().await.unwrap();
    assert_verifies_once_caught_up(&env).await;
}

/// An API that stops between recording a job and publishing it leaves the
/// job queued with no message (staged here by purging the queue): the
/// scanner re-publishes it, and the worker runs it once.
#[tokio::test(flavor = "multi_thread")]
async fn a_queued_job_whose_message_was_lost_is_republished_and_run_once() {
    let env = Env::new().await.unwrap();
    let server = Server::start(&env).await.unwrap();
    let a = server.active_template(1_000, 150).await.unwrap();
    let b = server.active_template(1_000, 10).await.unwrap();
    let channel = server.channel_for(&a).await.unwrap();
    let sn = package_for(&server, &[&channel], &[(&a, 150), (&b, 10)], 10, 1).await;
    let id = queued(claim(&server, &channel, &sn, "lost").await);

    let amqp = lapin::Connection::connect(&env.vhost.amqp_url, Default::default())
        .await
        .unwrap();
    let purged = amqp
        .create_channel()
        .await
        .unwrap()
        .queue_purge(
            ledger::messaging::topology::ISSUANCE_QUEUE.into(),
            Default::default(),
        )
        .await
        .unwrap();
    assert_eq!(purged, 1, "the job's message, lost");

    let workers = Workers::start_with(&env, "issuance,scanner", &["--requeue-after", "1"]).unwrap();
    let done = finished(&server, &id).await;
    assert_eq!(done["status"], "done", "{done}");
    assert_eq!(ids(&done).len(), 160);
    assert_eq!(held(&env, "lost").await.values().sum::<i64>(), 160);
    // The scanner sweeps on: a done job is not queued, nothing more comes.
    tokio::time::sleep(std::time::Duration::from_millis(2_500)).await;
    assert_eq!(held(&env, "lost").await.values().sum::<i64>(), 160);
    assert_eq!(claimed(&server, &sn).await, 1);
    assert_verifies_once_caught_up(&env).await;
    drop(workers);
}

/// A job its channel queued before being disabled is refused when it runs
/// (403 `channel_disabled`, as the channel's request would be now), with
/// nothing issued; queued again once the channel is enabled, it is done.
#[tokio::test(flavor = "multi_thread")]
async fn a_job_queued_before_its_channel_was_disabled_is_refused() {
    let env = Env::new().await.unwrap();
    let server = Server::start(&env).await.unwrap();
    let a = server.active_template(1_000, 150).await.unwrap();
    let channel = server.channel_for(&a).await.unwrap();
    let sn = package_for(&server, &[&channel], &[(&a, 150)], 10, 1).await;
    // No worker yet: the job waits on the queue while the channel is cut off.
    let id = queued(claim(&server, &channel, &sn, "ann").await);
    let path = format!("/v1/channels/{}/disable", channel.id);
    let (status, body) = server.admin_post(&path, &json!({})).await.unwrap();
    assert_eq!(status, 200, "{body}");
    let workers = Workers::start(&env, "issuance").unwrap();
    let refused = finished(&server, &id).await;
    assert_eq!(refused["status"], "refused", "{refused}");
    assert_eq!(refused["error"]["status"], 403, "{refused}");
    assert_eq!(refused["error"]["code"], "channel_disabled", "{refused}");
    assert!(held(&env, "ann").await.is_empty());
    assert_eq!(claimed(&server, &sn).await, 0, "the package's counter");
    assert_eq!(issued(&env, &[&a]).await, [(0, 0)], "the quota given back");

    let path = format!("/v1/channels/{}/enable", channel.id);
    let (status, body) = server.admin_post(&path, &json!({})).await.unwrap();
    assert_eq!(status, 200, "{body}");
    let id = queued(claim(&server, &channel, &sn, "ann").await);
    assert_eq!(finished(&server, &id).await["status"], "done");
    assert_eq!(held(&env, "ann").await.get(&a), Some(&150));
    workers.terminate().await.unwrap();
}
