//! Large packages keep their promise (docs/design.md §13): a claim of a large
//! package answered 202 has already taken the package's count, the user's
//! and its templates' quotas in its request, so under 1,000 concurrent
//! claims exactly what is left is answered 202 and every one of those jobs
//! ends with its coupons, the others refused at once as sold out; a
//! template stopped or voided after the 202 fails the job, gives every
//! count back (a later claim succeeds again) and the job says why; and
//! `ledger replay --verify` agrees with every step, a job still queued too.

use std::sync::Arc;

use serde_json::{Value, json};
use tests::packages::{claim, finished, issued, package_for};
use tests::workers::{Workers, assert_verifies_once_caught_up};
use tests::{Channel, Env, Server};

/// The job id of a 202.
fn queued((status, body): (u16, Value)) -> String {
    assert_eq!(status, 202, "{body}");
    assert_eq!(body["status"], "queued", "{body}");
    body["job_id"].as_str().unwrap().to_owned()
}

/// The package's `claimed` counter and the user's count of it (0 without a row).
async fn counts(env: &Env, sn: &str, user: &str) -> (i64, i64) {
    let client = env.db.client().await.unwrap();
    let row = client
        .query_one(
            "SELECT claimed,
                    coalesce((SELECT claimed FROM package_claims
                               WHERE package_sn = $1 AND user_id = $2), 0)::bigint
               FROM packages WHERE sn = $1",
            &[&sn, &user],
        )
        .await
        .unwrap();
    (row.get(0), row.get(1))
}

/// The user's counts of each template of `sns` (0 without a row).
async fn user_counts(env: &Env, sns: &[&str], user: &str) -> Vec<i32> {
    let client = env.db.client().await.unwrap();
    let mut out = Vec::new();
    for sn in sns {
        let row = client
            .query_opt(
                "SELECT claimed FROM user_claims WHERE template_sn = $1 AND user_id = $2",
                &[sn, &user],
            )
            .await
            .unwrap();
        out.push(row.map_or(0, |r| r.get(0)));
    }
    out
}

/// `n` concurrent claims of `sn` by `<prefix><i>`: (status, body) each.
async fn claim_all(
    server: &Arc<Server>,
    channel: &Arc<Channel>,
    sn: &str,
    (prefix, n): (&str, usize),
) -> Vec<(u16, Value)> {
    let mut tasks = tokio::task::JoinSet::new();
    for i in 0..n {
        let (server, channel, sn) = (server.clone(), channel.clone(), sn.to_owned());
        let user = format!("{prefix}{i}");
        tasks.spawn(async move { claim(&server, &channel, &sn, &user).await });
    }
    let mut answers = Vec::with_capacity(n);
    while let Some(answer) = tasks.join_next().await {
        answers.push(answer.unwrap());
    }
    answers
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_thousand_concurrent_claims_of_the_last_100_get_100_jobs_that_all_end_done() {
    let env = Env::new().await.unwrap();
    let server = Arc::new(Server::start(&env).await.unwrap());
    let workers = Workers::start(&env, "issuance").unwrap();
    // Quotas of exactly the package's 110 claims: none may be taken twice
    // or lost, or the last jobs would run out.
    let a = server.active_template(110 * 60, 60).await.unwrap();
    let b = server.active_template(110 * 50, 50).await.unwrap();
    let channel = Arc::new(server.channel_for(&a).await.unwrap());
    let sn = package_for(&server, &[channel.as_ref()], &[(&a, 60), (&b, 50)], 110, 1).await;
    // 10 claimed first: 100 left.
    for answer in claim_all(&server, &channel, &sn, ("early-", 10)).await {
        assert_eq!(finished(&server, &queued(answer)).await["status"], "done");
    }
    assert_eq!(counts(&env, &sn, "early-0").await, (10, 1));

    let answers = claim_all(&server, &channel, &sn, ("user-", 1_000)).await;
    let mut jobs = Vec::new();
    for (status, body) in answers {
        match status {
            202 => jobs.push(queued((status, body))),
            410 => assert_eq!(body["error"]["code"], "sold_out", "{body}"),
            other => panic!("{other}: {body}"),
        }
    }
    assert_eq!(jobs.len(), 100, "exactly what was left is answered 202");
    // Every count was taken by the requests, before any job ended.
    assert_eq!(counts(&env, &sn, "nobody").await.0, 110);
    for id in &jobs {
        let job = finished(&server, id).await;
        assert_eq!(job["status"], "done", "{job}");
        assert_eq!(job["coupons_issued"], 110, "{job}");
    }
    assert_eq!(
        issued(&env, &[&a, &b]).await,
        [(6_600, 6_600), (5_500, 5_500)]
    );
    let holders = "SELECT count(DISTINCT user_id) FROM coupons WHERE user_id LIKE 'user-%'";
    assert_eq!(env.db.count(holders, &[]).await, 100);
    let claimed = "SELECT count(*) FROM events WHERE event_type = 'PackageClaimed'";
    assert_eq!(env.db.count(claimed, &[]).await, 110);
    let reserved = "SELECT count(*) FROM events WHERE event_type = 'PackageClaimReserved'";
    assert_eq!(env.db.count(reserved, &[]).await, 110);
    workers.terminate().await.unwrap();
    assert_verifies_once_caught_up(&env).await;
}

/// Two active templates, a channel, and a package of (A 60, B 50) with
/// `total` claims of one per user that the channel may claim.
async fn two_template_package(server: &Server, total: i64) -> (String, String, Channel, String) {
    let a = server.active_template(1_000, 100).await.unwrap();
    let b = server.active_template(1_000, 100).await.unwrap();
    let channel = server.channel_for(&a).await.unwrap();
    let sn = package_for(server, &[&channel], &[(&a, 60), (&b, 50)], total, 1).await;
    (a, b, channel, sn)
}

/// Asserts the job failed for `template` being `status`, with nothing issued.
async fn failed_for(server: &Server, job: &str, template: &str, status: &str) {
    let failed = finished(server, job).await;
    assert_eq!(failed["status"], "failed", "{failed}");
    assert_eq!(failed["error"]["status"], 422, "{failed}");
    assert_eq!(failed["error"]["code"], "template_not_active", "{failed}");
    let message = failed["error"]["message"].as_str().unwrap();
    assert!(
        message.contains(template) && message.contains(status),
        "{message}"
    );
    assert_eq!(failed["coupons_issued"], 0);
    assert_eq!(failed["coupon_ids"], json!([]));
}

/// A template stopped after the claims' 202 and before their jobs ran: each
/// job ends `failed` with the reason, nothing of it is issued, the
/// package's count, the user's and the templates' are given back, and the
/// same user's claim succeeds again once the template issues again.
#[tokio::test(flavor = "multi_thread")]
async fn a_template_stopped_after_the_202_fails_the_job_and_gives_every_count_back() {
    let env = Env::new().await.unwrap();
    let server = Server::start(&env).await.unwrap();
    let (a, b, channel, sn) = two_template_package(&server, 2).await;
    // No worker yet: the jobs wait on the queue while B is stopped.
    let ann = queued(claim(&server, &channel, &sn, "ann").await);
    assert_eq!(
        counts(&env, &sn, "ann").await,
        (1, 1),
        "taken by the request"
    );
    assert_eq!(user_counts(&env, &[&a, &b], "ann").await, [60, 50]);
    assert_eq!(issued(&env, &[&a, &b]).await, [(60, 0), (50, 0)]);
    let bob = queued(claim(&server, &channel, &sn, "bob").await);
    // The counts are held: the package is sold out to others meanwhile.
    assert_eq!(claim(&server, &channel, &sn, "cyd").await.0, 410);
    // The log says so too, while the jobs wait: the reservations' events.
    assert_verifies_once_caught_up(&env).await;
    let stop = format!("/v1/templates/{b}/stop");
    let (status, body) = server.admin_post(&stop, &json!({})).await.unwrap();
    assert_eq!(status, 200, "{body}");

    let workers = Workers::start(&env, "issuance").unwrap();
    for job in [&ann, &bob] {
        failed_for(&server, job, &b, "stopped").await;
    }
    assert_eq!(counts(&env, &sn, "ann").await, (0, 0), "both given back");
    assert_eq!(user_counts(&env, &[&a, &b], "ann").await, [0, 0]);
    assert_eq!(issued(&env, &[&a, &b]).await, [(0, 0), (0, 0)]);
    let released = "SELECT count(*) FROM events WHERE event_type = 'PackageClaimReleased'
                     AND payload->>'reason' = 'template_not_active'";
    assert_eq!(env.db.count(released, &[]).await, 2);

    // B issues again: ann's claim succeeds, with every coupon.
    let activate = format!("/v1/templates/{b}/activate");
    let (status, body) = server.admin_post(&activate, &json!({})).await.unwrap();
    assert_eq!(status, 200, "{body}");
    let again = finished(&server, &queued(claim(&server, &channel, &sn, "ann").await)).await;
    assert_eq!(
        (again["status"].clone(), again["coupons_issued"].clone()),
        (json!("done"), json!(110))
    );
    assert_eq!(counts(&env, &sn, "ann").await, (1, 1));
    workers.terminate().await.unwrap();
    assert_verifies_once_caught_up(&env).await;
}

/// A template voided after the claim's 202: the job fails and gives every
/// count back as for a stop, another user's claim done before stays, and
/// the package's next claim is refused by the request itself (422).
#[tokio::test(flavor = "multi_thread")]
async fn a_template_voided_after_the_202_fails_the_job_and_gives_every_count_back() {
    let env = Env::new().await.unwrap();
    let server = Server::start(&env).await.unwrap();
    let (a, b, channel, sn) = two_template_package(&server, 5).await;
    let workers = Workers::start(&env, "issuance").unwrap();
    let ann = queued(claim(&server, &channel, &sn, "ann").await);
    assert_eq!(finished(&server, &ann).await["status"], "done");
    workers.terminate().await.unwrap();
    // No worker: dan's job waits while A is voided.
    let dan = queued(claim(&server, &channel, &sn, "dan").await);
    let void = format!("/v1/templates/{a}/void");
    let (status, body) = server.admin_post(&void, &json!({})).await.unwrap();
    assert_eq!(status, 200, "{body}");
    let workers = Workers::start(&env, "issuance").unwrap();
    failed_for(&server, &dan, &a, "void").await;
    assert_eq!(counts(&env, &sn, "dan").await, (1, 0), "ann's claim stays");
    assert_eq!(user_counts(&env, &[&a, &b], "dan").await, [0, 0]);
    assert_eq!(issued(&env, &[&a, &b]).await, [(60, 60), (50, 50)]);
    let (status, refused) = claim(&server, &channel, &sn, "dan").await;
    assert_eq!(
        (status, refused["error"]["code"].clone()),
        (422, json!("template_not_active"))
    );
    workers.terminate().await.unwrap();
    assert_verifies_once_caught_up(&env).await;
}
