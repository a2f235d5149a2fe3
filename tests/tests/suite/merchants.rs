//! Merchants (docs/design.md §19; seed 002's 商家侧): a merchant creates and
//! issues its own shop's coupons and reads their figures; a template,
//! package, code batch, job or report of another shop is 403 `shop_scope`,
//! and lists show its shops' only.

use std::time::Duration;

use reqwest::Method;
use serde_json::{Value, json};
use tests::access::call;
use tests::uploads::{users_file, wait_done};
use tests::workers::Workers;
use tests::{Env, Server, template_body};

const OPERATORS: &str = "ma:t-ma:merchant:shop-a, mb:t-mb:merchant:shop-b|shop-c";

fn assert_shop_scope(what: &str, (status, body): &(u16, Value)) {
    assert_eq!(*status, 403, "{what}: {body}");
    assert_eq!(body["error"]["code"], "shop_scope", "{what}: {body}");
}

/// Shop B's template (activated), a package of it, a code batch and a job.
async fn shop_b(server: &Server) -> (String, String, String, String) {
    let mut body = template_body(100, 5);
    body["shop_id"] = json!("shop-b");
    let sn = server.activate_template(&body).await.unwrap();
    let now = chrono::Utc::now();
    let package = json!({"name": "b", "total": 5, "per_user_limit": 1,
        "items": [{"template_sn": sn, "count": 1}],
        "issue_window": {"begin": now, "end": now + chrono::Duration::days(1)}});
    let (status, package) = server.admin_post("/v1/packages", &package).await.unwrap();
    assert_eq!(status, 201, "{package}");
    let batch = json!({"template_sn": sn, "count": 2});
    let (status, batch) = server.admin_post("/v1/code-batches", &batch).await.unwrap();
    assert_eq!(status, 201, "{batch}");
    let (status, job) = tests::uploads::upload(server, &sn, users_file(0..3), &[]).await;
    assert_eq!(status, 202, "{job}");
    let id = |v: &Value, k: &str| v[k].as_str().unwrap().to_owned();
    (sn, id(&package, "sn"), id(&batch, "id"), id(&job, "job_id"))
}

#[tokio::test(flavor = "multi_thread")]
async fn a_merchant_runs_its_shop_and_nothing_of_another() {
    let env = Env::new().await.unwrap();
    let server = Server::start_with(&env, &[("LEDGER_ADMIN_TOKENS", OPERATORS)])
        .await
        .unwrap();
    let workers = Workers::start(&env, "issuance").unwrap();
    let ma = |method: Method, path: String, body: Option<Value>| {
        let server = &server;
        async move { call(server, "t-ma", method, &path, body.as_ref()).await }
    };
    // Created without a shop: forced to its own; another's is refused.
    let (status, mine) = ma(
        Method::POST,
        "/v1/templates".into(),
        Some(template_body(100, 5)),
    )
    .await;
    assert_eq!(
        (status, &mine["shop_id"]),
        (201, &json!("shop-a")),
        "{mine}"
    );
    let sn = mine["sn"].as_str().unwrap().to_owned();
    let mut theirs = template_body(10, 1);
    theirs["shop_id"] = json!("shop-b");
    assert_shop_scope(
        "create in shop-b",
        &ma(Method::POST, "/v1/templates".into(), Some(theirs)).await,
    );
    let several = call(
        &server,
        "t-mb",
        Method::POST,
        "/v1/templates",
        Some(&template_body(1, 1)),
    )
    .await;
    assert_eq!(
        several.0, 400,
        "a merchant of two shops names one: {}",
        several.1
    );
    // It issues its template by upload and reads its figures.
    assert_eq!(
        ma(Method::POST, format!("/v1/templates/{sn}/activate"), None)
            .await
            .0,
        200
    );
    let upload = server
        .http
        .post(server.url(&format!("/v1/issuance-jobs?template={sn}")))
        .bearer_auth("t-ma")
        .body(users_file(0..20))
        .send()
        .await
        .unwrap();
    assert_eq!(upload.status(), 202);
    let job: Value = upload.json().await.unwrap();
    let job_id = job["job_id"].as_str().unwrap().to_owned();
    wait_done(&server, &job_id, Duration::from_secs(60)).await;
    let (status, stats) = ma(Method::GET, format!("/v1/templates/{sn}/stats"), None).await;
    assert_eq!(status, 200, "{stats}");
    // Shop B's things, made by the admin.
    let (b_sn, b_package, b_batch, b_job) = shop_b(&server).await;
    wait_done(&server, &b_job, Duration::from_secs(60)).await;
    let (status, report) = ma(Method::GET, "/v1/reports/liability?as_of=now".into(), None).await;
    assert_eq!(status, 200, "{report}");
    let text = report.to_string();
    assert!(
        text.contains(&sn) && !text.contains(&b_sn),
        "its templates only: {report}"
    );
    let refused = [
        (Method::GET, format!("/v1/templates/{b_sn}")),
        (Method::PATCH, format!("/v1/templates/{b_sn}")),
        (Method::POST, format!("/v1/templates/{b_sn}/stop")),
        (Method::GET, format!("/v1/templates/{b_sn}/stats")),
        (
            Method::POST,
            format!("/v1/templates/{b_sn}/allow-list?mode=add"),
        ),
        (Method::GET, format!("/v1/packages/{b_package}")),
        (Method::POST, format!("/v1/packages/{b_package}/stop")),
        (Method::GET, format!("/v1/code-batches/{b_batch}")),
        (Method::GET, format!("/v1/code-batches/{b_batch}/codes")),
        (Method::GET, format!("/v1/issuance-jobs/{b_job}")),
        (Method::POST, format!("/v1/issuance-jobs/{b_job}/cancel")),
    ];
    for (method, path) in refused {
        let what = format!("{method} {path}");
        assert_shop_scope(&what, &ma(method, path, Some(json!({"name": "x"}))).await);
    }
    let batch = json!({"template_sn": b_sn, "count": 1});
    assert_shop_scope(
        "a batch of shop-b",
        &ma(Method::POST, "/v1/code-batches".into(), Some(batch)).await,
    );
    let upload = server
        .http
        .post(server.url(&format!("/v1/issuance-jobs?template={b_sn}")))
        .bearer_auth("t-ma")
        .body(users_file(0..2))
        .send()
        .await
        .unwrap();
    assert_eq!(upload.status(), 403, "an upload for shop-b");
    // Lists: its shop's only.
    for path in [
        "/v1/templates",
        "/v1/packages",
        "/v1/code-batches",
        "/v1/issuance-jobs",
    ] {
        let (status, list) = ma(Method::GET, path.into(), None).await;
        assert_eq!(status, 200, "{path}: {list}");
        let shown = list.to_string();
        for other in [&b_sn, &b_package, &b_batch, &b_job] {
            assert!(
                !shown.contains(other.as_str()),
                "{path} shows {other}: {list}"
            );
        }
    }
    let (_, jobs) = ma(Method::GET, "/v1/issuance-jobs".into(), None).await;
    assert!(
        jobs.to_string().contains(&job_id),
        "its own job is listed: {jobs}"
    );
    workers.terminate().await.unwrap();
}
