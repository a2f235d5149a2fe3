//! Redemptions group-committed (docs/design.md §12–13), against real Postgres and
//! Redis: redemptions of one batch arriving together share a transaction;
//! a request the template refuses gives back its code's use and its count
//! of the batch, and a shared code is still each user's once across
//! batches.

use std::sync::Arc;

use serde_json::{Value, json};
use tests::codes::{batch, codes, codes_of, redeem};
use tests::scenario::holders;
use tests::workers::assert_verifies_once_caught_up;
use tests::{Env, Server};

/// Concurrent redemptions of distinct codes, `(code, user)` each.
async fn redeem_all(
    server: &Arc<Server>,
    pairs: Vec<(String, String)>,
) -> Vec<(String, u16, Value)> {
    let mut tasks = tokio::task::JoinSet::new();
    for (code, user) in pairs {
        let server = server.clone();
        tasks.spawn(async move {
            let (status, body) = redeem(&server, &code, &user).await;
            (code, status, body)
        });
    }
    let mut out = Vec::new();
    while let Some(r) = tasks.join_next().await {
        out.push(r.unwrap());
    }
    out
}

/// The server's redemption batches so far, and the redemptions they wrote.
async fn redemption_batches(server: &Server) -> (f64, f64) {
    let metrics = server.metrics().await.unwrap();
    let value = |name: &str| -> f64 {
        metrics
            .lines()
            .find_map(|l| l.strip_prefix(name)?.trim().parse().ok())
            .unwrap_or(0.0)
    };
    (
        value("couponledger_flash_redemption_batch_size_count"),
        value("couponledger_flash_redemption_batch_size_sum"),
    )
}

/// Redemptions arriving together are written in batches (group commit): a
/// request the template refuses (sold out, at its per-user limit) gives
/// back its code's use and its count of the batch, so the same code works
/// once the template can give again.
#[tokio::test(flavor = "multi_thread")]
async fn a_refused_redemption_of_a_batch_gives_its_code_back() {
    let env = Env::new().await.unwrap();
    let server = Arc::new(Server::start(&env).await.unwrap());
    let sn = server.active_template(60, 1).await.unwrap();
    let one_use = batch(&server, json!({"template_sn": sn, "count": 100})).await;
    let id = one_use["id"].as_str().unwrap().to_owned();
    let codes = codes(&server, &id).await;
    let pairs = codes
        .iter()
        .enumerate()
        .map(|(i, c)| (c.clone(), format!("user-{i}")))
        .collect::<Vec<_>>();
    let results = redeem_all(&server, pairs.clone()).await;
    let statuses = |s: u16| results.iter().filter(|r| r.1 == s).count();
    assert_eq!(
        (statuses(201), statuses(410)),
        (60, 40),
        "the quota, exactly"
    );
    let uses = "SELECT count(*) FROM code_uses WHERE batch_id = $1";
    let batch_id = uuid::Uuid::parse_str(&id).unwrap();
    assert_eq!(
        env.db.count(uses, &[&batch_id]).await,
        60,
        "refused codes' uses go back"
    );
    let users = "SELECT count(*) FROM code_batch_users WHERE batch_id = $1";
    assert_eq!(env.db.count(users, &[&batch_id]).await, 60);
    let (batches, written) = redemption_batches(&server).await;
    assert!(
        written == 100.0 && batches < written,
        "group-committed: {batches} batches"
    );

    let (status, body) = server
        .admin_post(&format!("/v1/templates/{sn}/quota"), &json!({"total": 100}))
        .await
        .unwrap();
    assert_eq!(status, 200, "{body}");
    let losers: Vec<(String, String)> = pairs
        .into_iter()
        .filter(|(c, _)| results.iter().any(|r| &r.0 == c && r.1 == 410))
        .collect();
    let again = redeem_all(&server, losers).await;
    assert!(
        again.iter().all(|r| r.1 == 201),
        "{:?}",
        again.iter().find(|r| r.1 != 201)
    );
    assert_eq!(holders(&env, &sn).await.len(), 100);

    // A user holding the template's limit (1) is refused by the template,
    // not by the code: the code stays whole for someone else.
    let second = batch(&server, json!({"template_sn": sn, "count": 1})).await;
    let code = codes_of(&server, &second).await.remove(0);
    server
        .admin_post(&format!("/v1/templates/{sn}/quota"), &json!({"total": 101}))
        .await
        .unwrap();
    let (status, body) = redeem(&server, &code, "user-0").await;
    assert_eq!(
        (status, body["error"]["code"].clone()),
        (409, json!("per_user_limit"))
    );
    let (status, body) = redeem(&server, &code, "newcomer").await;
    assert_eq!(status, 201, "{body}");
    assert_verifies_once_caught_up(&env).await;
}

/// A shared code a user may redeem with others of its batch (`per_user` 2)
/// is still theirs once: the second of two concurrent tries is 409, even
/// when the two land in consecutive batches.
#[tokio::test(flavor = "multi_thread")]
async fn a_user_redeems_a_shared_code_once_across_batches() {
    let env = Env::new().await.unwrap();
    let server = Arc::new(Server::start(&env).await.unwrap());
    let sn = server.active_template(1_000, 5).await.unwrap();
    let shared = batch(
        &server,
        json!({"template_sn": sn, "count": 2, "uses_per_code": 50, "per_user": 2}),
    )
    .await;
    let id = shared["id"].as_str().unwrap().to_owned();
    let codes = codes_of(&server, &shared).await;
    let pairs: Vec<(String, String)> = (0..40)
        .map(|i| (codes[0].clone(), format!("twice-{}", i % 20)))
        .collect();
    let results = redeem_all(&server, pairs).await;
    let ok = results.iter().filter(|r| r.1 == 201).count();
    let again = results
        .iter()
        .filter(|r| r.1 == 409 && r.2["error"]["code"] == "already_redeemed")
        .count();
    assert_eq!((ok, again), (20, 20), "each user once");
    let uses = "SELECT coalesce(sum(uses), 0)::bigint FROM code_uses WHERE batch_id = $1";
    let batch_id = uuid::Uuid::parse_str(&id).unwrap();
    assert_eq!(env.db.count(uses, &[&batch_id]).await, 20);
    // The batch's other code is still open to them (per_user 2).
    let (status, body) = redeem(&server, &codes[1], "twice-0").await;
    assert_eq!(status, 201, "{body}");
    let (status, _) = redeem(&server, &codes[0], "fresh").await;
    assert_eq!(status, 201);
    assert_verifies_once_caught_up(&env).await;
}
