//! RabbitMQ stopped and started again, for the tests that run alone
//! (`#[ignore]`d: a restart touches every test's vhost).

use std::time::Duration;

use tokio::process::Command;

pub async fn rabbitmqctl(args: &[&str]) {
    let status = Command::new("rabbitmqctl")
        .args(args)
        .status()
        .await
        .unwrap();
    assert!(status.success(), "rabbitmqctl {args:?}");
}

/// Stops RabbitMQ for `down`, starts it again and waits until it is up.
pub async fn restart_broker(down: Duration) {
    rabbitmqctl(&["stop_app"]).await;
    tokio::time::sleep(down).await;
    rabbitmqctl(&["start_app"]).await;
    rabbitmqctl(&["await_startup"]).await;
}
