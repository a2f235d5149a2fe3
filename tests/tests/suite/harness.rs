//! The per-test harness gives each test its own vhost and Redis prefix, and
//! removes them afterwards.

use lapin::options::ExchangeDeclareOptions;
use lapin::{Connection, ConnectionProperties, ExchangeKind};
use redis::AsyncCommands;
use tests::{TestRedis, TestVhost};

#[tokio::test]
async fn each_test_gets_a_vhost_of_its_own_that_goes_away_afterwards() {
    let vhost = TestVhost::new().await.unwrap();
    let conn = Connection::connect(&vhost.amqp_url, ConnectionProperties::default())
        .await
        .unwrap();
    let channel = conn.create_channel().await.unwrap();
    // The contract name, unchanged: isolation comes from the vhost.
    channel
        .exchange_declare(
            "coupon.events".into(),
            ExchangeKind::Fanout,
            ExchangeDeclareOptions {
                durable: true,
                ..Default::default()
            },
            Default::default(),
        )
        .await
        .unwrap();
    conn.close(200, "bye".into()).await.unwrap();
    let url = vhost.amqp_url.clone();
    drop(vhost);
    let again = Connection::connect(&url, ConnectionProperties::default()).await;
    assert!(again.is_err(), "the vhost is deleted when the test ends");
}

#[tokio::test]
async fn redis_keys_under_a_tests_prefix_are_removed_afterwards() {
    let redis = TestRedis::new().unwrap();
    let mut conn = redis.connection().await.unwrap();
    let key = format!("{}nonce:1", redis.prefix);
    let _: () = conn.set(&key, "x").await.unwrap();
    drop(redis);
    let left: Option<String> = conn.get(&key).await.unwrap();
    assert_eq!(left, None);
}
