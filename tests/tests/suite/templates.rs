//! `GET /v1/templates`: pages of templates, newest first, with the total,
//! optionally of one status; bad paging or an unknown status is a 400.
//! A template's `rate_limit`: created, replaced and removed by PATCH, bad
//! ones refused naming the field, and rebuilt by `ledger replay`.

use std::time::Duration;

use reqwest::Method;
use serde_json::{Value, json};
use tests::workers::{Workers, assert_replay_verifies, projections_caught_up, replay_both_ways};
use tests::{Env, Server};

async fn list(server: &Server, query: &str) -> (u16, Value) {
    let r = server
        .admin(Method::GET, &format!("/v1/templates{query}"))
        .send()
        .await
        .unwrap();
    (r.status().as_u16(), r.json().await.unwrap())
}

fn names(page: &Value) -> Vec<String> {
    page["templates"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap().to_owned())
        .collect()
}

/// `t{i}` for the given creation indexes.
fn named(indexes: impl IntoIterator<Item = usize>) -> Vec<String> {
    indexes.into_iter().map(|i| format!("t{i:02}")).collect()
}

/// 30 templates `t00`..`t29`, created in that order; every third is activated.
async fn thirty(server: &Server) {
    for i in 0..30 {
        let mut body = tests::template_body(10, 1);
        body["name"] = json!(format!("t{i:02}"));
        let (status, created) = server.admin_post("/v1/templates", &body).await.unwrap();
        assert_eq!(status, 201, "{created}");
        if i % 3 == 0 {
            let sn = created["sn"].as_str().unwrap();
            let path = format!("/v1/templates/{sn}/activate");
            let (status, body) = server.admin_post(&path, &json!({})).await.unwrap();
            assert_eq!(status, 200, "{body}");
        }
    }
}

#[tokio::test]
async fn templates_are_listed_newest_first_paged_and_filtered() {
    let env = Env::new().await.unwrap();
    let server = Server::start(&env).await.unwrap();
    thirty(&server).await;

    let (status, page) = list(&server, "").await;
    assert_eq!(status, 200, "{page}");
    assert_eq!(
        (&page["total"], &page["offset"], &page["limit"]),
        (&json!(30), &json!(0), &json!(50))
    );
    assert_eq!(names(&page), named((0..30).rev()), "newest first");
    let first = &page["templates"][0];
    assert!(first["sn"].is_string() && first["discount"]["type"] == "fixed_off");

    let (status, page) = list(&server, "?offset=10&limit=7").await;
    assert_eq!(status, 200, "{page}");
    assert_eq!(
        (&page["total"], &page["offset"], &page["limit"]),
        (&json!(30), &json!(10), &json!(7))
    );
    assert_eq!(names(&page), named((13..20).rev()));

    let (_, page) = list(&server, "?offset=28&limit=5").await;
    assert_eq!(names(&page), named([1, 0]), "the last page is short");
    let (_, page) = list(&server, "?offset=30").await;
    assert_eq!(names(&page), Vec::<String>::new());
    assert_eq!(page["total"], 30);

    let (status, page) = list(&server, "?status=active").await;
    assert_eq!(status, 200, "{page}");
    assert_eq!(page["total"], 10);
    assert_eq!(names(&page), named((0..30).rev().filter(|i| i % 3 == 0)));
    assert!(
        page["templates"]
            .as_array()
            .unwrap()
            .iter()
            .all(|t| t["status"] == "active")
    );

    let (_, page) = list(&server, "?status=draft&offset=2&limit=3").await;
    assert_eq!(page["total"], 20);
    assert_eq!(names(&page), named([26, 25, 23]));

    let (_, page) = list(&server, "?status=void").await;
    assert_eq!((&page["total"], names(&page).len()), (&json!(0), 0));
}

#[tokio::test]
async fn bad_listing_queries_are_refused_naming_the_field() {
    let env = Env::new().await.unwrap();
    let server = Server::start(&env).await.unwrap();
    for (query, field) in [
        ("?status=bogus", "status"),
        ("?status=ACTIVE", "status"),
        ("?limit=0", "limit"),
        ("?limit=201", "limit"),
        ("?offset=-1", "offset"),
        ("?limit=ten", "limit"),
        ("?colour=blue", "colour"),
    ] {
        let (status, body) = list(&server, query).await;
        assert_eq!(status, 400, "{query}: {body}");
        let message = body["error"]["message"].as_str().unwrap();
        assert!(message.contains(field), "{query}: {message}");
    }
    let (status, page) = list(&server, "?limit=200").await;
    assert_eq!((status, &page["limit"]), (200, &json!(200)));
    let r = server
        .service(Method::GET, "/v1/templates")
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 403, "listing templates is for admins");
}

async fn read(server: &Server, sn: &str) -> Value {
    let r = server
        .admin(Method::GET, &format!("/v1/templates/{sn}"))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200);
    r.json().await.unwrap()
}

async fn patch(server: &Server, sn: &str, body: &Value) -> (u16, Value) {
    server.patch_template(sn, body).await.unwrap()
}

/// A template from the test body with `rate_limit` set as given.
async fn create_limited(server: &Server, rate_limit: Value) -> (u16, Value) {
    let mut body = tests::template_body(10, 1);
    body["rate_limit"] = rate_limit;
    server.admin_post("/v1/templates", &body).await.unwrap()
}

/// The events of the template's stream.
async fn event_count(env: &Env, sn: &str) -> i64 {
    let client = env.db.client().await.unwrap();
    let sql = "SELECT count(*) FROM events WHERE stream_id = $1";
    let row = client
        .query_one(sql, &[&format!("template-{sn}")])
        .await
        .unwrap();
    row.get(0)
}

/// Bad limits and the text the 400 must hold: the field, as deep as known.
fn bad_limits() -> Vec<(Value, &'static str)> {
    let bucket =
        |per_second: Value, burst: Value| json!({"per_second": per_second, "burst": burst});
    vec![
        (
            json!({"per_user": bucket(json!(0), json!(1))}),
            "rate_limit: per_user.per_second must be 1 to 1000000",
        ),
        (
            json!({"per_channel": bucket(json!(5), json!(0))}),
            "rate_limit: per_channel.burst must be 1 to 1000000",
        ),
        (
            json!({"per_user": bucket(json!(1_000_001), json!(1))}),
            "rate_limit: per_user.per_second",
        ),
        (
            json!({"per_minute": bucket(json!(1), json!(1))}),
            "rate_limit",
        ),
        (
            json!({"per_user": {"per_second": 1, "burst": 1, "colour": "red"}}),
            "rate_limit.per_user",
        ),
        (json!("fast"), "rate_limit"),
        (json!([1, 2]), "rate_limit"),
        (
            json!({"per_user": bucket(json!("1"), json!(1))}),
            "rate_limit.per_user.per_second",
        ),
        (
            json!({"per_user": bucket(json!(-1), json!(1))}),
            "rate_limit.per_user.per_second",
        ),
        (
            json!({"per_user": {"per_second": 1}}),
            "rate_limit.per_user",
        ),
    ]
}

fn assert_refused(status: u16, answer: &Value, bad: &Value, expected: &str) {
    assert_eq!(status, 400, "{bad}: {answer}");
    let message = answer["error"]["message"].as_str().unwrap_or_default();
    assert!(message.contains(expected), "{bad}: {message}");
    if expected.starts_with("rate_limit: ") {
        assert_eq!(answer["error"]["code"], "invalid_field", "{bad}: {answer}");
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn a_rate_limit_is_created_replaced_removed_and_replayed() {
    let env = Env::new().await.unwrap();
    let server = Server::start(&env).await.unwrap();
    let workers = Workers::start(&env, "relay,balances,template_stats").unwrap();
    let limit = json!({
        "per_channel": {"per_second": 500, "burst": 1000},
        "per_user": {"per_second": 1, "burst": 2}
    });
    let (status, created) = create_limited(&server, limit.clone()).await;
    assert_eq!(status, 201, "{created}");
    assert_eq!(created["rate_limit"], limit);
    let sn = created["sn"].as_str().unwrap().to_owned();
    assert_eq!(read(&server, &sn).await["rate_limit"], limit);
    let client = env.db.client().await.unwrap();
    let stored = ledger::queries::templates::rate_limit(&client, &sn)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(serde_json::to_value(stored).unwrap(), limit);

    // A PATCH replaces the whole limit: a bucket left out is no limit.
    let per_user = json!({"per_user": {"per_second": 5, "burst": 10}});
    let (status, view) = patch(&server, &sn, &json!({"rate_limit": per_user})).await;
    assert_eq!(status, 200, "{view}");
    assert_eq!(view["rate_limit"], per_user);
    assert_eq!(view["name"], "test: 20 off 100", "the name stays");

    let before = (read(&server, &sn).await, event_count(&env, &sn).await);
    for (bad, expected) in bad_limits() {
        let (status, answer) = patch(&server, &sn, &json!({"rate_limit": bad})).await;
        assert_refused(status, &answer, &bad, expected);
        let (status, answer) = create_limited(&server, bad.clone()).await;
        assert_refused(status, &answer, &bad, expected);
    }
    let after = (read(&server, &sn).await, event_count(&env, &sn).await);
    assert_eq!(after, before, "a refused PATCH changes nothing");
    let (status, page) = list(&server, "").await;
    assert_eq!(
        (status, &page["total"]),
        (200, &json!(1)),
        "nor does a POST"
    );

    let (status, view) = patch(&server, &sn, &json!({"rate_limit": null})).await;
    assert_eq!(status, 200, "{view}");
    assert!(view["rate_limit"].is_null(), "{view}");
    assert!(
        ledger::queries::templates::rate_limit(&client, &sn)
            .await
            .unwrap()
            .is_none()
    );
    // A clear of the reminder replays as a clear too.
    let (status, view) = patch(&server, &sn, &json!({"remind_days_before": null})).await;
    assert_eq!(status, 200, "{view}");

    // Without a limit, or with one that has no bucket: none.
    for none in [json!(null), json!({})] {
        let (status, other) = create_limited(&server, none.clone()).await;
        assert_eq!(status, 201, "{none}: {other}");
        assert!(other["rate_limit"].is_null(), "{none}: {other}");
    }
    let (status, other) = server
        .admin_post("/v1/templates", &tests::template_body(10, 1))
        .await
        .unwrap();
    assert_eq!(status, 201, "{other}");
    let other_sn = other["sn"].as_str().unwrap();
    let (status, view) = patch(&server, other_sn, &json!({"rate_limit": limit})).await;
    assert_eq!((status, &view["rate_limit"]), (200, &limit), "{view}");

    projections_caught_up(&env, Duration::from_secs(30))
        .await
        .unwrap();
    workers.terminate().await.unwrap();
    assert_replay_verifies(&env).await;

    client
        .execute(
            "UPDATE templates SET rate_limit = '{\"per_user\": {\"per_second\": 9, \"burst\": 9}}'
              WHERE sn = $1",
            &[&sn],
        )
        .await
        .unwrap();
    let (code, stdout) = replay_both_ways(&env, &["replay", "--verify"]).await;
    assert_eq!(code, Some(1), "{stdout}");
    let expected = format!("templates \"{sn}\" rate_limit: live {{\"per_user\":");
    assert!(
        stdout.contains(&expected),
        "missing {expected:?} in\n{stdout}"
    );
}
