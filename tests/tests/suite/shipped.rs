//! What ships is what was tested, and nothing a user sends escapes
//! (issue 46): the shipped binary ignores a planted bug the test build
//! obeys; CSV exports are safe to open; the quote keeps one coupon per
//! template before its bound; and the small edges (instants past 9999, a
//! lowercase bearer scheme, 405 naming TRACE, `no-store`, bounded 404s).

use std::time::Duration;

use reqwest::Method;
use serde_json::{Value, json};
use tests::shop::{fixed_off, order, template};
use tests::uploads::issue_text;
use tests::workers::Workers;
use tests::{Channel, Env, Server, template_body};

/// Five claims by one user of a template limited to one per user, each
/// with its own Idempotency-Key (the path a planted `drop_quota_guard`
/// would open); their statuses.
async fn five_keyed_claims(server: &Server) -> Vec<u16> {
    let sn = server
        .activate_template(&template_body(100, 1))
        .await
        .unwrap();
    let channel: Channel = server.channel_for(&sn).await.unwrap();
    let mut statuses = Vec::new();
    for _ in 0..5 {
        let body = json!({"template_sn": sn, "user_id": "user-1"}).to_string();
        let nonce = uuid::Uuid::new_v4().to_string();
        let mut signed = channel.sign("POST", "/v1/claims", &body, &nonce);
        signed
            .headers
            .push(("Idempotency-Key", uuid::Uuid::new_v4().to_string()));
        let (status, _) = server.send_signed(signed, body).await.unwrap();
        statuses.push(status);
    }
    statuses
}

/// The shipped binary has no planted bugs to turn on: the variable a test
/// environment might leave behind changes nothing. The test run's own
/// binary obeys it, which is what the fault suite relies on.
#[tokio::test(flavor = "multi_thread")]
async fn a_planted_bug_changes_nothing_in_the_shipped_binary() {
    let planted = [("LEDGER_PLANTED_BUG", "drop_quota_guard")];
    let env = Env::new().await.unwrap();
    let shipped = Server::start_shipped(&env, &planted).await.unwrap();
    assert_eq!(five_keyed_claims(&shipped).await, [201, 409, 409, 409, 409]);
    drop(shipped);
    let test_build = Server::start_with(&env, &planted).await.unwrap();
    assert_eq!(
        five_keyed_claims(&test_build).await,
        [201, 201, 201, 201, 201],
        "the test build's planted bug is what the shipped one lacks"
    );
}

/// Users whose ids a spreadsheet would run as formulas are issued, and
/// the job's report and the liability report by shop carry them as text:
/// a `'` in front, which a reader drops (docs/reference/finance.md).
#[tokio::test(flavor = "multi_thread")]
async fn exports_carry_no_formula() {
    let env = Env::new().await.unwrap();
    let server = Server::start(&env).await.unwrap();
    let mut body = template_body(1_000, 1);
    body["shop_id"] = json!("=1+2");
    let sn = server.activate_template(&body).await.unwrap();
    let workers = Workers::start(&env, "relay,issuance").unwrap();
    let risky = [
        "=HYPERLINK(\"http://evil.example/x\",\"click\")",
        "+1+2",
        "-1+2",
        "@SUM(A1)",
    ];
    let mut file = risky.join("\n");
    file.push_str("\n=HYPERLINK(\"http://evil.example/x\",\"click\")\n");
    let done = issue_text(&server, &sn, file, Duration::from_secs(60)).await;
    assert_eq!(
        (done["issued"].as_i64(), done["over_limit"].as_i64()),
        (Some(4), Some(1)),
        "{done}"
    );
    let id = done["job_id"].as_str().unwrap().to_owned();
    let report = server
        .admin(
            Method::GET,
            &format!("/v1/issuance-jobs/{id}/report?all=true"),
        )
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    let mut reader = csv::ReaderBuilder::new().from_reader(report.as_bytes());
    let mut users = Vec::new();
    for record in reader.records() {
        let record = record.unwrap();
        let cell = &record[1];
        assert!(
            cell.starts_with('\''),
            "a neutralised cell: {cell:?} in {report}"
        );
        users.push(ledger::domain::csv_line::value(cell).to_owned());
    }
    assert_eq!(users.len(), 5, "{report}");
    for user in risky {
        assert!(
            users.iter().any(|u| u == user),
            "{user} recovered from {report}"
        );
    }
    drop(workers);
    let liability = server
        .admin(
            Method::GET,
            "/v1/reports/liability?as_of=now&by=shop&format=csv",
        )
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    assert!(liability.contains("\n'=1+2,4,"), "{liability}");
    assert!(!liability.contains("\n=1+2"), "{liability}");
}

/// Five stackable templates on a 400.00 order: the best is all five, the
/// 10 % rate first (40.00 + 40 + 35 + 12 + 8 = 135.00). Copies of each, a
/// thousand deep, change nothing: the search keeps one coupon a template.
#[tokio::test(flavor = "multi_thread")]
async fn the_quote_of_a_deep_wallet_is_the_best_of_its_templates() {
    let env = Env::new().await.unwrap();
    let server = Server::start(&env).await.unwrap();
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
        body["total"] = json!(10_000);
        body["per_user_limit"] = json!(1_000);
        sns.push(server.activate_template(&body).await.unwrap());
    }
    let workers = Workers::start(&env, "relay,issuance").unwrap();
    let o = order("o-deep", "deep", &[("l1", 1, "400.00")], "0.00");
    let mut held = 0;
    for each in [2, 20, 100, 1_000] {
        for sn in &sns {
            let file = "deep\n".repeat(each - held);
            issue_text(&server, sn, file, Duration::from_secs(120)).await;
        }
        held = each;
        let (status, quote) = server
            .service_post("/v1/orders/quote", &json!({"user_id": "deep", "order": o}))
            .await
            .unwrap();
        assert_eq!(status, 200, "{quote}");
        assert_eq!(
            quote["best"]["discount"], "135.00",
            "{} each: {quote}",
            each
        );
        assert_eq!(quote["best"]["coupon_ids"].as_array().unwrap().len(), 5);
        assert_eq!(
            quote["coupons"].as_array().unwrap().len(),
            5,
            "one a template"
        );
        assert_eq!(quote["truncated"], false);
    }
    drop(workers);
}

/// The small edges: each refused or answered as a client would expect.
#[tokio::test(flavor = "multi_thread")]
async fn the_small_edges_answer_as_documented() {
    let env = Env::new().await.unwrap();
    let server = Server::start(&env).await.unwrap();

    // An issue window past year 9999 is a 400 naming the field.
    let mut far = template_body(10, 1);
    far["issue_window"]["end"] = json!("+10000-01-01T00:00:00Z");
    let (status, body) = server.admin_post("/v1/templates", &far).await.unwrap();
    assert_eq!(status, 400, "{body}");
    let message = body["error"]["message"].as_str().unwrap();
    assert!(message.contains("issue_window.end"), "{message}");

    // The bearer scheme is case-insensitive (RFC 7235).
    for scheme in ["bearer", "BEARER", "Bearer"] {
        let r = server
            .http
            .get(server.url("/v1/templates"))
            .header("Authorization", format!("{scheme} {}", tests::ADMIN_TOKEN))
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), 200, "{scheme}");
    }

    // 405 names the method that came.
    let traced = server
        .http
        .request(Method::TRACE, server.url("/healthz"))
        .send()
        .await
        .unwrap();
    assert_eq!(traced.status(), 405);
    let traced: Value = traced.json().await.unwrap();
    assert!(
        traced["error"]["message"]
            .as_str()
            .unwrap()
            .ends_with("TRACE"),
        "{traced}"
    );

    // A secret shown once is never cached.
    let created = server
        .admin(Method::POST, "/v1/channels")
        .json(&json!({"name": "no-store"}))
        .send()
        .await
        .unwrap();
    assert_eq!(created.status(), 201);
    assert_eq!(created.headers()["cache-control"], "no-store");
    let id = created.json::<Value>().await.unwrap()["id"]
        .as_str()
        .unwrap()
        .to_owned();
    let rotated = server
        .admin(Method::POST, &format!("/v1/channels/{id}/secret"))
        .json(&json!({"overlap_secs": 0}))
        .send()
        .await
        .unwrap();
    assert_eq!(rotated.status(), 200);
    assert_eq!(rotated.headers()["cache-control"], "no-store");

    // A 404 quotes at most a bounded part of a huge id.
    let long = "x".repeat(10_000);
    for path in [
        format!("/v1/templates/{long}"),
        format!("/v1/issuance-jobs/{long}"),
        format!("/v1/coupons/{long}"),
        format!("/v1/users/{long}/coupons"),
        format!("/v1/templates/{long}/history"),
    ] {
        let r = server.admin(Method::GET, &path).send().await.unwrap();
        let status = r.status().as_u16();
        let text = r.text().await.unwrap();
        assert!((400..500).contains(&status), "{status} {}", &path[..40]);
        assert!(
            text.len() < 600,
            "{status} {}: {} bytes back: {}",
            &path[..30],
            text.len(),
            &text[..200]
        );
    }
}
