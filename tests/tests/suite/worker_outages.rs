//! A worker that loses Postgres for longer than its retries take (a
//! failover, a cut link) keeps the message it holds and applies it once
//! Postgres is back: an outage is not the message's fault, so it spends
//! none of the message's attempts and dead-letters nothing
//! (docs/design.md §5, "Retries"). The fault suite's seed 3 found a job
//! left with a chunk dead-lettered by a two-second cut.

use std::net::SocketAddr;
use std::time::Duration;

use ledger::messaging::topology;
use tests::subscriber::depth;
use tests::tcp_proxy::TcpProxy;
use tests::uploads::{upload, users_file, wait_done};
use tests::workers::{Workers, assert_settled_and_verified};
use tests::{Env, Server};

/// Longer than every retry of a failing message together (about 3 s), several times over.
const OUTAGE: Duration = Duration::from_secs(20);

async fn dead_letters(env: &Env) -> u32 {
    let (_connection, channel) =
        tests::subscriber::declare(env, "watch.dead", false, Default::default())
            .await
            .unwrap();
    depth(&channel, topology::DEAD_LETTERS_QUEUE).await.unwrap()
}

#[tokio::test(flavor = "multi_thread")]
async fn a_postgres_outage_longer_than_the_retries_dead_letters_nothing_and_loses_no_line() {
    let env = Env::new().await.unwrap();
    let postgres: SocketAddr = "127.0.0.1:5432".parse().unwrap();
    let proxy = TcpProxy::start(postgres).await.unwrap();
    let url = env.db.url().replace(":5432/", &format!(":{}/", proxy.port));
    let server = Server::start(&env).await.unwrap();
    let sn = server.active_template(100_000, 1).await.unwrap();
    let workers = Workers::start_setting(
        &env,
        "issuance,relay,balances,template_stats,sealer",
        &[],
        &[("DATABASE_URL", &url)],
    )
    .unwrap();
    // The workers are consuming once a first job is done.
    let (status, first) = upload(&server, &sn, users_file(0..10), &[]).await;
    assert_eq!(status, 202, "{first}");
    wait_done(
        &server,
        first["job_id"].as_str().unwrap(),
        Duration::from_secs(60),
    )
    .await;

    // The server's link is its own: the upload publishes its chunks while
    // the workers' Postgres is gone, and they fail on every one.
    proxy.cut();
    let lines = 25_000;
    let (status, cut) = upload(&server, &sn, users_file(10..10 + lines), &[]).await;
    assert_eq!(status, 202, "{cut}");
    tokio::time::sleep(OUTAGE).await;
    proxy.restore();

    let id = cut["job_id"].as_str().unwrap();
    let done = wait_done(&server, id, Duration::from_secs(120)).await;
    assert_eq!(done["issued"], lines as i64, "{done}");
    assert_eq!(dead_letters(&env).await, 0, "nothing dead-lettered");
    assert_settled_and_verified(&env, workers, Duration::from_secs(120)).await;
}
