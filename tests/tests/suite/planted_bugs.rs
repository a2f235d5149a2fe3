//! The fault suite's checker can fail (docs/design.md §18): with each bug
//! planted in the binaries (feature `planted-bugs`, this crate only), a
//! short run under faults that reach it ends with the checker naming the
//! check the bug breaks. The faults here touch only the run's own links
//! and processes, so these run in the parallel suite.

use std::time::Duration;

use tests::faults::schedule::{Fault, Planned};
use tests::faults::{self, Run};

/// Half the suite's clients: these run beside the parallel suite's tests.
const CLIENTS: usize = 6;

/// Cuts and kills that reach each bug: the database gone while messages
/// arrive, the broker's link cut under the relay, the workers killed
/// mid-batch (with the database slowed, every consumer is mid-batch).
fn schedule() -> Vec<Planned> {
    let plan = [
        (4, 1, Fault::CutPostgres),
        (7, 1, Fault::KillWorkers),
        (10, 1, Fault::CutRabbitmq),
        (13, 3, Fault::KillWorkersWhilePostgresSlow),
        (18, 1, Fault::KillServe(0)),
        (21, 1, Fault::KillWorkers),
        (23, 1, Fault::CutRabbitmq),
        (25, 1, Fault::KillWorkers),
    ];
    plan.iter()
        .map(|(at, lasts, fault)| Planned {
            at: Duration::from_secs(*at),
            lasts: Duration::from_secs(*lasts),
            fault: *fault,
        })
        .collect()
}

/// Runs 30 s with `bug` planted; the checks that failed.
async fn caught(bug: &str) -> Vec<&'static str> {
    let mut run = Run::new(100, Duration::from_secs(30), false);
    run.planted = Some(bug.to_owned());
    run.schedule = Some(schedule());
    run.clients = CLIENTS;
    let report = faults::run(&run).await.unwrap();
    eprint!("{}", report.summary());
    report.failed_checks()
}

#[tokio::test(flavor = "multi_thread")]
async fn a_claim_past_the_per_user_limit_is_named() {
    let checks = caught("drop_quota_guard").await;
    assert!(checks.contains(&"per_user_limit"), "{checks:?}");
}

#[tokio::test(flavor = "multi_thread")]
async fn an_answer_sent_before_its_commit_is_named() {
    let checks = caught("answer_before_commit").await;
    assert!(checks.contains(&"acknowledged_effect_exists"), "{checks:?}");
}

/// Without a planted bug the same run is clean: what the tests above see
/// is the bug, not the schedule.
#[tokio::test(flavor = "multi_thread")]
async fn the_same_faults_without_a_bug_find_nothing() {
    let run = Run {
        schedule: Some(schedule()),
        clients: CLIENTS,
        ..Run::new(101, Duration::from_secs(30), false)
    };
    let report = faults::run(&run).await.unwrap();
    assert!(report.passed(), "{}", report.summary());
}

#[tokio::test(flavor = "multi_thread")]
async fn a_message_acked_before_its_commit_is_named() {
    let checks = caught("ack_before_commit").await;
    assert!(checks.contains(&"acked_after_commit"), "{checks:?}");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_message_applied_twice_is_named() {
    let checks = caught("skip_inbox").await;
    assert!(checks.contains(&"projections"), "{checks:?}");
}
