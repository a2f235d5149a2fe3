//! `ledger replay --verify` rebuilds every write-model column from the
//! events: a hand edit of any of them (not only of a projection) is named,
//! and the command exits 1, in one pass as in several.

use std::time::Duration;

use serde_json::json;
use tests::scenario::{checkout, claim_many};
use tests::workers::{Workers, projections_caught_up, replay_both_ways};
use tests::{Env, Server};

/// Runs `ledger replay --verify` in one pass and in several, which must
/// agree: the exit code and standard output.
async fn verify(env: &Env) -> (Option<i32>, String) {
    replay_both_ways(env, &["replay", "--verify"]).await
}

#[tokio::test(flavor = "multi_thread")]
async fn replay_names_every_hand_edit_of_the_write_model() {
    let env = Env::new().await.unwrap();
    let server = Server::start(&env).await.unwrap();
    let workers = Workers::start(&env, "relay,balances,template_stats").unwrap();
    let sn = server.active_template(100, 1).await.unwrap();
    let channel = server.channel_for(&sn).await.unwrap();
    let coupons = claim_many(&env, &sn, 0..5, 5).await.unwrap();
    let paid = checkout(&server, "u0", coupons[0], true).await.unwrap();
    checkout(&server, "u1", coupons[1], false).await.unwrap();
    let refund = json!({"refund_id": "r-1", "lines": [{"line_id": "l1", "quantity": 1}]});
    let (status, body) = server
        .service_post(&format!("/v1/orders/{paid}/refunds"), &refund)
        .await
        .unwrap();
    assert_eq!(status, 200, "{body}");
    projections_caught_up(&env, Duration::from_secs(30))
        .await
        .unwrap();
    workers.terminate().await.unwrap();
    let (code, stdout) = verify(&env).await;
    assert_eq!(code, Some(0), "{stdout}");
    assert!(stdout.contains(" 0 differences"), "{stdout}");

    let client = env.db.client().await.unwrap();
    let (stolen, stretched, deleted) = (coupons[2], coupons[3], coupons[4]);
    let ghost = uuid::Uuid::now_v7();
    client
        .batch_execute(&format!(
            "UPDATE coupons SET user_id = 'mallory' WHERE id = '{stolen}';
             UPDATE coupons SET expires_at = expires_at + interval '30 days' WHERE id = '{stretched}';
             UPDATE templates SET face_value = 99.00 WHERE sn = '{sn}';
             UPDATE orders SET allocations = '[]' WHERE order_id = '{paid}';
             UPDATE refunds SET refund = '{{}}' WHERE order_id = '{paid}';
             DELETE FROM user_claims WHERE template_sn = '{sn}' AND user_id = 'u4';
             DELETE FROM coupons WHERE id = '{deleted}';
             DELETE FROM template_channels WHERE template_sn = '{sn}';
             INSERT INTO coupons (id, template_sn, user_id, status, issued_at, effective_at,
                                  expires_at, version)
               SELECT '{ghost}', template_sn, 'mallory', 'unused', issued_at, effective_at,
                      expires_at, 1 FROM coupons WHERE id = '{stolen}';"
        ))
        .await
        .unwrap();
    let (code, stdout) = verify(&env).await;
    assert_eq!(code, Some(1), "{stdout}");
    for expected in [
        format!("coupons {stolen} user_id: live mallory vs replayed u2"),
        format!("coupons {stretched} expires_at: live "),
        format!("templates \"{sn}\" face_value: live 99.00 vs replayed 20.00"),
        format!("orders \"{paid}\" allocations: live [] vs replayed [{{"),
        format!("refunds (\"{paid}\", \"r-1\") refund: live {{}} vs replayed {{"),
        format!("user_claims (\"{sn}\", \"u4\") claimed: live (none) vs replayed 1"),
        format!("coupons {ghost} user_id: live mallory vs replayed (none)"),
        format!("coupons {deleted} user_id: live (none) vs replayed u4"),
        format!(
            "template_channels (\"{sn}\", {}) (row): live (none) vs replayed present",
            channel.id
        ),
    ] {
        assert!(
            stdout.contains(&expected),
            "missing {expected:?} in\n{stdout}"
        );
    }
}
