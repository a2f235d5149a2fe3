//! Flash sales against real services (docs/design.md §12): 5,000 claims on a quota
//! of 1,000 from 3,000 users, through the Redis gate and group commit —
//! plain, with Redis stopped or flushed mid-sale, with `serve` killed
//! mid-sale, with two `serve`s — and rate limits and failing batches.

use std::collections::HashSet;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use serde_json::{Value, json};
use tests::own_redis::OwnRedis;
use tests::scenario::holders;
use tests::workers::{Workers, assert_replay_verifies, projections_caught_up};
use tests::{Channel, Env, Server, template_body};
use tokio::sync::Semaphore;

const QUOTA: i64 = 1_000;
const CLAIMS: usize = 5_000;
const USERS: usize = 3_000;
/// Requests in flight at once.
const CONCURRENCY: usize = 400;

#[derive(Debug)]
struct Answer {
    user: String,
    /// 0: no answer (the server died).
    status: u16,
    code: String,
}

/// Claim `i` is by user `i % USERS`: 2,000 users ask twice.
fn users() -> Vec<String> {
    (0..CLAIMS).map(|i| format!("fan-{}", i % USERS)).collect()
}

/// Sends every claim, spread over `servers`, and counts answers in `done`.
async fn claim_all(
    servers: Vec<Arc<Server>>,
    channel: Arc<Channel>,
    sn: &str,
    users: Vec<String>,
    done: Arc<AtomicUsize>,
) -> Vec<Answer> {
    let gate = Arc::new(Semaphore::new(CONCURRENCY));
    let tasks: Vec<_> = users
        .into_iter()
        .enumerate()
        .map(|(i, user)| {
            let server = servers[i % servers.len()].clone();
            let (channel, sn, gate, done) =
                (channel.clone(), sn.to_owned(), gate.clone(), done.clone());
            tokio::spawn(async move {
                let _permit = gate.acquire().await.unwrap();
                let answer = match server.claim(&channel, &sn, &user).await {
                    Ok((status, body)) => Answer {
                        user,
                        status,
                        code: body["error"]["code"].as_str().unwrap_or("").to_owned(),
                    },
                    Err(_) => Answer {
                        user,
                        status: 0,
                        code: String::new(),
                    },
                };
                done.fetch_add(1, Ordering::Relaxed);
                answer
            })
        })
        .collect();
    let mut answers = Vec::with_capacity(tasks.len());
    for t in tasks {
        answers.push(t.await.unwrap());
    }
    answers
}

async fn wait_for(done: &AtomicUsize, n: usize) {
    while done.load(Ordering::Relaxed) < n {
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
}

async fn one(env: &Env, sql: &str, sn: &str) -> i64 {
    let client = env.db.client().await.unwrap();
    client.query_one(sql, &[&sn]).await.unwrap().get(0)
}

/// (CouponIssued events, coupon rows, the quota counter) of the template.
async fn issued_everywhere(env: &Env, sn: &str) -> (i64, i64, i64) {
    (
        one(env, "SELECT count(*) FROM events WHERE event_type = 'CouponIssued' AND payload->>'template_sn' = $1", sn).await,
        one(env, "SELECT count(*) FROM coupons WHERE template_sn = $1", sn).await,
        one(env, "SELECT issued FROM templates WHERE sn = $1", sn).await,
    )
}

/// Exactly the quota, nobody above the limit of one, every answer right.
async fn assert_exact(env: &Env, sn: &str, answers: &[Answer]) {
    assert_eq!(issued_everywhere(env, sn).await, (QUOTA, QUOTA, QUOTA));
    let holders = holders(env, sn).await;
    assert!(holders.values().all(|&n| n == 1), "a user above the limit");
    for a in answers {
        match (a.status, a.code.as_str()) {
            (201, _) => assert!(holders.contains_key(&a.user), "201 without a coupon"),
            (409, "per_user_limit") => {
                assert!(
                    holders.contains_key(&a.user),
                    "409 for a user with no coupon"
                )
            }
            (410, "sold_out") | (0, _) => {}
            other => panic!("unexpected answer {other:?} for {}", a.user),
        }
    }
    let created: HashSet<&str> = answers
        .iter()
        .filter(|a| a.status == 201)
        .map(|a| a.user.as_str())
        .collect();
    let answered_all = answers.iter().all(|a| a.status != 0);
    if answered_all {
        assert_eq!(created.len() as i64, QUOTA, "every coupon was answered 201");
    }
}

async fn sale_template(server: &Server) -> (String, Arc<Channel>) {
    let sn = server.active_template(QUOTA, 1).await.unwrap();
    let channel = Arc::new(server.channel_for(&sn).await.unwrap());
    (sn, channel)
}

/// The gate's stock in Redis, None when the template is not warmed.
async fn gate_stock(
    redis: &mut redis::aio::MultiplexedConnection,
    env: &Env,
    sn: &str,
) -> Option<i64> {
    redis::cmd("GET")
        .arg(stock_key(env, sn))
        .query_async(redis)
        .await
        .unwrap()
}

/// The Redis key of a template's gate stock, under the test's prefix.
fn stock_key(env: &Env, sn: &str) -> String {
    format!("{}flash:{sn}:stock", env.redis.prefix)
}

/// Waits until Redis holds the stock Postgres says is left.
async fn assert_reconciled(redis: &mut redis::aio::MultiplexedConnection, env: &Env, sn: &str) {
    let left = QUOTA - issued_everywhere(env, sn).await.2;
    for _ in 0..200 {
        if gate_stock(redis, env, sn).await == Some(left) {
            return;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    panic!(
        "the gate holds {:?}, Postgres says {left} left",
        gate_stock(redis, env, sn).await
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn five_thousand_claims_on_a_quota_of_a_thousand_issue_exactly_a_thousand() {
    let env = Env::new().await.unwrap();
    let server = Arc::new(Server::start(&env).await.unwrap());
    let (sn, channel) = sale_template(&server).await;
    let done = Arc::new(AtomicUsize::new(0));
    let answers = claim_all(vec![server.clone()], channel, &sn, users(), done).await;
    assert_exact(&env, &sn, &answers).await;
    let mut redis = env.redis.connection().await.unwrap();
    assert_reconciled(&mut redis, &env, &sn).await;
    let metrics = server.metrics().await.unwrap();
    assert!(
        metrics.contains("couponledger_flash_gate_total{outcome=\"sold_out\"}"),
        "gate refusals are counted"
    );
    assert!(metrics.contains("couponledger_flash_batch_size_count"));
}

/// A template whose gate cannot be reset (its stock key holds a hash, so
/// every reset of it fails) does not keep the start-up pass from warming
/// the templates after it (the pass goes newest first).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_gate_that_cannot_be_reset_does_not_keep_the_others_cold() {
    let env = Env::new().await.unwrap();
    let server = Server::start(&env).await.unwrap();
    let older = server.active_template(QUOTA, 1).await.unwrap();
    tokio::time::sleep(Duration::from_millis(20)).await;
    let newer = server.active_template(QUOTA, 1).await.unwrap();
    server.terminate().await.unwrap();
    let mut redis = env.redis.connection().await.unwrap();
    redis::pipe()
        .del(stock_key(&env, &older))
        .del(stock_key(&env, &newer))
        .hset(stock_key(&env, &newer), "broken", 1)
        .query_async::<()>(&mut redis)
        .await
        .unwrap();
    let _server = Server::start(&env).await.unwrap();
    assert_reconciled(&mut redis, &env, &older).await;
}

/// A sale on a Redis of the test's own, which `disrupt` upsets mid-sale.
async fn sale_with_redis_trouble(flush: bool) {
    let mut own = OwnRedis::start().await.unwrap();
    let mut env = Env::new().await.unwrap();
    env.redis_url = Some(own.url());
    let server = Arc::new(Server::start(&env).await.unwrap());
    let (sn, channel) = sale_template(&server).await;
    let done = Arc::new(AtomicUsize::new(0));
    let sale = {
        let (server, sn, done) = (server.clone(), sn.clone(), done.clone());
        tokio::spawn(async move { claim_all(vec![server], channel, &sn, users(), done).await })
    };
    wait_for(&done, 600).await;
    if flush {
        let mut c = own.connection().await.unwrap();
        redis::cmd("FLUSHALL")
            .query_async::<()>(&mut c)
            .await
            .unwrap();
    } else {
        own.stop().await.unwrap();
        wait_for(&done, 2_500).await;
        own.restart().await.unwrap();
    }
    let answers = sale.await.unwrap();
    assert_exact(&env, &sn, &answers).await;
    let mut c = own.connection().await.unwrap();
    // Prefix-free keys: this Redis is the test's own, the prefix still applies.
    let key = format!("{}flash:{sn}:stock", env.redis.prefix);
    for _ in 0..200 {
        let stock: Option<i64> = redis::cmd("GET")
            .arg(&key)
            .query_async(&mut c)
            .await
            .unwrap();
        if stock == Some(0) {
            return;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    panic!("the gate was not reconciled after Redis came back");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn redis_stopped_mid_sale_still_issues_exactly_the_quota_and_the_gate_recovers() {
    sale_with_redis_trouble(false).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn redis_flushed_mid_sale_still_issues_exactly_the_quota_and_the_gate_recovers() {
    sale_with_redis_trouble(true).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn serve_killed_mid_sale_loses_nothing_and_the_gate_is_reconciled_on_restart() {
    let env = Env::new().await.unwrap();
    let server = Arc::new(Server::start(&env).await.unwrap());
    let (sn, channel) = sale_template(&server).await;
    let done = Arc::new(AtomicUsize::new(0));
    let sale = {
        let (server, channel, sn, done) =
            (server.clone(), channel.clone(), sn.clone(), done.clone());
        tokio::spawn(async move { claim_all(vec![server], channel, &sn, users(), done).await })
    };
    wait_for(&done, 500).await;
    let pid = server.pid().unwrap();
    std::process::Command::new("kill")
        .args(["-KILL", &pid.to_string()])
        .status()
        .unwrap();
    let before = sale.await.unwrap();
    assert!(
        before.iter().any(|a| a.status == 0),
        "the kill cut requests off"
    );
    let (events, rows, counter) = issued_everywhere(&env, &sn).await;
    assert_eq!(
        (events, rows),
        (counter, counter),
        "nothing issued without its event"
    );
    assert!(counter < QUOTA, "killed before the sale ended");
    let restarted = Arc::new(Server::start(&env).await.unwrap());
    let mut redis = env.redis.connection().await.unwrap();
    assert_reconciled(&mut redis, &env, &sn).await;
    let rest: Vec<String> = (0..CLAIMS).map(|i| format!("late-{i}")).collect();
    let after = claim_all(vec![restarted], channel, &sn, rest, done).await;
    let all: Vec<Answer> = before.into_iter().chain(after).collect();
    assert_exact(&env, &sn, &all).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn two_serves_sharing_redis_and_postgres_issue_exactly_the_quota() {
    let env = Env::new().await.unwrap();
    let _workers = Workers::start(&env, "relay,balances,template_stats,notify").unwrap();
    let a = Arc::new(Server::start(&env).await.unwrap());
    let b = Arc::new(Server::start(&env).await.unwrap());
    let (sn, channel) = sale_template(&a).await;
    let done = Arc::new(AtomicUsize::new(0));
    let answers = claim_all(vec![a, b], channel, &sn, users(), done).await;
    assert_exact(&env, &sn, &answers).await;
    // The batches' events rebuild the same coupons, counters and projections.
    projections_caught_up(&env, Duration::from_secs(120))
        .await
        .unwrap();
    assert_replay_verifies(&env).await;
}

/// Posts a claim and returns (status, Retry-After, body).
async fn claim_with_headers(
    server: &Server,
    channel: &Channel,
    sn: &str,
    user: &str,
) -> (u16, Option<u64>, Value) {
    let r = server.claim_response(channel, sn, user).await.unwrap();
    let retry = r
        .headers()
        .get("Retry-After")
        .and_then(|v| v.to_str().ok()?.parse().ok());
    let status = r.status().as_u16();
    (status, retry, r.json().await.unwrap_or(Value::Null))
}

#[tokio::test]
async fn a_channel_over_its_rate_limit_gets_429_with_retry_after_and_others_are_unaffected() {
    let env = Env::new().await.unwrap();
    let server = Server::start(&env).await.unwrap();
    let mut body = template_body(1_000, 100);
    body["rate_limit"] = json!({
        "per_channel": {"per_second": 1, "burst": 5},
        "per_user": {"per_second": 1, "burst": 2}
    });
    let sn = server.activate_template(&body).await.unwrap();
    let (busy, quiet) = (
        server.channel_for(&sn).await.unwrap(),
        server.channel_for(&sn).await.unwrap(),
    );
    let mut statuses = Vec::new();
    for i in 0..12 {
        statuses.push(claim_with_headers(&server, &busy, &sn, &format!("busy-{i}")).await);
    }
    let created = statuses.iter().filter(|s| s.0 == 201).count();
    assert!(
        (5..=6).contains(&created),
        "the burst, and at most one refill: {created}"
    );
    let limited: Vec<_> = statuses.iter().filter(|s| s.0 == 429).collect();
    assert_eq!(limited.len(), 12 - created);
    assert!(
        limited.iter().all(|s| s.1.is_some_and(|r| r >= 1)),
        "Retry-After"
    );
    assert_eq!(limited[0].2["error"]["code"], "rate_limited");
    for i in 0..3 {
        let (status, _, body) =
            claim_with_headers(&server, &quiet, &sn, &format!("quiet-{i}")).await;
        assert_eq!(status, 201, "another channel is unaffected: {body}");
    }
    // One user: a burst of two, then 429, though the per-user limit is 100.
    let solo = server.channel_for(&sn).await.unwrap();
    let mut one_user = Vec::new();
    for _ in 0..3 {
        one_user.push(claim_with_headers(&server, &solo, &sn, "eager").await.0);
    }
    assert_eq!(one_user, vec![201, 201, 429]);
    assert_eq!(holders(&env, &sn).await.len(), created + 3 + 1);
    // Admin-changeable: without the limit the busy channel claims again.
    let patch = server
        .admin(reqwest::Method::PATCH, &format!("/v1/templates/{sn}"))
        .json(&json!({"rate_limit": null}))
        .send()
        .await
        .unwrap();
    assert_eq!(patch.status(), 200);
    for i in 0..8 {
        let (status, _, body) =
            claim_with_headers(&server, &busy, &sn, &format!("after-{i}")).await;
        assert_eq!(status, 201, "{body}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_failing_batch_answers_every_request_an_error_and_issues_nothing_of_it() {
    let env = Env::new().await.unwrap();
    // No periodic reset: the gate's stock below moves only by the claims.
    let quiet = [("LEDGER_FLASH_RECONCILE_SECS", "86400")];
    let server = Arc::new(Server::start_with(&env, &quiet).await.unwrap());
    let (sn, channel) = sale_template(&server).await;
    let client = env.db.client().await.unwrap();
    client
        .batch_execute(
            "CREATE FUNCTION poison() RETURNS trigger LANGUAGE plpgsql AS $$
             BEGIN IF NEW.user_id = 'poison' THEN RAISE EXCEPTION 'poisoned'; END IF;
             RETURN NEW; END $$;
             CREATE TRIGGER poison BEFORE INSERT ON coupons
               FOR EACH ROW EXECUTE FUNCTION poison();",
        )
        .await
        .unwrap();
    let mut users: Vec<String> = (0..300).map(|i| format!("buyer-{i}")).collect();
    users.insert(150, "poison".into());
    let done = Arc::new(AtomicUsize::new(0));
    let answers = claim_all(
        vec![server.clone()],
        channel.clone(),
        &sn,
        users,
        done.clone(),
    )
    .await;
    let holders = holders(&env, &sn).await;
    let failed: Vec<&Answer> = answers.iter().filter(|a| a.status == 503).collect();
    assert!(failed.iter().any(|a| a.user == "poison"));
    assert!(
        failed
            .iter()
            .all(|a| a.code == "batch_failed" && !holders.contains_key(&a.user))
    );
    assert!(answers.iter().all(|a| a.status == 201 || a.status == 503));
    let created = answers.iter().filter(|a| a.status == 201).count() as i64;
    assert_eq!(
        issued_everywhere(&env, &sn).await,
        (created, created, created)
    );
    // Every reservation of the failed batch was given back at once.
    let mut redis = env.redis.connection().await.unwrap();
    assert_eq!(
        gate_stock(&mut redis, &env, &sn).await,
        Some(QUOTA - created)
    );

    // Stopped by another process between the gate and the write (this
    // one's cache still says active): every request refused, none issued.
    let admin = Server::start(&env).await.unwrap();
    let stop = format!("/v1/templates/{sn}/stop");
    assert_eq!(admin.admin_post(&stop, &json!({})).await.unwrap().0, 200);
    let late: Vec<String> = (0..50).map(|i| format!("late-{i}")).collect();
    let answers = claim_all(vec![server], channel, &sn, late, done).await;
    assert!(
        answers
            .iter()
            .all(|a| a.status == 422 && a.code == "template_not_active"),
        "{:?}",
        answers.iter().find(|a| a.status != 422)
    );
    assert_eq!(issued_everywhere(&env, &sn).await.2, created);
}

#[tokio::test]
async fn with_redis_down_the_rate_limits_hold_in_process() {
    let mut env = Env::new().await.unwrap();
    // A port nothing listens on: Redis is down for this serve.
    let closed = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    env.redis_url = Some(format!("redis://{}", closed.local_addr().unwrap()));
    drop(closed);
    let server = Server::start(&env).await.unwrap();
    let mut body = template_body(100, 100);
    body["rate_limit"] = json!({"per_channel": {"per_second": 1, "burst": 3}});
    let sn = server.activate_template(&body).await.unwrap();
    let channel = server.channel_for(&sn).await.unwrap();
    let mut statuses = Vec::new();
    for i in 0..6 {
        let (status, retry, _) = claim_with_headers(&server, &channel, &sn, &format!("u{i}")).await;
        assert!(
            status != 429 || retry.is_some(),
            "429 comes with Retry-After"
        );
        statuses.push(status);
    }
    let created = statuses.iter().filter(|&&s| s == 201).count();
    assert!((3..=4).contains(&created), "{statuses:?}");
    assert_eq!(statuses.iter().filter(|&&s| s == 429).count(), 6 - created);
    assert_eq!(issued_everywhere(&env, &sn).await.2, created as i64);
}
