//! One ledger per RabbitMQ vhost (docs/design.md §5, docs/event-pipeline.md): a
//! second store (another database) pointed at a vhost where a store runs
//! refuses to start, naming both; a message stamped by another store is
//! dead-lettered with the reason, never applied; once a store's processes
//! have all stopped, another store starts there and dead-letters what the
//! first left in the queues.

use ledger::domain::projection::Projection;
use std::time::Duration;

use futures_util::StreamExt;
use lapin::options::{BasicConsumeOptions, BasicPublishOptions, ConfirmSelectOptions};
use lapin::types::{AMQPValue, FieldTable};
use lapin::{BasicProperties, Channel};
use ledger::messaging::{self, topology};
use ledger::store::StoreId;
use tests::scenario::claim_many;
use tests::subscriber::depth;
use tests::workers::{Workers, assert_replay_verifies, projections_caught_up};
use tests::{Env, Server, bin};
use tokio::process::Command;

/// Runs `program args` as the second store (`env`'s database) against
/// `amqp_url`, expecting it to stop by itself; its exit status and stderr.
async fn run_to_exit(
    env: &Env,
    amqp_url: &str,
    program: &str,
    args: &[&str],
) -> (std::process::ExitStatus, String) {
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let run = Command::new(bin(program))
        .args(args)
        .envs(env.vars())
        .env("AMQP_URL", amqp_url)
        .env("LEDGER_LISTEN", format!("127.0.0.1:{port}"))
        .env("RUST_LOG", "error")
        .kill_on_drop(true)
        .output();
    let out = tokio::time::timeout(Duration::from_secs(30), run)
        .await
        .unwrap_or_else(|_| panic!("{program} {args:?} kept running on a vhost in use"))
        .unwrap();
    (
        out.status,
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// The `x-error` of every message waiting in the dead-letter queue.
async fn dead_letter_errors(channel: &Channel, expected: usize) -> Vec<String> {
    let mut consumer = channel
        .basic_consume(
            topology::DEAD_LETTERS_QUEUE.into(),
            "test-dead".into(),
            BasicConsumeOptions {
                no_ack: true,
                ..Default::default()
            },
            FieldTable::default(),
        )
        .await
        .unwrap();
    let mut errors = Vec::new();
    while errors.len() < expected {
        let next = tokio::time::timeout(Duration::from_secs(30), consumer.next()).await;
        let Ok(Some(Ok(d))) = next else { break };
        let headers = d.properties.headers().clone().unwrap_or_default();
        let error = match headers.inner().get("x-error") {
            Some(AMQPValue::LongString(s)) => s.to_string(),
            other => format!("{other:?}"),
        };
        errors.push(error);
    }
    errors
}

/// A copy of a real event message, stamped by another store, sent straight
/// to the balances queue.
async fn forge(channel: &Channel, env: &Env, theirs: StoreId) {
    let client = env.db.client().await.unwrap();
    let event = &ledger::testkit::read_all_settled(&client, ledger::store::GlobalCursor::START, 1)
        .await
        .unwrap()[0];
    let mut message = messaging::message::encode(event);
    let mut headers = message.properties.headers().clone().unwrap_or_default();
    headers.insert(
        "store_id".into(),
        AMQPValue::LongString(theirs.to_string().into()),
    );
    message.properties = message.properties.with_headers(headers);
    channel
        .confirm_select(ConfirmSelectOptions::default())
        .await
        .unwrap();
    channel
        .basic_publish(
            "".into(),
            Projection::Balances.queue().into(),
            BasicPublishOptions::default(),
            &message.body,
            BasicProperties::clone(&message.properties),
        )
        .await
        .unwrap()
        .await
        .unwrap();
}

#[tokio::test(flavor = "multi_thread")]
async fn a_second_store_on_a_vhost_in_use_refuses_to_start_and_the_first_stays_exact() {
    let first = Env::new().await.unwrap();
    let second = Env::new().await.unwrap();
    let (ours, theirs) = (
        first.store_id().await.unwrap(),
        second.store_id().await.unwrap(),
    );
    assert_ne!(ours, theirs, "each database is a store of its own");
    let server = Server::start(&first).await.unwrap();
    let workers = Workers::start(&first, "relay,balances,template_stats").unwrap();
    let sn = server.active_template(100, 1).await.unwrap();
    claim_many(&first, &sn, 0..20, 5).await.unwrap();

    let vhost = first.vhost.amqp_url.as_str();
    for (program, args) in [("ledger", &["serve"][..]), ("workers", &["run"][..])] {
        let (status, stderr) = run_to_exit(&second, vhost, program, args).await;
        assert!(!status.success(), "{program} started on a vhost in use");
        let lines: Vec<&str> = stderr.lines().collect();
        assert_eq!(
            lines.len(),
            1,
            "{program} said more than one line: {stderr}"
        );
        for id in [ours.to_string(), theirs.to_string()] {
            assert!(
                lines[0].contains(&id),
                "{program}'s refusal names {id}: {stderr}"
            );
        }
        assert!(lines[0].contains("own vhost"), "tells what to do: {stderr}");
    }

    // A message stamped by the other store is dead-lettered, not applied.
    let amqp = messaging::connect(vhost, "test-forger").await.unwrap();
    let forger = amqp.create_channel().await.unwrap();
    forge(&forger, &first, theirs).await;
    let errors = dead_letter_errors(&amqp.create_channel().await.unwrap(), 1).await;
    assert_eq!(errors.len(), 1, "the forged message was dead-lettered");
    assert!(
        errors[0].contains(&theirs.to_string()) && errors[0].contains("never applied"),
        "{}",
        errors[0]
    );
    claim_many(&first, &sn, 20..30, 5).await.unwrap();
    projections_caught_up(&first, Duration::from_secs(60))
        .await
        .unwrap();
    workers.terminate().await.unwrap();
    assert_replay_verifies(&first).await;
}

#[tokio::test(flavor = "multi_thread")]
async fn once_a_store_stopped_another_starts_on_its_vhost_and_dead_letters_what_it_left() {
    let first = Env::new().await.unwrap();
    let mut second = Env::new().await.unwrap();
    let server = Server::start(&first).await.unwrap();
    // Only the relay runs: the projection queues fill and nobody drains them.
    let relay = Workers::start(&first, "relay").unwrap();
    let sn = server.active_template(100, 1).await.unwrap();
    claim_many(&first, &sn, 0..10, 5).await.unwrap();
    let amqp = messaging::connect(&first.vhost.amqp_url, "test-watcher")
        .await
        .unwrap();
    let watch = amqp.create_channel().await.unwrap();
    // The template's events and ten claims, in runs: as many messages as
    // the relay's rounds cut them into.
    let client = first.db.client().await.unwrap();
    let mut sent = 0;
    for _ in 0..100 {
        let row = client
            .query_opt(
                "SELECT published FROM relay_cursors WHERE name = $1",
                &[&Projection::Balances.queue()],
            )
            .await
            .unwrap();
        sent = row.map_or(0, |r| r.get::<_, i64>(0));
        if sent >= 12 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    assert!(
        sent >= 12,
        "the relay sent the balances queue {sent} events"
    );
    let left = depth(&watch, Projection::Balances.queue()).await.unwrap();
    assert!(left >= 1, "they wait in the queue");
    relay.terminate().await.unwrap();
    server.terminate().await.unwrap();

    // The first store is gone: the marker went with its last process.
    second.vhost.amqp_url = first.vhost.amqp_url.clone();
    let server = Server::start(&second).await.unwrap();
    let workers = Workers::start(&second, "relay,balances,template_stats").unwrap();
    let errors = dead_letter_errors(&watch, left as usize).await;
    assert_eq!(
        errors.len(),
        left as usize,
        "every message the first store left"
    );
    let first_id = first.store_id().await.unwrap().to_string();
    assert!(errors.iter().all(|e| e.contains(&first_id)), "{errors:?}");
    let sn2 = server.active_template(100, 1).await.unwrap();
    claim_many(&second, &sn2, 0..5, 5).await.unwrap();
    projections_caught_up(&second, Duration::from_secs(60))
        .await
        .unwrap();
    let client = second.db.client().await.unwrap();
    let templates: i64 = client
        .query_one("SELECT count(*) FROM template_stats", &[])
        .await
        .unwrap()
        .get(0);
    assert_eq!(templates, 1, "nothing of the first store's was applied");
    workers.terminate().await.unwrap();
    assert_replay_verifies(&second).await;
    drop(server);
}
