//! What a consumer counts against a message before dead-lettering it
//! (docs/design.md §5, "Retries"): only the failures the message itself
//! met. Postgres going away (a failover, a cut link) is waited out with
//! the message held, and a worker killed or a broker restarted redelivers
//! it; neither is the message's fault, so neither spends its attempts.
//! The quorum queue's own delivery count stays as a backstop for a
//! message that never reaches an outcome (one that brings its worker
//! down each time).

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::Duration;

use deadpool_postgres::PoolError;

/// Deliveries after which a message is dead-lettered without another
/// try: far above any run of kills and broker restarts, so only a message
/// that never ends reaches it.
pub const MAX_DELIVERIES: u32 = 50;

/// Failing messages remembered at once; past it the counts start over (a
/// message then gets more tries, never fewer), so a storm of failures
/// cannot grow the map without end.
const REMEMBERED: usize = 10_000;

/// Failures of the messages this worker is still trying, by message id.
/// Kept by the process across its sessions; a restart forgets them, which
/// only gives a failing message its attempts again.
#[derive(Default)]
pub struct Retries {
    failures: Mutex<HashMap<String, u32>>,
}

impl Retries {
    /// Counts a failure of `message_id`; how many it has met now.
    pub fn failed(&self, message_id: &str) -> u32 {
        let mut failures = self.failures.lock().expect("no panic holds this lock");
        if failures.len() >= REMEMBERED && !failures.contains_key(message_id) {
            failures.clear();
        }
        let count = failures.entry(message_id.to_owned()).or_default();
        *count += 1;
        *count
    }

    /// The message reached its outcome (applied or dead-lettered).
    pub fn done(&self, message_id: &str) {
        let mut failures = self.failures.lock().expect("no panic holds this lock");
        failures.remove(message_id);
    }
}

/// Whether `e` says Postgres is away for now (the connection lost, the
/// pool unable to open one, a failover under way) rather than that the
/// message cannot be applied.
pub fn postgres_away(e: &anyhow::Error) -> bool {
    e.chain().any(|cause| {
        if let Some(pg) = cause.downcast_ref::<tokio_postgres::Error>() {
            return ledger::db::unreachable(pg);
        }
        match cause.downcast_ref::<PoolError>() {
            Some(PoolError::Timeout(_)) => true,
            Some(PoolError::Backend(pg)) => ledger::db::unreachable(pg),
            _ => false,
        }
    })
}

/// The wait before trying a message again after its `failures`-th failure.
pub fn delay(failures: u32) -> Duration {
    Duration::from_millis(50u64 << failures.min(5))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn failures_are_counted_per_message_and_forgotten_once_done() {
        let retries = Retries::default();
        assert_eq!(retries.failed("a"), 1);
        assert_eq!(retries.failed("a"), 2);
        assert_eq!(retries.failed("b"), 1);
        retries.done("a");
        assert_eq!(retries.failed("a"), 1);
    }

    #[test]
    fn a_full_memory_starts_over_rather_than_growing() {
        let retries = Retries::default();
        for n in 0..REMEMBERED {
            retries.failed(&n.to_string());
        }
        assert_eq!(retries.failed("0"), 2, "a known message keeps its count");
        assert_eq!(retries.failed("new"), 1);
        assert_eq!(retries.failures.lock().unwrap().len(), 1);
    }

    #[test]
    fn a_pool_that_cannot_connect_is_postgres_away_and_a_plain_error_is_not() {
        let timeout = PoolError::Timeout(deadpool_postgres::TimeoutType::Create);
        let away = anyhow::Error::new(timeout).context("a chunk");
        assert!(postgres_away(&away));
        assert!(!postgres_away(&anyhow::Error::new(PoolError::Closed)));
        assert!(!postgres_away(&anyhow::anyhow!("the message is not JSON")));
    }
}
