//! Adjustable campaigns (docs/design.md §15): `PATCH /v1/templates/{sn}`
//! moves the issue window (never into the past), raises the per-user limit
//! and changes the validity of coupons issued afterwards; each change is
//! an event naming its operator, rebuilt by `ledger replay --verify`, and
//! every refusal names its field or its rule. Coupons already issued keep
//! what they were given.

use std::time::Duration;

use chrono::{DateTime, SubsecRound, Utc};
use serde_json::{Value, json};
use tests::workers::{Workers, assert_verifies_once_caught_up};
use tests::{Env, Server, packages, template_body, uploads};

async fn patch(server: &Server, sn: &str, body: &Value) -> (u16, Value) {
    server.patch_template(sn, body).await.unwrap()
}

/// The template stream's events after the first: (type, operator, payload).
async fn changes(env: &Env, sn: &str) -> Vec<(String, Option<String>, Value)> {
    let client = env.db.client().await.unwrap();
    let sql = "SELECT event_type, metadata->>'operator', payload FROM events
                WHERE stream_id = $1 AND event_type NOT IN ('TemplateCreated',
                      'TemplateActivated', 'TemplateChannelAllowed')
                ORDER BY stream_version";
    let rows = client
        .query(sql, &[&format!("template-{sn}")])
        .await
        .unwrap();
    rows.iter()
        .map(|r| (r.get(0), r.get(1), r.get(2)))
        .collect()
}

fn instant(v: &Value) -> DateTime<Utc> {
    v.as_str().unwrap().parse().unwrap()
}

/// Asserts a refusal: its status, and its code or (for a 400) the field.
fn refused(answer: (u16, Value), status: u16, code_or_field: &str) {
    let (got, body) = answer;
    assert_eq!(got, status, "{code_or_field}: {body}");
    let error = &body["error"];
    if status == 400 {
        let message = error["message"].as_str().unwrap();
        assert!(message.contains(code_or_field), "{code_or_field}: {body}");
    } else {
        assert_eq!(error["code"], code_or_field, "{body}");
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn the_window_moves_within_its_rules_and_claims_follow_it() {
    let env = Env::new().await.unwrap();
    let server = Server::start(&env).await.unwrap();
    let now = Utc::now();
    let mut body = template_body(100, 5);
    body["issue_window"] = json!({"begin": now - chrono::Duration::hours(1),
        "end": now + chrono::Duration::seconds(3)});
    let sn = server.activate_template(&body).await.unwrap();
    let channel = server.channel_for(&sn).await.unwrap();

    // Extended before it ends: a claim after the old end is granted.
    let new_end = (now + chrono::Duration::days(2)).trunc_subsecs(0);
    let (status, view) = patch(&server, &sn, &json!({"issue_window": {"end": new_end}})).await;
    assert_eq!(status, 200, "{view}");
    assert_eq!(instant(&view["issue_window"]["end"]), new_end);
    tokio::time::sleep(Duration::from_secs(4)).await;
    let (status, coupon) = server.claim(&channel, &sn, "after-old-end").await.unwrap();
    assert_eq!(status, 201, "{coupon}");

    // Never into the past; a begin that has passed cannot move; begin
    // before end.
    let past = Utc::now() - chrono::Duration::minutes(1);
    refused(
        patch(&server, &sn, &json!({"issue_window": {"end": past}})).await,
        422,
        "issue_window_in_past",
    );
    let later = Utc::now() + chrono::Duration::hours(1);
    refused(
        patch(&server, &sn, &json!({"issue_window": {"begin": later}})).await,
        409,
        "issue_window_started",
    );
    let (b, e) = (later + chrono::Duration::hours(1), later);
    refused(
        patch(
            &server,
            &sn,
            &json!({"issue_window": {"begin": b, "end": e}}),
        )
        .await,
        400,
        "issue_window: begin must be before end",
    );
    refused(
        patch(&server, &sn, &json!({"issue_window": {}})).await,
        400,
        "issue_window",
    );
    refused(
        patch(&server, &sn, &json!({"issue_window": {"end": "soon"}})).await,
        400,
        "issue_window.end",
    );
    refused(
        patch(&server, &sn, &json!({"issue_window": {"until": later}})).await,
        400,
        "issue_window",
    );

    // Shortened to end in a second: claims close with it.
    let soon = (Utc::now() + chrono::Duration::seconds(1)).trunc_subsecs(3);
    let (status, view) = patch(&server, &sn, &json!({"issue_window": {"end": soon}})).await;
    assert_eq!(status, 200, "{view}");
    tokio::time::sleep(Duration::from_secs(2)).await;
    let (status, answer) = server.claim(&channel, &sn, "too-late").await.unwrap();
    assert_eq!(
        (status, &answer["error"]["code"]),
        (422, &json!("outside_issue_window"))
    );
    // An ended window opens again, to an end ahead.
    let (status, view) = patch(&server, &sn, &json!({"issue_window": {"end": new_end}})).await;
    assert_eq!(status, 200, "{view}");
    let (status, coupon) = server.claim(&channel, &sn, "reopened").await.unwrap();
    assert_eq!(status, 201, "{coupon}");

    // A begin still ahead may move, not into the past.
    let mut body = template_body(10, 1);
    let ahead = (Utc::now() + chrono::Duration::hours(2)).trunc_subsecs(0);
    body["issue_window"] = json!({"begin": ahead, "end": ahead + chrono::Duration::days(1)});
    let (status, draft) = server.admin_post("/v1/templates", &body).await.unwrap();
    assert_eq!(status, 201, "{draft}");
    let draft_sn = draft["sn"].as_str().unwrap();
    let sooner = ahead - chrono::Duration::hours(1);
    let (status, view) = patch(
        &server,
        draft_sn,
        &json!({"issue_window": {"begin": sooner}}),
    )
    .await;
    assert_eq!(
        (status, instant(&view["issue_window"]["begin"])),
        (200, sooner)
    );
    refused(
        patch(&server, draft_sn, &json!({"issue_window": {"begin": past}})).await,
        422,
        "issue_window_in_past",
    );
    // A begin after the stored end.
    let beyond = ahead + chrono::Duration::days(2);
    refused(
        patch(
            &server,
            draft_sn,
            &json!({"issue_window": {"begin": beyond}}),
        )
        .await,
        422,
        "issue_window_empty",
    );

    let events = changes(&env, &sn).await;
    let moved: Vec<&Value> = events
        .iter()
        .filter(|(t, _, _)| t == "TemplateIssueWindowChanged")
        .map(|(_, _, p)| p)
        .collect();
    assert_eq!(moved.len(), 3, "{events:?}");
    assert_eq!(instant(&moved[0]["issue_window"]["end"]), new_end);
    assert_eq!(instant(&moved[1]["from"]["end"]), new_end);
    assert!(
        events
            .iter()
            .all(|(_, op, _)| op.as_deref() == Some("admin"))
    );
    server.terminate().await.unwrap();
    assert_verifies_once_caught_up(&env).await;
}

#[tokio::test(flavor = "multi_thread")]
async fn a_raised_limit_holds_in_the_flash_gate_and_only_rises() {
    let env = Env::new().await.unwrap();
    let server = Server::start(&env).await.unwrap();
    let sn = server.active_template(100, 1).await.unwrap();
    let channel = server.channel_for(&sn).await.unwrap();
    let (status, _) = server.claim(&channel, &sn, "u1").await.unwrap();
    assert_eq!(status, 201);
    // The gate knows u1 holds one (its claimers warmed from Postgres).
    let (status, answer) = server.claim(&channel, &sn, "u1").await.unwrap();
    assert_eq!(
        (status, &answer["error"]["code"]),
        (409, &json!("per_user_limit"))
    );

    let (status, view) = patch(&server, &sn, &json!({"per_user_limit": 3})).await;
    assert_eq!(
        (status, &view["per_user_limit"]),
        (200, &json!(3)),
        "{view}"
    );
    for n in 2..=3 {
        let (status, coupon) = server.claim(&channel, &sn, "u1").await.unwrap();
        assert_eq!(status, 201, "claim {n}: {coupon}");
    }
    let (status, answer) = server.claim(&channel, &sn, "u1").await.unwrap();
    assert_eq!(
        (status, &answer["error"]["code"]),
        (409, &json!("per_user_limit"))
    );
    // The gate itself admitted the claims over the old limit and refused
    // the one over the new.
    let metrics = server.metrics().await.unwrap();
    assert_eq!(gate(&metrics, "reserved"), 3, "{metrics}");
    assert_eq!(gate(&metrics, "at_limit"), 2, "{metrics}");

    refused(
        patch(&server, &sn, &json!({"per_user_limit": 2})).await,
        409,
        "per_user_limit_not_raised",
    );
    refused(
        patch(&server, &sn, &json!({"per_user_limit": 0})).await,
        400,
        "per_user_limit",
    );
    refused(
        patch(&server, &sn, &json!({"per_user_limit": "4"})).await,
        400,
        "per_user_limit",
    );
    // What cannot be cleared refuses a null, naming it.
    for field in ["per_user_limit", "issue_window", "validity", "name"] {
        let answer = patch(&server, &sn, &json!({field: null})).await;
        refused(answer, 400, &format!("{field}: must not be null"));
    }
    // Nor a window's end: null is not "leave it" there either.
    let later = "2099-01-01T00:00:00Z";
    for (end, window) in [
        ("begin", json!({"begin": null, "end": later})),
        ("end", json!({"end": null})),
    ] {
        let answer = patch(&server, &sn, &json!({ "issue_window": window })).await;
        refused(
            answer,
            400,
            &format!("issue_window.{end}: must not be null"),
        );
    }
    let events = changes(&env, &sn).await;
    let raised: Vec<_> = events
        .iter()
        .filter(|(t, _, _)| t == "TemplatePerUserLimitRaised")
        .collect();
    assert_eq!(raised.len(), 1, "{events:?}");
    assert_eq!(raised[0].1.as_deref(), Some("admin"));
    assert_eq!(raised[0].2["from"], 1);
    assert_eq!(raised[0].2["per_user_limit"], 3);

    // A void template cannot change at all.
    let (status, _) = server
        .admin_post(&format!("/v1/templates/{sn}/void"), &json!({}))
        .await
        .unwrap();
    assert_eq!(status, 200);
    refused(
        patch(&server, &sn, &json!({"per_user_limit": 9})).await,
        409,
        "template_status",
    );
    refused(
        patch(&server, &sn, &json!({"name": "renamed"})).await,
        409,
        "template_status",
    );
    server.terminate().await.unwrap();
    assert_verifies_once_caught_up(&env).await;
}

/// How many claims the flash gate answered `outcome`.
fn gate(metrics: &str, outcome: &str) -> u64 {
    let name = format!("couponledger_flash_gate_total{{outcome=\"{outcome}\"}} ");
    metrics
        .lines()
        .find_map(|l| l.strip_prefix(&name))
        .map_or(0, |v| v.trim().parse::<f64>().unwrap() as u64)
}

/// The expiry of every coupon of `user`.
async fn expiries(server: &Server, user: &str) -> Vec<DateTime<Utc>> {
    let (status, wallet) = server
        .service_get(&format!("/v1/users/{user}/coupons"))
        .await
        .unwrap();
    assert_eq!(status, 200, "{wallet}");
    wallet["coupons"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| instant(&c["expires_at"]))
        .collect()
}

#[tokio::test(flavor = "multi_thread")]
async fn a_new_validity_applies_to_coupons_issued_afterwards_only() {
    let env = Env::new().await.unwrap();
    let server = Server::start(&env).await.unwrap();
    let workers = Workers::start(&env, "issuance").unwrap();
    let sn = server.active_template(100, 5).await.unwrap();
    let channel = server.channel_for(&sn).await.unwrap();
    let (status, before) = server.claim(&channel, &sn, "early").await.unwrap();
    assert_eq!(status, 201, "{before}");
    let early_expiry = instant(&before["expires_at"]);

    let end = (Utc::now() + chrono::Duration::days(30)).trunc_subsecs(0);
    let begin = (Utc::now() - chrono::Duration::hours(1)).trunc_subsecs(0);
    let absolute = json!({"type": "absolute", "begin": begin, "end": end});
    let (status, view) = patch(&server, &sn, &json!({"validity": absolute})).await;
    assert_eq!(status, 200, "{view}");
    assert_eq!(view["validity"]["type"], "absolute", "{view}");
    assert_eq!(
        view["discount"]["amount"], "20.00",
        "the rest of the terms stays"
    );

    // Every way of issuing fixes the new validity from now on.
    let (status, flash) = server.claim(&channel, &sn, "late").await.unwrap();
    assert_eq!(status, 201, "{flash}");
    assert_eq!(instant(&flash["expires_at"]), end, "a flash-sale claim");
    let (status, job) = uploads::upload(&server, &sn, uploads::users_file(0..3), &[]).await;
    assert_eq!(status, 202, "{job}");
    uploads::wait_done(
        &server,
        job["job_id"].as_str().unwrap(),
        Duration::from_secs(30),
    )
    .await;
    assert_eq!(
        expiries(&server, "user-1").await,
        vec![end],
        "bulk issuance"
    );
    let package = packages::package_for(&server, &[&channel], &[(&sn, 1)], 10, 1).await;
    let (status, claimed) = packages::claim(&server, &channel, &package, "packed").await;
    assert_eq!(status, 201, "{claimed}");
    assert_eq!(
        expiries(&server, "packed").await,
        vec![end],
        "a package claim"
    );

    // The coupon issued before keeps its own.
    assert_eq!(expiries(&server, "early").await, vec![early_expiry]);

    refused(
        patch(
            &server,
            &sn,
            &json!({"validity": {"type": "relative", "begin_days": 0, "end_days": -1}}),
        )
        .await,
        400,
        "validity.end_days",
    );
    refused(
        patch(&server, &sn, &json!({"validity": {"type": "forever"}})).await,
        400,
        "validity",
    );
    let over = json!({"type": "absolute", "begin": "2020-01-01T00:00:00Z",
        "end": "2020-02-01T00:00:00Z"});
    refused(
        patch(&server, &sn, &json!({"validity": over})).await,
        422,
        "validity_ended",
    );
    let events = changes(&env, &sn).await;
    let (kind, operator, payload) = events
        .iter()
        .find(|(t, _, _)| t == "TemplateValidityChanged")
        .expect("a validity event");
    assert_eq!(kind, "TemplateValidityChanged");
    assert_eq!(operator.as_deref(), Some("admin"));
    assert_eq!(payload["from"]["type"], "relative");
    assert_eq!(payload["validity"]["type"], "absolute");
    workers.terminate().await.unwrap();
    server.terminate().await.unwrap();
    assert_verifies_once_caught_up(&env).await;
}

#[tokio::test(flavor = "multi_thread")]
async fn description_and_eligibility_are_replaced_or_cleared() {
    let env = Env::new().await.unwrap();
    let server = Server::start(&env).await.unwrap();
    let mut body = template_body(10, 1);
    body["description"] = json!("First words");
    body["eligibility"] = json!({"regions": ["310000"]});
    let (status, created) = server.admin_post("/v1/templates", &body).await.unwrap();
    assert_eq!(status, 201, "{created}");
    let sn = created["sn"].as_str().unwrap();

    let rule = json!({"user_tags": {"any": ["gold", "vip"]}, "new_users_only": true});
    let (status, view) = patch(
        &server,
        sn,
        &json!({"description": "  Double 11 for members  ", "eligibility": rule}),
    )
    .await;
    assert_eq!(status, 200, "{view}");
    assert_eq!(view["description"], "Double 11 for members");
    assert_eq!(view["eligibility"], rule, "replaced whole: no regions left");

    refused(
        patch(&server, sn, &json!({"description": "x".repeat(1_001)})).await,
        400,
        "description",
    );
    refused(
        patch(
            &server,
            sn,
            &json!({"eligibility": {"user_tags": {"any": []}}}),
        )
        .await,
        400,
        "eligibility.user_tags.any",
    );
    refused(
        patch(&server, sn, &json!({"eligibility": {"planets": ["mars"]}})).await,
        400,
        "eligibility",
    );
    refused(
        patch(&server, sn, &json!({})).await,
        400,
        "nothing to change",
    );
    refused(
        patch(
            &server,
            sn,
            &json!({"discount": {"type": "rate", "rate_off": "0.5"}}),
        )
        .await,
        409,
        "immutable_field",
    );

    let (status, view) = patch(
        &server,
        sn,
        &json!({"description": null, "eligibility": null}),
    )
    .await;
    assert_eq!(status, 200, "{view}");
    assert!(view.get("description").is_none(), "{view}");
    assert!(view.get("eligibility").is_none(), "{view}");
    let events = changes(&env, sn).await;
    let updates: Vec<&Value> = events
        .iter()
        .filter(|(t, op, _)| t == "TemplateUpdated" && op.as_deref() == Some("admin"))
        .map(|(_, _, p)| p)
        .collect();
    assert_eq!(updates.len(), 2, "{events:?}");
    assert_eq!(updates[1]["description"], Value::Null);
    assert!(
        updates[1].get("eligibility").is_some(),
        "a clear is written"
    );
    server.terminate().await.unwrap();
    assert_verifies_once_caught_up(&env).await;
}
