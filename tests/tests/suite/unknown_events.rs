//! An event this build does not know (a type it has never heard of, or a
//! schema version newer than it reads) is a clear error naming its position,
//! in `ledger replay --verify` and in the projection workers: never a panic,
//! never silently skipped.

use std::time::Duration;

use ledger::messaging;
use tests::Env;
use tests::dead_letters::{self, DeadLetters};
use tests::scenario::append_unknown;
use tests::workers::{Workers, ledger};

async fn replay_fails_naming_the_position(event_type: &str, version: i16, expected: &str) {
    let env = Env::new().await.unwrap();
    let position = append_unknown(&env, event_type, version).await;
    let out = ledger(&env, &["replay", "--verify"]).await.unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains(&format!("event at position {position} (coupon-")),
        "{stderr}"
    );
    assert!(stderr.contains(expected), "{stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
}

#[tokio::test(flavor = "multi_thread")]
async fn replay_names_the_position_of_an_unknown_event_type() {
    let expected = r#"unknown event type "CouponTeleported""#;
    replay_fails_naming_the_position("CouponTeleported", 1, expected).await;
}

#[tokio::test(flavor = "multi_thread")]
async fn replay_names_the_position_of_an_unknown_schema_version() {
    let expected = "CouponVoided schema version 9 is unknown (this build reads v1)";
    replay_fails_naming_the_position("CouponVoided", 9, expected).await;
}

#[tokio::test(flavor = "multi_thread")]
async fn a_projection_dead_letters_an_unknown_event_naming_its_position() {
    let env = Env::new().await.unwrap();
    let position = append_unknown(&env, "CouponTeleported", 1).await;
    let amqp = messaging::connect(&env.vhost.amqp_url, "test")
        .await
        .unwrap();
    let mut dead = DeadLetters::watch(&amqp).await.unwrap();
    let workers = Workers::start(&env, "relay,balances").unwrap();
    let letter = dead.next(Duration::from_secs(90)).await.unwrap();
    let letter = letter.expect("the unknown event is dead-lettered");
    let error = dead_letters::text(&letter, "x-error").unwrap();
    assert!(
        error.contains(&format!("event at position {position} (coupon-")),
        "{error}"
    );
    assert!(
        error.contains(r#"unknown event type "CouponTeleported""#),
        "{error}"
    );
    workers.terminate().await.unwrap();
}
