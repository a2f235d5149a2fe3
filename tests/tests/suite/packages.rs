//! Coupon packages against real Postgres (docs/design.md §13): all the package's
//! coupons or none (a sold-out item leaves every counter as it was), the
//! package's quota and per-user limit under many concurrent clients,
//! offline claims by a package's code, and `ledger replay --verify`.

use std::sync::Arc;

use serde_json::{Value, json};
use tests::codes::{batch, codes_of, redeem};
use tests::packages::{claim, issued, package, package_for, window};
use tests::workers::assert_verifies_once_caught_up;
use tests::{Env, Server};

#[tokio::test(flavor = "multi_thread")]
async fn a_package_gives_all_its_coupons_or_none() {
    let env = Env::new().await.unwrap();
    let server = Server::start(&env).await.unwrap();
    let a = server.active_template(100, 5).await.unwrap();
    let b = server.active_template(3, 5).await.unwrap();
    let c = server.active_template(100, 5).await.unwrap();
    let channel = server.channel_for(&a).await.unwrap();
    let sn = package_for(&server, &[&channel], &[(&a, 1), (&b, 2), (&c, 1)], 10, 1).await;

    let (status, got) = claim(&server, &channel, &sn, "ann").await;
    assert_eq!(status, 201, "{got}");
    let templates: Vec<&str> = got["coupons"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["template_sn"].as_str().unwrap())
        .collect();
    assert_eq!(templates, [a.as_str(), b.as_str(), b.as_str(), c.as_str()]);
    let (status, again) = claim(&server, &channel, &sn, "ann").await;
    assert_eq!(
        (status, again["error"]["code"].clone()),
        (409, json!("per_user_limit"))
    );

    // The second item's template has 1 left of the 2 a package needs.
    let before = issued(&env, &[&a, &b, &c]).await;
    assert_eq!(before, [(1, 1), (2, 2), (1, 1)]);
    let (status, refused) = claim(&server, &channel, &sn, "bob").await;
    assert_eq!(status, 410, "{refused}");
    assert_eq!(issued(&env, &[&a, &b, &c]).await, before, "nothing issued");
    let (_, p) = server
        .admin_post("/v1/packages/x/activate", &json!({}))
        .await
        .unwrap();
    assert_eq!(p["error"]["code"], "not_found");
    let r = server
        .admin(reqwest::Method::GET, &format!("/v1/packages/{sn}"))
        .send()
        .await
        .unwrap();
    let p: Value = r.json().await.unwrap();
    assert_eq!(p["claimed"], 1, "the package's counter is unchanged");
    let client = env.db.client().await.unwrap();
    let claims: i64 = client
        .query_one(
            "SELECT count(*) FROM events WHERE event_type = 'PackageClaimed'",
            &[],
        )
        .await
        .unwrap()
        .get(0);
    assert_eq!(claims, 1);

    // Stopped: 422.
    server
        .admin_post(&format!("/v1/packages/{sn}/stop"), &json!({}))
        .await
        .unwrap();
    let (status, _) = claim(&server, &channel, &sn, "cyd").await;
    assert_eq!(status, 422);
    assert_verifies_once_caught_up(&env).await;
}

#[tokio::test(flavor = "multi_thread")]
async fn concurrent_claims_never_pass_the_packages_quota() {
    let env = Env::new().await.unwrap();
    let server = Arc::new(Server::start(&env).await.unwrap());
    let a = server.active_template(1_000, 2).await.unwrap();
    let b = server.active_template(1_000, 2).await.unwrap();
    let channel = Arc::new(server.channel_for(&a).await.unwrap());
    let sn = package_for(&server, &[channel.as_ref()], &[(&a, 2), (&b, 1)], 20, 1).await;
    let mut tasks = tokio::task::JoinSet::new();
    for i in 0..60 {
        let (server, channel, sn) = (server.clone(), channel.clone(), sn.clone());
        // 50 users, the first 10 asking twice.
        tasks.spawn(async move {
            claim(&server, &channel, &sn, &format!("u{}", i % 50))
                .await
                .0
        });
    }
    let mut won = 0;
    while let Some(status) = tasks.join_next().await {
        let status = status.unwrap();
        assert!([201, 409, 410].contains(&status), "{status}");
        won += usize::from(status == 201);
    }
    assert_eq!(won, 20, "exactly the package's total");
    assert_eq!(issued(&env, &[&a, &b]).await, [(40, 40), (20, 20)]);
    let client = env.db.client().await.unwrap();
    let twice: i64 = client
        .query_one(
            "SELECT count(*) FROM (SELECT user_id FROM coupons WHERE template_sn = $1
               GROUP BY user_id HAVING count(*) > 2) AS over",
            &[&a],
        )
        .await
        .unwrap()
        .get(0);
    assert_eq!(twice, 0, "no user claimed the package twice");
    assert_verifies_once_caught_up(&env).await;
}

#[tokio::test(flavor = "multi_thread")]
async fn a_packages_code_gives_the_package_offline() {
    let env = Env::new().await.unwrap();
    let server = Server::start(&env).await.unwrap();
    let a = server.active_template(100, 5).await.unwrap();
    let b = server.active_template(100, 5).await.unwrap();
    let sn = package(&server, &[(&a, 1), (&b, 1)], 2, 1).await;
    let batch = batch(&server, json!({"package_sn": sn, "count": 3})).await;
    assert_eq!(batch["package_sn"], sn.as_str());
    let codes = codes_of(&server, &batch).await;
    let (status, got) = redeem(&server, &codes[0], "ann").await;
    assert_eq!(status, 201, "{got}");
    assert_eq!(got["coupons"].as_array().unwrap().len(), 2);
    assert_eq!(redeem(&server, &codes[1], "bob").await.0, 201);
    let (status, body) = redeem(&server, &codes[2], "cyd").await;
    assert_eq!(status, 410, "the package's total is 2: {body}");
    assert_eq!(issued(&env, &[&a, &b]).await, [(2, 2), (2, 2)]);
    assert_verifies_once_caught_up(&env).await;
}

#[tokio::test(flavor = "multi_thread")]
async fn bad_packages_are_refused_naming_the_field() {
    let env = Env::new().await.unwrap();
    let server = Server::start(&env).await.unwrap();
    let a = server.active_template(100, 1).await.unwrap();
    let void = server.active_template(100, 1).await.unwrap();
    let (status, _) = server
        .admin_post(&format!("/v1/templates/{void}/void"), &json!({}))
        .await
        .unwrap();
    assert_eq!(status, 200);
    let body = |items: Value| json!({"name": "p", "items": items, "total": 5, "per_user_limit": 1, "issue_window": window()});
    for (items, status, needle) in [
        (json!([]), 400, "items"),
        (
            json!([{"template_sn": a, "count": 0}]),
            400,
            "items[0].count",
        ),
        (
            json!([{"template_sn": a, "count": 10_001}]),
            400,
            "at most 10000",
        ),
        (json!([{"template_sn": void, "count": 1}]), 422, "is void"),
        (
            json!([{"template_sn": a, "count": 2}]),
            422,
            "lets a user hold 1",
        ),
    ] {
        let (got, answer) = server
            .admin_post("/v1/packages", &body(items))
            .await
            .unwrap();
        assert_eq!(got, status, "{answer}");
        let message = answer["error"]["message"].as_str().unwrap();
        assert!(message.contains(needle), "{message}");
    }
}

/// `GET /v1/packages` and `GET /v1/code-batches` (the console's lists):
/// newest first, paged, filtered; a bad filter is a 400 naming it.
#[tokio::test(flavor = "multi_thread")]
async fn packages_and_code_batches_are_listed_newest_first() {
    let env = Env::new().await.unwrap();
    let server = Server::start(&env).await.unwrap();
    let get = |path: &str| {
        let request = server.admin(reqwest::Method::GET, path);
        async move {
            let r = request.send().await.unwrap();
            (r.status().as_u16(), r.json::<Value>().await.unwrap())
        }
    };
    let field = |page: &Value, list: &str, key: &str| -> Vec<String> {
        let items = page[list].as_array().unwrap().iter();
        items.map(|p| p[key].as_str().unwrap().to_owned()).collect()
    };
    let a = server.active_template(100, 5).await.unwrap();
    let older = package(&server, &[(&a, 1)], 10, 1).await;
    let newer = package(&server, &[(&a, 2)], 20, 1).await;
    let (status, _) = server
        .admin_post(&format!("/v1/packages/{newer}/stop"), &json!({}))
        .await
        .unwrap();
    assert_eq!(status, 200);

    let (status, all) = get("/v1/packages").await;
    assert_eq!(status, 200, "{all}");
    assert_eq!(all["total"], 2);
    assert_eq!(
        field(&all, "packages", "sn"),
        [newer.as_str(), older.as_str()]
    );
    assert_eq!(field(&all, "packages", "status"), ["stopped", "active"]);
    assert_eq!(all["packages"][1]["claimed"], 0);
    assert_eq!(
        all["packages"][1]["items"],
        json!([{"template_sn": a, "count": 1}])
    );
    let (_, stopped) = get("/v1/packages?status=stopped").await;
    assert_eq!(field(&stopped, "packages", "sn"), [newer.as_str()]);
    let (_, second) = get("/v1/packages?offset=1&limit=1").await;
    assert_eq!(field(&second, "packages", "sn"), [older.as_str()]);
    assert_eq!(second["total"], 2, "the total counts every page");

    let body = |target: &str, sn: &str| json!({target: sn, "count": 5});
    let (_, of_template) = server
        .admin_post("/v1/code-batches", &body("template_sn", &a))
        .await
        .unwrap();
    let (status, of_package) = server
        .admin_post("/v1/code-batches", &body("package_sn", &older))
        .await
        .unwrap();
    assert_eq!(status, 201, "{of_package}");
    let stop = format!(
        "/v1/code-batches/{}/stop",
        of_template["id"].as_str().unwrap()
    );
    assert_eq!(server.admin_post(&stop, &json!({})).await.unwrap().0, 200);
    let ids = |batches: &[&Value]| -> Vec<String> {
        batches
            .iter()
            .map(|b| b["id"].as_str().unwrap().to_owned())
            .collect()
    };
    let (status, all) = get("/v1/code-batches").await;
    assert_eq!(status, 200, "{all}");
    assert_eq!(all["total"], 2);
    assert_eq!(
        field(&all, "batches", "id"),
        ids(&[&of_package, &of_template])
    );
    assert_eq!(field(&all, "batches", "status"), ["active", "stopped"]);
    assert_eq!(all["batches"][1]["redeemed"], 0);
    let (_, by_template) = get(&format!("/v1/code-batches?template_sn={a}")).await;
    assert_eq!(field(&by_template, "batches", "id"), ids(&[&of_template]));
    let (_, by_package) = get(&format!("/v1/code-batches?package_sn={older}")).await;
    assert_eq!(field(&by_package, "batches", "id"), ids(&[&of_package]));
    let (_, active) = get("/v1/code-batches?status=active").await;
    assert_eq!(field(&active, "batches", "id"), ids(&[&of_package]));

    for (path, named) in [
        ("/v1/packages?status=void", "status"),
        ("/v1/packages?limit=0", "limit"),
        ("/v1/code-batches?status=open", "status"),
        ("/v1/code-batches?template_sn=nope", "template_sn"),
        ("/v1/code-batches?offset=-1", "offset"),
    ] {
        let (status, answer) = get(path).await;
        assert_eq!(status, 400, "{path}: {answer}");
        let message = answer["error"]["message"].as_str().unwrap();
        assert!(message.starts_with(named), "{path}: {message}");
    }
}
