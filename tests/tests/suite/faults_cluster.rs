//! The fault suite on the clusters of `scripts/cluster` (docs/design.md
//! §17, §18): one seed (FAULT_CLUSTER_SEED, default 1) for FAULT_MINUTES
//! (default 1): Postgres' primary, RabbitMQ nodes and Redis' primary
//! killed among the processes' own faults. Serial, after the failovers.

use std::time::Duration;

use tests::bench::env_number;
use tests::faults::{self, Run};

#[tokio::test(flavor = "multi_thread")]
#[ignore = "needs scripts/cluster: scripts/test runs it alone"]
async fn a_ci_seed_on_the_clusters_finds_no_anomaly() {
    let seed = env_number("FAULT_CLUSTER_SEED", 1) as u64;
    let minutes = env_number("FAULT_MINUTES", 1) as u64;
    let run = Run::new(seed, Duration::from_secs(60 * minutes), true);
    let report = faults::run(&run).await.unwrap();
    eprint!("{}", report.summary());
    assert!(report.passed(), "{}", report.summary());
}
