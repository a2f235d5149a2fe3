//! `GET /v1/templates/{sn}/history` (the console's chart): a template's
//! coupons counted by issue time, each bucket split by what has become of
//! them; every bucket of the range answered, zeros included; bad input 400,
//! an unknown template 404 naming it, admin only.

use chrono::{DateTime, Duration, DurationRound, Utc};
use reqwest::Method;
use serde_json::{Value, json};
use tests::scenario::{checkout, claim_many};
use tests::{Env, Server};

async fn history(server: &Server, sn: &str, query: &str) -> (u16, Value) {
    let path = format!("/v1/templates/{sn}/history?{query}");
    let r = server.admin(Method::GET, &path).send().await.unwrap();
    (r.status().as_u16(), r.json().await.unwrap_or(Value::Null))
}

fn instant(v: &Value) -> DateTime<Utc> {
    DateTime::parse_from_rfc3339(v.as_str().unwrap())
        .unwrap()
        .to_utc()
}

/// The sum of `field` over the answer's buckets.
fn total(answer: &Value, field: &str) -> i64 {
    let buckets = answer["buckets"].as_array().unwrap();
    buckets.iter().map(|b| b[field].as_i64().unwrap()).sum()
}

fn encoded(t: DateTime<Utc>) -> String {
    t.to_rfc3339_opts(chrono::SecondsFormat::Secs, true)
        .replace('+', "%2B")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn history_counts_coupons_by_issue_time_and_what_became_of_them() {
    let env = Env::new().await.unwrap();
    let server = Server::start(&env).await.unwrap();
    let sn = server.active_template(100, 1).await.unwrap();
    // Seven coupons (users u0..u6), one used and two voided.
    let coupons = claim_many(&env, &sn, 0..7, 7).await.unwrap();
    checkout(&server, "u0", coupons[0], true).await.unwrap();
    for id in &coupons[1..3] {
        let (status, body) = server
            .admin_post(&format!("/v1/coupons/{id}/void"), &json!({}))
            .await
            .unwrap();
        assert_eq!(status, 200, "{body}");
    }

    let (status, minutes) = history(&server, &sn, "bucket=minute").await;
    assert_eq!(status, 200, "{minutes}");
    assert_eq!(
        (minutes["bucket"].as_str(), minutes["template_sn"].as_str()),
        (Some("minute"), Some(sn.as_str()))
    );
    let counts = [
        "issued", "unused", "used", "void", "locked", "refunded", "expired",
    ];
    let got: Vec<i64> = counts.iter().map(|f| total(&minutes, f)).collect();
    assert_eq!(got, [7, 4, 1, 2, 0, 0, 0], "{counts:?}: {minutes}");
    // Buckets one minute apart from `from` on, each adding up to what it issued.
    let buckets = minutes["buckets"].as_array().unwrap();
    assert_eq!(instant(&buckets[0]["start"]), instant(&minutes["from"]));
    for (i, b) in buckets.iter().enumerate() {
        let start = instant(&b["start"]);
        assert_eq!(
            start,
            instant(&minutes["from"]) + Duration::minutes(i as i64),
            "{b}"
        );
        let parts: i64 = counts[1..].iter().map(|f| b[f].as_i64().unwrap()).sum();
        assert_eq!(parts, b["issued"].as_i64().unwrap(), "{b}");
    }
    assert!(instant(&minutes["to"]) > instant(&buckets[buckets.len() - 1]["start"]));

    // A range of one day, as one business day bucket (or two across midnight).
    let now = Utc::now();
    let query = format!(
        "bucket=day&from={}&to={}",
        encoded(now - Duration::hours(1)),
        encoded(now + Duration::minutes(1))
    );
    let (status, days) = history(&server, &sn, &query).await;
    assert_eq!(status, 200, "{days}");
    assert!(
        (1..=2).contains(&days["buckets"].as_array().unwrap().len()),
        "{days}"
    );
    assert_eq!(
        (total(&days, "issued"), total(&days, "used")),
        (7, 1),
        "{days}"
    );

    // Before the coupons: every bucket there, all zeros.
    let earlier = (now - Duration::days(2))
        .duration_trunc(Duration::hours(1))
        .unwrap();
    let query = format!(
        "bucket=hour&from={}&to={}",
        encoded(earlier),
        encoded(earlier + Duration::hours(3))
    );
    let (status, quiet) = history(&server, &sn, &query).await;
    assert_eq!(status, 200, "{quiet}");
    assert_eq!(quiet["buckets"].as_array().unwrap().len(), 3, "{quiet}");
    assert_eq!(total(&quiet, "issued"), 0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bad_ranges_are_400_an_unknown_template_404_and_only_admins_may_ask() {
    let env = Env::new().await.unwrap();
    let server = Server::start(&env).await.unwrap();
    let sn = server.active_template(10, 1).await.unwrap();
    let now = Utc::now();
    let bad = [
        ("bucket=week".to_owned(), "bucket"),
        ("from=yesterday".to_owned(), "from"),
        ("to=2026-12-31T23:59:60Z".to_owned(), "to"),
        (
            format!(
                "from={}&to={}",
                encoded(now),
                encoded(now - Duration::hours(1))
            ),
            "from",
        ),
        // Two days by the minute: 2,880 buckets, over the bound of 1,500.
        (
            format!("bucket=minute&from={}", encoded(now - Duration::days(2))),
            "1500",
        ),
        ("colour=red".to_owned(), "colour"),
    ];
    for (query, named) in bad {
        let (status, body) = history(&server, &sn, &query).await;
        assert_eq!(status, 400, "{query}: {body}");
        let message = body["error"]["message"].as_str().unwrap();
        assert!(message.contains(named), "{query}: {message}");
    }

    let unknown = "ZZZZZZZZZZZZZZZZZZZZ";
    let (status, body) = history(&server, unknown, "bucket=hour").await;
    assert_eq!(status, 404, "{body}");
    assert_eq!(
        body["error"]["message"],
        format!("template {unknown} not found")
    );

    let path = format!("/v1/templates/{sn}/history");
    let anonymous = server.http.get(server.url(&path)).send().await.unwrap();
    assert_eq!(anonymous.status().as_u16(), 401);
    let service = server.service(Method::GET, &path).send().await.unwrap();
    assert_eq!(service.status().as_u16(), 403);
}
