//! The fault suite on the single-node services (docs/design.md §18):
//! seeds FAULT_SEEDS (default 2,3 in CI; `FAULT_SEEDS=2,3,4` and more are
//! the benchmark's run, docs/benchmarks.md), FAULT_MINUTES each (default 1).
//! Ignored in the parallel suite: a run restarts this machine's RabbitMQ
//! app and raises its disk alarm, so `scripts/test` runs it alone.

use std::time::Duration;

use tests::bench::env_number;
use tests::faults::{self, Run};

#[tokio::test(flavor = "multi_thread")]
#[ignore = "restarts RabbitMQ: scripts/test runs it alone"]
async fn ci_seeds_on_single_nodes_find_no_anomaly() {
    let seeds = std::env::var("FAULT_SEEDS").unwrap_or_else(|_| "2,3".into());
    let minutes = env_number("FAULT_MINUTES", 1) as u64;
    for seed in seeds.split(',').map(|s| s.trim().parse::<u64>().unwrap()) {
        let run = Run::new(seed, Duration::from_secs(60 * minutes), false);
        let report = faults::run(&run).await.unwrap();
        eprint!("{}", report.summary());
        assert!(report.passed(), "seed {seed}: {}", report.summary());
        assert!(!report.injected.is_empty(), "seed {seed} injected nothing");
    }
}
