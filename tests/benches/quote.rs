//! The quote of a deep wallet (issue 46): one user holding 1,000 coupons of
//! each of 5 stackable templates (5,000 coupons) against, in the same run,
//! a user holding one coupon of each (the baseline: what the quote searches
//! either way, since an order takes at most one coupon of a template).
//! Sequential quotes over HTTP to a release `serve`; p50, p99 and max.
//!
//! `cargo build --release -p ledger -p workers && cargo bench -p tests --bench quote`
//! (BENCH_QUOTES=n, default 300; BENCH_COPIES=n copies a template, default 1,000).

use std::time::{Duration, Instant};

use serde_json::{Value, json};
use tests::shop::{fixed_off, order, template};
use tests::uploads::issue_text;
use tests::workers::Workers;
use tests::{Env, Server};

fn setting(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// The issue's five stackable templates (the 10 % rate, then four fixed).
async fn templates(server: &Server, copies: usize) -> Vec<String> {
    let discounts = [
        json!({"type": "rate", "rate_off": "0.10"}),
        fixed_off("0.00", "40.00"),
        fixed_off("0.00", "35.00"),
        fixed_off("100.00", "12.00"),
        fixed_off("0.00", "8.00"),
    ];
    let mut sns = Vec::new();
    for discount in discounts {
        let mut body = template("goods", discount, "stackable", "restore");
        body["face_value"] = json!("40.00");
        body["total"] = json!(10 * copies + 10);
        body["per_user_limit"] = json!(copies);
        sns.push(server.activate_template(&body).await.unwrap());
    }
    sns
}

/// `n` sequential quotes of a 400.00 order for `user`; their latencies.
async fn quotes(server: &Server, user: &str, n: usize) -> Vec<Duration> {
    let o = order("o-bench", user, &[("l1", 1, "400.00")], "0.00");
    let body = json!({"user_id": user, "order": o});
    let mut took = Vec::with_capacity(n);
    for _ in 0..n {
        let started = Instant::now();
        let (status, quote): (u16, Value) = server
            .service_post("/v1/orders/quote", &body)
            .await
            .unwrap();
        took.push(started.elapsed());
        assert_eq!(status, 200, "{quote}");
        assert_eq!(quote["best"]["discount"], "135.00", "{quote}");
    }
    took.sort_unstable();
    took
}

fn report(label: &str, took: &[Duration]) {
    let at = |p: f64| took[((took.len() as f64 * p) as usize).min(took.len() - 1)];
    println!(
        "{label:<32} p50 {:>7.2} ms  p99 {:>7.2} ms  max {:>7.2} ms  ({} quotes)",
        at(0.50).as_secs_f64() * 1e3,
        at(0.99).as_secs_f64() * 1e3,
        took[took.len() - 1].as_secs_f64() * 1e3,
        took.len()
    );
}

#[tokio::main]
async fn main() {
    let (n, copies) = (setting("BENCH_QUOTES", 300), setting("BENCH_COPIES", 1_000));
    let env = Env::new().await.unwrap();
    let server = Server::start(&env).await.unwrap();
    let sns = templates(&server, copies).await;
    let workers = Workers::start(&env, "relay,issuance").unwrap();
    for sn in &sns {
        let file = format!("one\n{}", "deep\n".repeat(copies));
        issue_text(&server, sn, file, Duration::from_secs(600)).await;
    }
    drop(workers);
    // Warm both (plans, caches) before timing.
    quotes(&server, "one", 20).await;
    quotes(&server, "deep", 20).await;
    let one = quotes(&server, "one", n).await;
    let deep = quotes(&server, "deep", n).await;
    report("baseline: 5 coupons (1 each)", &one);
    report(
        &format!("deep: {} coupons ({copies} each)", 5 * copies),
        &deep,
    );
    let ratio = deep[deep.len() / 2].as_secs_f64() / one[one.len() / 2].as_secs_f64();
    println!("deep / baseline p50: {ratio:.2}x; target: p99 under 50 ms at 5,000 coupons");
}
