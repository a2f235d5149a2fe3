//! Archiving at scale, online (docs/design.md §16): a store holding
//! ARCHIVE_SCALE_COUPONS coupons that ended 120 days ago (default 200,000;
//! the figure, 5,000,000, in docs/benchmarks.md) is archived by the
//! archiver worker while 64 clients claim on a hot template and an
//! ARCHIVE_SCALE_LINES-line issuance runs (default 100,000; the issue's
//! 1,000,000). No request fails, no coupon is lost or in both tables, every
//! claim and every line has its coupon, and replay --verify and audit
//! verify pass afterwards.
//!
//! Ignored in the parallel run (it loads the machine); `scripts/test` runs
//! it alone.

use std::sync::Arc;
use std::time::{Duration, Instant};

use ledger::testkit::count;
use tests::bench::env_number;
use tests::cold_store::{add_ended, skip_setup};
use tests::uploads::{self, upload};
use tests::workers::{Workers, assert_settled_and_verified};
use tests::{Env, Server};

const CLIENTS: usize = 64;
const CLAIMS_PER_CLIENT: usize = 50;

/// 64 clients, each claiming for users of its own until it made its claims;
/// every answer must be 201.
async fn claim_storm(server: Arc<Server>, sn: String) -> usize {
    let channel = Arc::new(server.channel_for(&sn).await.unwrap());
    let mut tasks = tokio::task::JoinSet::new();
    for c in 0..CLIENTS {
        let (server, channel, sn) = (server.clone(), channel.clone(), sn.clone());
        tasks.spawn(async move {
            for i in 0..CLAIMS_PER_CLIENT {
                let user = format!("hot-{c}-{i}");
                let (status, body) = server.claim(&channel, &sn, &user).await.unwrap();
                assert_eq!(status, 201, "{user}: {body}");
            }
        });
    }
    while let Some(done) = tasks.join_next().await {
        done.unwrap();
    }
    CLIENTS * CLAIMS_PER_CLIENT
}

#[tokio::test(flavor = "multi_thread")]
#[ignore = "loads the machine: scripts/test runs it alone"]
async fn archiving_while_claims_and_an_issuance_run_loses_and_doubles_nothing() {
    let number = |name, default| i64::try_from(env_number(name, default)).unwrap();
    let coupons = number("ARCHIVE_SCALE_COUPONS", 200_000);
    let lines = number("ARCHIVE_SCALE_LINES", 100_000);
    let env = Env::new().await.unwrap();
    let client = env.db.client().await.unwrap();
    let started = Instant::now();
    add_ended(&client, coupons).await;
    skip_setup(&client).await;
    client.batch_execute("VACUUM ANALYZE").await.unwrap();
    eprintln!(
        "{coupons} ended coupons written in {:.0?}",
        started.elapsed()
    );

    let server = Arc::new(Server::start(&env).await.unwrap());
    let hot = server.active_template(1_000_000, 1).await.unwrap();
    let bulk = server.active_template(lines + 1, 1).await.unwrap();
    let workers = "relay,balances,template_stats,notify,issuance,sealer,archiver";
    let workers = Workers::start(&env, workers).unwrap();
    let started = Instant::now();

    let file: String = (0..lines).map(|i| format!("bulk-{i}\n")).collect();
    let ((status, job), claims) = tokio::join!(
        upload(&server, &bulk, file.into_bytes(), &[]),
        claim_storm(server.clone(), hot.clone())
    );
    assert_eq!(status, 202, "{job}");
    let claimed_in = started.elapsed();
    let id = job["job_id"].as_str().unwrap();
    let job = uploads::wait_done(&server, id, Duration::from_secs(1800)).await;
    assert_eq!(job["issued"].as_i64(), Some(lines), "{job}");
    let deadline = Instant::now() + Duration::from_secs(1800);
    while count(
        &client,
        "SELECT count(*) FROM coupons WHERE status = 'expired'",
        &[],
    )
    .await
        > 0
    {
        assert!(Instant::now() < deadline, "the archiver did not finish");
        tokio::time::sleep(Duration::from_millis(500)).await;
    }
    eprintln!(
        "{claims} claims in {claimed_in:.1?}; issuance and archive done in {:.1?}",
        started.elapsed()
    );

    let archived = count(&client, "SELECT count(*) FROM coupons_archive", &[]).await;
    assert_eq!(archived, coupons, "every ended coupon moved, nothing else");
    let both = "SELECT count(*) FROM coupons c JOIN coupons_archive a USING (id)";
    assert_eq!(
        count(&client, both, &[]).await,
        0,
        "no coupon in both tables"
    );
    let hot_rows = count(&client, "SELECT count(*) FROM coupons", &[]).await;
    assert_eq!(
        hot_rows,
        claims as i64 + lines,
        "every claim and line has its coupon"
    );
    let issued = "SELECT count(*) FROM events WHERE event_type = 'CouponIssued'";
    assert_eq!(
        count(&client, issued, &[]).await,
        coupons + claims as i64 + lines
    );

    assert_settled_and_verified(&env, workers, Duration::from_secs(600)).await;
}
