//! Redemption codes across a rotation of the code key (docs/design.md §13,
//! docs/redemption-codes.md "Rotation"): each batch records the id of the
//! key that made it. After `LEDGER_SECRET_KEY` moves to a new key with the
//! old one in `LEDGER_SECRET_KEYS_OLD`, an old batch's codes still redeem
//! (and a code already redeemed is still refused), a new batch is made
//! under the new key, forged codes are still 404; once the old key is
//! dropped, the old batch's codes are 404 like forged ones; and `ledger
//! replay --verify` agrees.

use serde_json::json;
use tests::codes::{batch, codes_of, redeem};
use tests::workers::assert_verifies_once_caught_up;
use tests::{Env, SECRET_KEY, Server};

/// The key the test rotates to: another id, other bytes.
const NEW_KEY: &str = "k2:6e6577206b657920666f722074686520726f746174696f6e2074657374212121";

/// A code with one character changed (still of the alphabet).
fn mistyped(code: &str) -> String {
    let mut chars: Vec<char> = code.chars().collect();
    chars[3] = if chars[3] == 'A' { 'B' } else { 'A' };
    chars.into_iter().collect()
}

/// The key id the batch records, as its row holds it.
async fn key_id(env: &Env, batch: &serde_json::Value) -> String {
    let id: uuid::Uuid = batch["id"].as_str().unwrap().parse().unwrap();
    let client = env.db.client().await.unwrap();
    let sql = "SELECT key_id FROM code_batches WHERE id = $1";
    client.query_one(sql, &[&id]).await.unwrap().get(0)
}

/// With only the new key, an old batch's code (`old`) is as unknown as a
/// forged one, and a new batch's (`new`) still redeems (for `fay`).
async fn old_key_dropped(env: &Env, old: &str, new: &str) {
    let server = Server::start_with(env, &[("LEDGER_SECRET_KEY", NEW_KEY)])
        .await
        .unwrap();
    let (status, unknown) = redeem(&server, old, "fay").await;
    assert_eq!(
        (status, unknown["error"]["code"].clone()),
        (404, json!("not_found"))
    );
    assert_eq!(redeem(&server, new, "fay").await.0, 201);
    server.terminate().await.unwrap();
}

#[tokio::test(flavor = "multi_thread")]
async fn an_old_batchs_codes_redeem_after_the_key_is_rotated() {
    let env = Env::new().await.unwrap();
    let server = Server::start(&env).await.unwrap();
    let sn = server.active_template(1_000, 10).await.unwrap();
    let old = batch(&server, json!({"template_sn": sn, "count": 5})).await;
    let old_codes = codes_of(&server, &old).await;
    assert_eq!(key_id(&env, &old).await, "test");
    assert_eq!(redeem(&server, &old_codes[0], "ann").await.0, 201);
    server.terminate().await.unwrap();

    // Rotated: the new key makes, the old one only opens.
    let rotated = [
        ("LEDGER_SECRET_KEY", NEW_KEY),
        ("LEDGER_SECRET_KEYS_OLD", SECRET_KEY),
    ];
    let server = Server::start_with(&env, &rotated).await.unwrap();
    let (status, body) = redeem(&server, &old_codes[1], "bob").await;
    assert_eq!(status, 201, "an old batch's code redeems: {body}");
    let (status, body) = redeem(&server, &old_codes[0], "cyd").await;
    assert_eq!(
        (status, body["error"]["code"].clone()),
        (410, json!("sold_out")),
        "its one use was taken before the rotation"
    );
    let new = batch(&server, json!({"template_sn": sn, "count": 5})).await;
    assert_eq!(
        key_id(&env, &new).await,
        "k2",
        "a new batch takes the new key"
    );
    let new_codes = codes_of(&server, &new).await;
    assert!(new_codes.iter().all(|c| !old_codes.contains(c)));
    assert_eq!(redeem(&server, &new_codes[0], "dan").await.0, 201);
    for forged in [
        mistyped(&old_codes[2]),
        mistyped(&new_codes[2]),
        "ABCDEFGHJK".to_owned(),
    ] {
        let (status, body) = redeem(&server, &forged, "eve").await;
        assert_eq!(
            (status, body["error"]["code"].clone()),
            (404, json!("not_found")),
            "{forged}: {body}"
        );
    }
    server.terminate().await.unwrap();

    old_key_dropped(&env, &old_codes[3], &new_codes[1]).await;
    let holders = "SELECT count(*) FROM coupons WHERE template_sn = $1";
    assert_eq!(env.db.count(holders, &[&sn]).await, 4, "ann, bob, dan, fay");
    assert_verifies_once_caught_up(&env).await;
}
