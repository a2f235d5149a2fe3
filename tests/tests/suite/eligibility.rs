//! Who may claim (docs/design.md §15) against real services: each rule of a
//! template's eligibility refuses a claim 403 `not_eligible` naming it, in
//! the flash path and written alone; an allow-list uploaded as a file
//! admits exactly its users among 2,000 concurrent claimers, through the
//! gate and with Redis stopped; the list's files, counts, errors and key;
//! redemptions, package claims (and package jobs) and bulk issuance apply
//! it too; replay rebuilds the list.

use std::collections::HashSet;
use std::sync::Arc;

use serde_json::{Value, json};
use tests::codes::batch_codes;
use tests::own_redis::OwnRedis;
use tests::packages::{claim_body, finished, package_for};
use tests::scenario::holders;
use tests::uploads::{self, upload, upload_allow_list};
use tests::workers::{Workers, assert_verifies_once_caught_up, ledger};
use tests::{Channel, Env, Server, template_body};
use tokio::sync::Semaphore;

/// A template body with `eligibility`.
fn eligible_template(total: i64, eligibility: Value) -> Value {
    let mut body = template_body(total, 1);
    body["eligibility"] = eligibility;
    body
}

fn claim(sn: &str, user: &str, facts: Value) -> Value {
    let mut body = json!({"template_sn": sn, "user_id": user});
    for (k, v) in facts.as_object().unwrap() {
        body[k] = v.clone();
    }
    body
}

/// A claim with an `Idempotency-Key`: written alone, past the gate.
async fn claim_alone(server: &Server, channel: &Channel, body: &Value) -> (u16, Value) {
    let text = body.to_string();
    let signed = channel.sign(
        "POST",
        "/v1/claims",
        &text,
        &uuid::Uuid::new_v4().to_string(),
    );
    let mut req = server.http.post(server.url("/v1/claims")).body(text);
    req = req.header("Content-Type", "application/json");
    for (name, value) in signed.headers {
        req = req.header(name, value);
    }
    let key = uuid::Uuid::new_v4().to_string();
    let r = req.header("Idempotency-Key", key).send().await.unwrap();
    (r.status().as_u16(), r.json().await.unwrap_or(Value::Null))
}

fn refused_by(answer: &(u16, Value), rule: &str) {
    assert_eq!(answer.0, 403, "{}", answer.1);
    assert_eq!(answer.1["error"]["code"], "not_eligible", "{}", answer.1);
    let message = answer.1["error"]["message"].as_str().unwrap();
    assert!(message.contains(&format!("({rule})")), "{message}");
}

#[tokio::test(flavor = "multi_thread")]
async fn each_rule_refuses_naming_itself_in_the_flash_path_and_alone() {
    let env = Env::new().await.unwrap();
    let server = Server::start(&env).await.unwrap();
    let rules = json!({"user_tags": {"all": ["vip", "gold"]}, "regions": ["310000", "110000"],
                       "new_users_only": true});
    let sn = server
        .activate_template(&eligible_template(100, rules.clone()))
        .await
        .unwrap();
    let channel = server.channel_for(&sn).await.unwrap();
    let (status, template) = server
        .admin(reqwest::Method::GET, &format!("/v1/templates/{sn}"))
        .send()
        .await
        .map(|r| (r.status().as_u16(), r))
        .unwrap();
    assert_eq!(status, 200);
    let template: Value = template.json().await.unwrap();
    let canonical = json!({"user_tags": {"all": ["gold", "vip"]}, "regions": ["110000", "310000"],
                           "new_users_only": true});
    assert_eq!(template["eligibility"], canonical, "sets, sorted");

    let ok = json!({"user_tags": ["gold", "vip", "x"], "region": "110000", "new_user": true});
    let cases = [
        (json!({}), "user_tags"),
        (
            json!({"user_tags": ["vip"], "region": "110000", "new_user": true}),
            "user_tags",
        ),
        (
            json!({"user_tags": ["vip", "gold"], "new_user": true}),
            "regions",
        ),
        (
            json!({"user_tags": ["vip", "gold"], "region": "440000", "new_user": true}),
            "regions",
        ),
        (
            json!({"user_tags": ["vip", "gold"], "region": "310000"}),
            "new_users_only",
        ),
        (
            json!({"user_tags": ["vip", "gold"], "region": "310000", "new_user": false}),
            "new_users_only",
        ),
    ];
    for (i, (facts, rule)) in cases.iter().enumerate() {
        let body = claim(&sn, &format!("u{i}"), facts.clone());
        refused_by(&server.claim_with(&channel, &body).await.unwrap(), rule);
        refused_by(&claim_alone(&server, &channel, &body).await, rule);
    }
    let (status, coupon) = server
        .claim_with(&channel, &claim(&sn, "u-ok", ok.clone()))
        .await
        .unwrap();
    assert_eq!(status, 201, "{coupon}");
    let (status, coupon) = claim_alone(&server, &channel, &claim(&sn, "u-ok2", ok)).await;
    assert_eq!(status, 201, "{coupon}");
    let held = holders(&env, &sn).await;
    let users: HashSet<&str> = held.keys().map(String::as_str).collect();
    assert_eq!(
        users,
        HashSet::from(["u-ok", "u-ok2"]),
        "only the eligible hold one"
    );
    assert_verifies_once_caught_up(&env).await;
}

#[tokio::test(flavor = "multi_thread")]
async fn bad_eligibility_and_facts_are_400s_naming_the_field() {
    let env = Env::new().await.unwrap();
    let server = Server::start(&env).await.unwrap();
    for (eligibility, field) in [
        (json!({"regions": [""]}), "eligibility.regions[0]"),
        (
            json!({"user_tags": {"any": []}}),
            "eligibility.user_tags.any",
        ),
        (
            json!({"user_tags": {"all": ["a"], "any": ["b"]}}),
            "eligibility",
        ),
        (
            json!({"regions": ["x".repeat(65)]}),
            "eligibility.regions[0]",
        ),
        (json!({"allow_lists": true}), "allow_lists"),
    ] {
        let body = eligible_template(10, eligibility.clone());
        let (status, answer) = server.admin_post("/v1/templates", &body).await.unwrap();
        assert_eq!(status, 400, "{eligibility}: {answer}");
        let message = answer["error"]["message"].as_str().unwrap();
        assert!(message.contains(field), "{eligibility}: {message}");
    }
    let sn = server.active_template(10, 1).await.unwrap();
    let channel = server.channel_for(&sn).await.unwrap();
    let tags: Vec<String> = (0..101).map(|i| format!("t{i}")).collect();
    for (facts, field) in [
        (json!({"user_tags": tags}), "user_tags"),
        (json!({"user_tags": [""]}), "user_tags[0]"),
        (json!({"region": ""}), "region"),
        (json!({"new_user": "yes"}), "new_user"),
    ] {
        let body = claim(&sn, "u1", facts.clone());
        let (status, answer) = server.claim_with(&channel, &body).await.unwrap();
        assert_eq!(status, 400, "{facts}: {answer}");
        let message = answer["error"]["message"].as_str().unwrap();
        assert!(message.contains(field), "{facts}: {message}");
    }
}

/// `fan-0` .. `fan-{n-1}`; the even ones are on the list.
fn fans(n: usize) -> Vec<String> {
    (0..n).map(|i| format!("fan-{i}")).collect()
}

fn listed(user: &str) -> bool {
    user.trim_start_matches("fan-").parse::<usize>().unwrap() % 2 == 0
}

fn list_file(users: &[String]) -> Vec<u8> {
    users
        .iter()
        .filter(|u| listed(u))
        .map(|u| format!("{u}\n"))
        .collect::<String>()
        .into_bytes()
}

/// 2,000 concurrent claims, one per user, half of them listed: exactly
/// the listed get a coupon, the others 403 `not_eligible`.
async fn allow_listed_sale(env: &Env, server: Arc<Server>) {
    const USERS: usize = 2_000;
    let body = eligible_template(5_000, json!({"allow_list": true}));
    let sn = server.activate_template(&body).await.unwrap();
    let channel = Arc::new(server.channel_for(&sn).await.unwrap());
    let users = fans(USERS);
    let (status, file) = upload_allow_list(&server, &sn, "add", list_file(&users), &[]).await;
    assert_eq!(status, 201, "{file}");
    assert_eq!(
        (file["valid"].as_i64(), file["changed"].as_i64()),
        (Some(1_000), Some(1_000))
    );
    let gate = Arc::new(Semaphore::new(400));
    let tasks: Vec<_> = users
        .into_iter()
        .map(|user| {
            let (server, channel, sn, gate) =
                (server.clone(), channel.clone(), sn.clone(), gate.clone());
            tokio::spawn(async move {
                let _permit = gate.acquire().await.unwrap();
                let answer = server.claim(&channel, &sn, &user).await.unwrap();
                (user, answer)
            })
        })
        .collect();
    for task in tasks {
        let (user, answer) = task.await.unwrap();
        if listed(&user) {
            assert_eq!(answer.0, 201, "{user}: {}", answer.1);
        } else {
            refused_by(&answer, "allow_list");
        }
    }
    let held = holders(env, &sn).await;
    assert_eq!(held.len(), 1_000);
    assert!(held.iter().all(|(u, n)| listed(u) && *n == 1));
    let client = env.db.client().await.unwrap();
    let issued: i64 = client
        .query_one("SELECT issued FROM templates WHERE sn = $1", &[&sn])
        .await
        .unwrap()
        .get(0);
    assert_eq!(
        issued, 1_000,
        "the quota counts only the listed users' coupons"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn two_thousand_concurrent_claimers_half_listed_through_the_gate() {
    let env = Env::new().await.unwrap();
    let server = Arc::new(Server::start(&env).await.unwrap());
    allow_listed_sale(&env, server).await;
    assert_verifies_once_caught_up(&env).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn two_thousand_concurrent_claimers_half_listed_with_redis_stopped() {
    let mut own = OwnRedis::start().await.unwrap();
    let mut env = Env::new().await.unwrap();
    env.redis_url = Some(own.url());
    let server = Arc::new(Server::start(&env).await.unwrap());
    own.stop().await.unwrap();
    allow_listed_sale(&env, server).await;
}

async fn list_view(server: &Server, sn: &str, query: &str) -> Value {
    let path = format!("/v1/templates/{sn}/allow-list{query}");
    let r = server
        .admin(reqwest::Method::GET, &path)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200);
    r.json().await.unwrap()
}

#[tokio::test(flavor = "multi_thread")]
async fn a_list_grows_and_shrinks_by_files_with_line_numbered_errors_and_keys() {
    let env = Env::new().await.unwrap();
    let server = Server::start(&env).await.unwrap();
    let sn = server.active_template(100, 1).await.unwrap();
    let file = b"\xEF\xBB\xBFa1\n\n  \na2\nbad user\na3\na1\n".to_vec();
    let key = [("Idempotency-Key", "list-1")];
    let (status, first) = upload_allow_list(&server, &sn, "add", file.clone(), &key).await;
    assert_eq!(status, 201, "{first}");
    let counts = |v: &Value| {
        ["lines_read", "blank", "invalid", "valid", "changed"].map(|k| v[k].as_i64().unwrap())
    };
    assert_eq!(counts(&first), [7, 2, 1, 4, 3], "{first}");
    assert_eq!(first["status"], "done");
    assert_eq!(first["operator"], "admin");
    assert_eq!(first["errors"][0]["line"], 5, "{first}");
    let view = list_view(&server, &sn, "?user_id=a2").await;
    assert_eq!(
        (view["members"].clone(), view["contains"].clone()),
        (json!(3), json!(true))
    );
    assert_eq!(
        view["enforced"], false,
        "the template does not apply it (yet)"
    );

    // The same key: the same file answers the first answer, another is 422.
    let (status, again) = upload_allow_list(&server, &sn, "add", file, &key).await;
    assert_eq!(
        (status, again["file_id"].clone()),
        (201, first["file_id"].clone())
    );
    let (status, other) = upload_allow_list(&server, &sn, "add", b"zz\n".to_vec(), &key).await;
    assert_eq!(
        (status, other["error"]["code"].clone()),
        (422, json!("different_file"))
    );

    let csv = b"user_id,name\na2,x\nnobody,y\n".to_vec();
    let (status, removed) =
        upload_allow_list(&server, &sn, "remove", csv, &[("Content-Type", "text/csv")]).await;
    assert_eq!(status, 201, "{removed}");
    assert_eq!(counts(&removed), [2, 0, 0, 2, 1], "only a2 was on the list");
    let view = list_view(&server, &sn, "?user_id=a2").await;
    assert_eq!(
        (view["members"].clone(), view["contains"].clone()),
        (json!(2), json!(false))
    );
    assert_eq!(view["files"].as_array().unwrap().len(), 2);

    for (mode, body, status, code) in [
        ("add", b"\n\n".to_vec(), 422, "empty_file"),
        ("drop", b"a9\n".to_vec(), 400, "bad_request"),
    ] {
        let (got, answer) = upload_allow_list(&server, &sn, mode, body, &[]).await;
        assert_eq!(
            (got, answer["error"]["code"].clone()),
            (status, json!(code)),
            "{answer}"
        );
    }
    let (status, _) =
        upload_allow_list(&server, "UNKNOWNSNUNKNOWNSN2", "add", b"a\n".to_vec(), &[]).await;
    assert_eq!(status, 404);

    // Only the ids a file changed are in its events, with the operator.
    let client = env.db.client().await.unwrap();
    let rows = client
        .query(
            "SELECT event_type, payload, metadata FROM events
              WHERE stream_id = $1 ORDER BY stream_version",
            &[&format!("allowlist-{sn}")],
        )
        .await
        .unwrap();
    let events: Vec<(String, Value)> = rows
        .iter()
        .map(|r| {
            (
                r.get::<_, String>(0),
                r.get::<_, Value>(1)["user_ids"].clone(),
            )
        })
        .collect();
    assert_eq!(
        events,
        vec![
            ("TemplateAllowListAdded".into(), json!(["a1", "a2", "a3"])),
            ("TemplateAllowListRemoved".into(), json!(["a2"])),
        ]
    );
    assert!(
        rows.iter()
            .all(|r| r.get::<_, Value>(2)["operator"] == "admin")
    );
    assert_verifies_once_caught_up(&env).await;

    // A member added by hand is named by replay.
    client
        .execute(
            "INSERT INTO template_allow_list (template_sn, user_id) VALUES ($1, 'mallory')",
            &[&sn],
        )
        .await
        .unwrap();
    let out = ledger(&env, &["replay", "--verify"]).await.unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{stdout}");
    assert!(stdout.contains("allow_lists"), "{stdout}");
}

#[tokio::test(flavor = "multi_thread")]
async fn redemptions_and_package_claims_apply_the_item_templates_eligibility() {
    let env = Env::new().await.unwrap();
    let server = Server::start(&env).await.unwrap();
    let listed_sn = server
        .activate_template(&eligible_template(100, json!({"allow_list": true})))
        .await
        .unwrap();
    let mut vip = eligible_template(1_000, json!({"user_tags": {"any": ["vip"]}}));
    vip["per_user_limit"] = json!(200);
    let vip_sn = server.activate_template(&vip).await.unwrap();
    let (status, _) =
        upload_allow_list(&server, &listed_sn, "add", b"in-1\nin-2\n".to_vec(), &[]).await;
    assert_eq!(status, 201);

    // A one-use code refused to an unlisted user stays usable.
    let codes = batch_codes(&server, json!({"template_sn": listed_sn, "count": 2})).await;
    let redeem = |code: &str, user: &str, facts: Value| {
        let mut body = json!({"code": code, "user_id": user});
        for (k, v) in facts.as_object().unwrap() {
            body[k] = v.clone();
        }
        body
    };
    let (status, answer) = server
        .service_post("/v1/redemptions", &redeem(&codes[0], "out-1", json!({})))
        .await
        .unwrap();
    refused_by(&(status, answer), "allow_list");
    let (status, answer) = server
        .service_post("/v1/redemptions", &redeem(&codes[0], "in-1", json!({})))
        .await
        .unwrap();
    assert_eq!(status, 201, "{answer}");

    // A package: every item's template must admit the user.
    let channel = server.channel_for(&vip_sn).await.unwrap();
    let small = package_for(
        &server,
        &[&channel],
        &[(&vip_sn, 1), (&listed_sn, 1)],
        10,
        1,
    )
    .await;
    let body = |user: &str, facts: Value| {
        let mut b = json!({"user_id": user});
        for (k, v) in facts.as_object().unwrap() {
            b[k] = v.clone();
        }
        b
    };
    let vip = json!({"user_tags": ["vip"]});
    let answer = claim_body(&server, &channel, &small, &body("in-2", json!({})), None).await;
    refused_by(&answer, "user_tags");
    let answer = claim_body(&server, &channel, &small, &body("out-2", vip.clone()), None).await;
    refused_by(&answer, "allow_list");
    let (status, claimed) =
        claim_body(&server, &channel, &small, &body("in-2", vip.clone()), None).await;
    assert_eq!(status, 201, "{claimed}");

    // A large package runs as a job, and its request takes every count
    // first (docs/design.md §13): an ineligible user is refused there,
    // before any job; an eligible one's job ends with its coupons.
    let large = package_for(&server, &[&channel], &[(&vip_sn, 150)], 10, 1).await;
    let workers = Workers::start(&env, "issuance").unwrap();
    let (status, refused) =
        claim_body(&server, &channel, &large, &body("v-1", json!({})), None).await;
    assert_eq!(
        (status, &refused["error"]["code"]),
        (403, &json!("not_eligible")),
        "{refused}"
    );
    let (status, job) = claim_body(&server, &channel, &large, &body("v-2", vip), None).await;
    assert_eq!(status, 202, "{job}");
    let job = finished(&server, job["job_id"].as_str().unwrap()).await;
    assert_eq!(job["status"], "done", "{job}");
    workers.terminate().await.unwrap();
    let held = holders(&env, &vip_sn).await;
    assert_eq!(held.get("v-2"), Some(&150));
    assert_eq!(held.get("v-1"), None);
    assert_verifies_once_caught_up(&env).await;
}

#[tokio::test(flavor = "multi_thread")]
async fn bulk_issuance_reports_each_line_whose_user_is_not_listed() {
    let env = Env::new().await.unwrap();
    let server = Server::start(&env).await.unwrap();
    let sn = server
        .activate_template(&eligible_template(10_000, json!({"allow_list": true})))
        .await
        .unwrap();
    let users = fans(3_000);
    let (status, _) = upload_allow_list(&server, &sn, "add", list_file(&users), &[]).await;
    assert_eq!(status, 201);
    let workers = Workers::start(&env, "issuance").unwrap();
    let file: Vec<u8> = users
        .iter()
        .map(|u| format!("{u}\n"))
        .collect::<String>()
        .into_bytes();
    let (status, job) = upload(&server, &sn, file, &[]).await;
    assert_eq!(status, 202, "{job}");
    let id = job["job_id"].as_str().unwrap().to_owned();
    let job = uploads::wait_done(&server, &id, std::time::Duration::from_secs(120)).await;
    workers.terminate().await.unwrap();
    assert_eq!(
        (job["issued"].as_i64(), job["not_eligible"].as_i64()),
        (Some(1_500), Some(1_500)),
        "{job}"
    );
    let report = server
        .admin(
            reqwest::Method::GET,
            &format!("/v1/issuance-jobs/{id}/report"),
        )
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    let refused: Vec<&str> = report.lines().skip(1).collect();
    assert_eq!(refused.len(), 1_500);
    for line in refused {
        let fields: Vec<&str> = line.split(',').collect();
        let n: usize = fields[0].parse().unwrap();
        assert_eq!(fields[1], format!("fan-{}", n - 1), "{line}");
        assert!(!listed(fields[1]) && fields[2] == "not_eligible", "{line}");
    }
    let held = holders(&env, &sn).await;
    assert!(held.len() == 1_500 && held.keys().all(|u| listed(u)));
}
