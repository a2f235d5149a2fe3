//! Guess limits across API processes (`ledger/src/api/auth/guess_limit.rs`):
//! two `ledger serve` sharing one Redis prefix share each user's and each
//! address's failed redemptions, and with Redis down (from the start, or
//! gone mid-window) each process still limits on its own counts.

use reqwest::Method;
use serde_json::json;
use tests::codes::batch_codes;
use tests::own_redis::OwnRedis;
use tests::{Env, Server};

/// Not a code (its check character fails): 404 without a database read.
const GUESS: &str = "AAAAAAAAAA";
/// The per-user and per-address limits of `guess_limit`.
const USER_FAILURES: usize = 10;
const ADDRESS_FAILURES: usize = 50;

/// A redemption as the service, for `user` from `address`: (status, Retry-After).
async fn redeem(server: &Server, code: &str, user: &str, address: &str) -> (u16, Option<u64>) {
    let r = server
        .service(Method::POST, "/v1/redemptions")
        .header("X-Forwarded-For", address)
        .json(&json!({"code": code, "user_id": user}))
        .send()
        .await
        .unwrap();
    let retry_after = r
        .headers()
        .get("retry-after")
        .map(|v| v.to_str().unwrap().parse().unwrap());
    (r.status().as_u16(), retry_after)
}

/// `n` failed guesses of `user` on `server`, each answered 404.
async fn guesses(server: &Server, user: &str, address: &str, n: usize) {
    for i in 0..n {
        let (status, _) = redeem(server, GUESS, user, address).await;
        assert_eq!(status, 404, "guess {i} of {user} from {address}");
    }
}

/// 429 with a Retry-After within the minute's window.
fn assert_limited((status, retry_after): (u16, Option<u64>), what: &str) {
    assert_eq!(status, 429, "{what}");
    let secs = retry_after.unwrap_or_else(|| panic!("{what}: no Retry-After"));
    assert!((1..=60).contains(&secs), "{what}: Retry-After {secs}");
}

/// A good code of a fresh batch, for showing who is and is not limited.
async fn good_codes(server: &Server, count: usize) -> Vec<String> {
    let sn = server.active_template(100, 100).await.unwrap();
    let body = json!({"template_sn": sn, "count": count, "per_user": count});
    batch_codes(server, body).await
}

#[tokio::test(flavor = "multi_thread")]
async fn two_servers_share_a_users_and_an_addresss_failures() {
    let env = Env::new().await.unwrap();
    let (a, b) = (
        Server::start(&env).await.unwrap(),
        Server::start(&env).await.unwrap(),
    );
    let good = good_codes(&a, 3).await;

    // 6 + 4 = 10: each server alone saw fewer than the limit.
    guesses(&a, "guesser", "198.51.100.1", 6).await;
    guesses(&b, "guesser", "198.51.100.2", USER_FAILURES - 6).await;
    assert_limited(
        redeem(&a, &good[0], "guesser", "198.51.100.3").await,
        "the user on a, even with a good code",
    );
    assert_limited(
        redeem(&b, GUESS, "guesser", "198.51.100.4").await,
        "the user on b",
    );
    assert_eq!(
        redeem(&b, &good[0], "honest", "198.51.100.5").await.0,
        201,
        "another user is not limited"
    );

    // One address guessing for many users, half on each server.
    let bot = "203.0.113.9";
    for i in 0..ADDRESS_FAILURES {
        let server = if i % 2 == 0 { &a } else { &b };
        guesses(server, &format!("bot-{i}"), bot, 1).await;
    }
    assert_limited(
        redeem(&a, &good[1], "new-user", bot).await,
        "the address on a",
    );
    assert_limited(
        redeem(&b, &good[1], "new-user", bot).await,
        "the address on b",
    );
    assert_eq!(
        redeem(&a, &good[1], "new-user", "203.0.113.10").await.0,
        201,
        "the same user from another address is not limited"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn with_redis_down_each_server_limits_on_its_own_counts() {
    let mut env = Env::new().await.unwrap();
    env.redis_url = Some("redis://127.0.0.1:1/".into());
    let (a, b) = (
        Server::start(&env).await.unwrap(),
        Server::start(&env).await.unwrap(),
    );
    guesses(&a, "guesser", "198.51.100.1", USER_FAILURES).await;
    assert_limited(
        redeem(&a, GUESS, "guesser", "198.51.100.1").await,
        "the process that saw the failures",
    );
    // What Redis would have shared: b has seen none of them.
    assert_eq!(redeem(&b, GUESS, "guesser", "198.51.100.1").await.0, 404);
}

#[tokio::test(flavor = "multi_thread")]
async fn failures_counted_before_redis_went_down_still_limit() {
    let mut redis = OwnRedis::start().await.unwrap();
    let mut env = Env::new().await.unwrap();
    env.redis_url = Some(redis.url());
    let server = Server::start(&env).await.unwrap();
    guesses(&server, "guesser", "198.51.100.1", USER_FAILURES).await;
    assert_limited(
        redeem(&server, GUESS, "guesser", "198.51.100.1").await,
        "limited through Redis",
    );
    redis.stop().await.unwrap();
    for attempt in 0..3 {
        assert_limited(
            redeem(&server, GUESS, "guesser", "198.51.100.1").await,
            &format!("Redis gone, attempt {attempt}: the process's own counts"),
        );
    }
}
