//! The nemesis's schedule, derived from the seed alone: the same seed
//! gives the same faults, in the same order, at the same offsets, on any
//! machine (ChaCha8, whose stream is fixed by its specification).

use std::time::Duration;

use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde::Serialize;

/// One fault the nemesis can inject. Each heals itself after its time.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, strum::IntoStaticStr)]
#[strum(serialize_all = "kebab-case")]
#[serde(rename_all = "kebab-case")]
pub enum Fault {
    /// SIGKILL of `serve` i, started again when the fault heals.
    KillServe(usize),
    /// SIGSTOP of `serve` i, SIGCONT when it heals.
    PauseServe(usize),
    /// SIGKILL of `workers run`, started again when it heals.
    KillWorkers,
    /// SIGSTOP of `workers run`, SIGCONT when it heals.
    PauseWorkers,
    /// `workers run` started again with its clock minutes ahead
    /// (libfaketime), and again on time when it heals.
    SkewWorkersClock,
    /// Every connection to Postgres dropped, new ones refused (what a
    /// restart looks like from the ledger; on the cluster a real kill).
    CutPostgres,
    CutRabbitmq,
    CutRedis,
    /// Every chunk to and from the service delayed.
    SlowPostgres,
    SlowRabbitmq,
    SlowRedis,
    /// Redis restarted: everything it held is gone.
    RestartRedis,
    /// RabbitMQ's app stopped and started (every queue's consumers and
    /// publishers cut; durable messages stay).
    RestartRabbitmq,
    /// RabbitMQ's disk alarm raised: publishers block until it clears.
    RabbitmqDiskAlarm,
    /// Single nodes, and only in a schedule given whole (kept out of the
    /// seeded kinds so that every seed keeps its schedule): the link to
    /// Postgres slowed until every transaction takes seconds, the workers
    /// SIGKILLed meanwhile (each consumer in the middle of a batch), started
    /// again once it is fast.
    KillWorkersWhilePostgresSlow,
    /// Cluster only: Patroni's primary SIGKILLed (a failover).
    KillPostgresPrimary,
    /// Cluster only: one RabbitMQ node SIGKILLed, started when it heals.
    KillRabbitmqNode,
    /// Cluster only: the Redis primary SIGKILLed (Sentinel promotes).
    KillRedisPrimary,
}

impl Fault {
    /// The faults of a run on the single-node services.
    const SINGLE: [Fault; 15] = [
        Fault::KillServe(0),
        Fault::KillServe(1),
        Fault::PauseServe(0),
        Fault::PauseServe(1),
        Fault::KillWorkers,
        Fault::PauseWorkers,
        Fault::SkewWorkersClock,
        Fault::CutPostgres,
        Fault::CutRabbitmq,
        Fault::CutRedis,
        Fault::SlowPostgres,
        Fault::SlowRabbitmq,
        Fault::SlowRedis,
        Fault::RestartRedis,
        Fault::RestartRabbitmq,
    ];

    /// The faults of a run on the clusters: the processes' own, and the
    /// members' kills instead of the proxies.
    const CLUSTER: [Fault; 10] = [
        Fault::KillServe(0),
        Fault::KillServe(1),
        Fault::PauseServe(0),
        Fault::KillWorkers,
        Fault::PauseWorkers,
        Fault::SkewWorkersClock,
        Fault::KillPostgresPrimary,
        Fault::KillRabbitmqNode,
        Fault::KillRedisPrimary,
        Fault::RabbitmqDiskAlarm,
    ];

    /// The kinds a run may use.
    pub fn kinds(cluster: bool) -> Vec<Fault> {
        if cluster {
            Self::CLUSTER.to_vec()
        } else {
            let mut kinds = Self::SINGLE.to_vec();
            kinds.push(Fault::RabbitmqDiskAlarm);
            kinds
        }
    }

    /// The name reports use (`kill-serve` for both serves).
    pub fn name(self) -> &'static str {
        self.into()
    }
}

/// A fault and when it starts (from the workload's start) and how long it lasts.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Planned {
    pub at: Duration,
    pub lasts: Duration,
    pub fault: Fault,
}

/// No fault in the first and last seconds: the workload sets up and
/// the last requests settle with every service up.
const QUIET: Duration = Duration::from_secs(5);

/// The schedule of a run of `length` with `seed`: one fault at a time,
/// each kind once in a seeded order before any kind comes again, apart by
/// 2–6 s, each lasting 1–5 s (on a cluster 5–12 s: a failover takes that).
pub fn schedule(seed: u64, length: Duration, cluster: bool) -> Vec<Planned> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut deck = Vec::new();
    let mut at = QUIET;
    let mut planned = Vec::new();
    loop {
        if deck.is_empty() {
            deck = deal(&mut rng, cluster);
        }
        let lasts = if cluster {
            Duration::from_millis(rng.random_range(5_000..12_000))
        } else {
            Duration::from_millis(rng.random_range(1_000..5_000))
        };
        if at + lasts + QUIET > length {
            return planned;
        }
        let fault = deck.pop().expect("refilled above");
        planned.push(Planned { at, lasts, fault });
        at += lasts + Duration::from_millis(rng.random_range(2_000..6_000));
    }
}

/// A round of every kind, in a seeded order, to be taken from the end. On
/// the clusters the members' kills come first in each round: they are
/// what a cluster run is for, and a short run must meet them.
fn deal(rng: &mut ChaCha8Rng, cluster: bool) -> Vec<Fault> {
    let (mut members, mut rest): (Vec<Fault>, Vec<Fault>) = Fault::kinds(cluster)
        .into_iter()
        .partition(|f| f.kills_a_member());
    members.shuffle(rng);
    rest.shuffle(rng);
    rest.extend(members);
    rest
}

impl Fault {
    fn kills_a_member(self) -> bool {
        matches!(
            self,
            Fault::KillPostgresPrimary | Fault::KillRabbitmqNode | Fault::KillRedisPrimary
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_same_seed_gives_the_same_schedule_and_another_seed_another() {
        let minutes = Duration::from_secs(180);
        let one = schedule(7, minutes, false);
        assert_eq!(one, schedule(7, minutes, false));
        assert_ne!(one, schedule(8, minutes, false));
        assert!(one.len() >= 15, "three minutes hold every kind: {one:?}");
    }

    #[test]
    fn faults_never_overlap_and_leave_the_edges_quiet() {
        for seed in 0..50 {
            let length = Duration::from_secs(90);
            let planned = schedule(seed, length, seed % 2 == 0);
            for pair in planned.windows(2) {
                assert!(pair[0].at + pair[0].lasts < pair[1].at, "{pair:?}");
            }
            for p in &planned {
                assert!(p.at >= QUIET && p.at + p.lasts + QUIET <= length, "{p:?}");
            }
        }
    }

    #[test]
    fn a_cluster_run_meets_every_members_kill_first() {
        for seed in 0..20 {
            let planned = schedule(seed, Duration::from_secs(60), true);
            let first: Vec<Fault> = planned.iter().take(3).map(|p| p.fault).collect();
            assert!(first.iter().all(|f| f.kills_a_member()), "{first:?}");
        }
    }

    #[test]
    fn each_kind_comes_once_before_any_comes_twice() {
        let planned = schedule(3, Duration::from_secs(600), false);
        let kinds = Fault::kinds(false);
        let first: Vec<Fault> = planned.iter().take(kinds.len()).map(|p| p.fault).collect();
        for kind in kinds {
            assert!(first.contains(&kind), "{kind:?} missing from {first:?}");
        }
    }
}
