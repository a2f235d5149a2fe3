//! Wrong bearer tokens limited per client address
//! (`ledger/src/api/auth/token_limit.rs`): two `ledger serve` on one Redis prefix
//! share the count, past it wrong tokens answer 429 with `Retry-After`, the
//! right token from the same address still passes at once, and
//! `couponledger_wrong_tokens_total` counts both answers.

use std::time::{Duration, Instant};

use reqwest::Method;
use tests::{Env, Server};

/// `ADDRESS_FAILURES` of `token_limit`.
const LIMIT: usize = 20;

/// A request with a wrong token: (status, Retry-After).
async fn wrong(server: &Server, path: &str) -> (u16, Option<u64>) {
    let r = server
        .http
        .get(server.url(path))
        .bearer_auth("not-the-token")
        .send()
        .await
        .unwrap();
    let retry_after = r
        .headers()
        .get("retry-after")
        .map(|v| v.to_str().unwrap().parse().unwrap());
    (r.status().as_u16(), retry_after)
}

/// The value of `couponledger_wrong_tokens_total{answer=...}` on `server`.
async fn counted(server: &Server, answer: &str) -> u64 {
    let text = server.metrics().await.unwrap();
    let series = format!("couponledger_wrong_tokens_total{{answer=\"{answer}\"}} ");
    text.lines()
        .find_map(|l| l.strip_prefix(&series))
        .unwrap_or_else(|| panic!("no {series} in /metrics"))
        .trim()
        .parse()
        .unwrap()
}

#[tokio::test(flavor = "multi_thread")]
async fn wrong_tokens_are_limited_across_servers_and_the_right_one_still_passes() {
    let env = Env::new().await.unwrap();
    let (a, b) = (
        Server::start(&env).await.unwrap(),
        Server::start(&env).await.unwrap(),
    );
    // Admin and service routes alike; half on each server.
    for i in 0..LIMIT {
        let (server, path) = match i % 2 {
            0 => (&a, "/v1/templates"),
            _ => (&b, "/v1/users/u1/coupons"),
        };
        assert_eq!(wrong(server, path).await.0, 403, "wrong token {i}");
    }
    for (server, name) in [(&a, "a"), (&b, "b")] {
        let (status, retry_after) = wrong(server, "/v1/templates").await;
        assert_eq!(status, 429, "past the limit on {name}");
        let secs = retry_after.unwrap_or_else(|| panic!("{name}: no Retry-After"));
        assert!((1..=60).contains(&secs), "{name}: Retry-After {secs}");
    }

    // The right tokens, from the same address, at once.
    for server in [&a, &b] {
        let started = Instant::now();
        let r = server
            .admin(Method::GET, "/v1/templates")
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), 200);
        let r = server
            .service(Method::GET, "/v1/users/u1/coupons")
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), 200);
        let took = started.elapsed();
        assert!(took < Duration::from_millis(500), "not delayed: {took:?}");
    }

    assert_eq!(counted(&a, "forbidden").await, LIMIT as u64 / 2);
    assert_eq!(counted(&a, "limited").await, 1);
    assert_eq!(counted(&b, "limited").await, 1);
}
