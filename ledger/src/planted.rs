//! Bugs planted on purpose, for the fault suite to prove its checker can
//! fail (docs/design.md §18). Compiled only with the feature
//! `planted-bugs`, which only the test run turns on (the tests crate
//! depends on it; the shipped build, `-p ledger -p workers`, never selects
//! that crate, so Cargo never unifies the feature into it: `scripts/shipped`
//! proves it on every CI run). Without the feature, every [`active`] is the
//! constant `false`, and neither the names nor the variable are in the
//! binary.
//!
//! One bug at a time, named by `LEDGER_PLANTED_BUG` when a binary starts.

/// Every planted bug, by the name `LEDGER_PLANTED_BUG` gives it.
#[cfg_attr(
    feature = "planted-bugs",
    derive(strum::EnumString, strum::IntoStaticStr, strum::VariantArray),
    strum(serialize_all = "snake_case")
)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Bug {
    /// Consumers apply a message even when they have seen it: the inbox
    /// and the projections' own seen-checks (stream versions, a coupon
    /// already projected) skipped.
    SkipInbox,
    /// A claim ignores the template's per-user limit.
    DropQuotaGuard,
    /// A projection acks its messages before its transaction commits.
    AckBeforeCommit,
    /// One write in twenty is answered as done, then rolled back: the
    /// answer went out before the commit, which never came.
    AnswerBeforeCommit,
}

/// Whether `bug` is the one planted in this process.
#[cfg(feature = "planted-bugs")]
pub fn active(bug: Bug) -> bool {
    static PLANTED: std::sync::OnceLock<Option<Bug>> = std::sync::OnceLock::new();
    *PLANTED.get_or_init(|| {
        let name = std::env::var("LEDGER_PLANTED_BUG").ok()?;
        let bug = name.parse().ok();
        tracing::warn!(bug = name, known = bug.is_some(), "a planted bug is on");
        bug
    }) == Some(bug)
}

/// Whether `bug` is the one planted in this process: never, in this build.
#[cfg(not(feature = "planted-bugs"))]
pub const fn active(_bug: Bug) -> bool {
    false
}

/// For [`Bug::AnswerBeforeCommit`]: whether this write is one of the one
/// in twenty it loses. The process's first 100 writes are kept: they are
/// the fault run's setup (templates, channels, code batches), spread over
/// the servers in no fixed order, and a setup that stops on a lost write
/// would say nothing of whether the checks catch the bug.
pub fn loses_this_write() -> bool {
    use std::sync::atomic::{AtomicU64, Ordering};
    static WRITES: AtomicU64 = AtomicU64::new(0);
    if !active(Bug::AnswerBeforeCommit) {
        return false;
    }
    let n = WRITES.fetch_add(1, Ordering::Relaxed);
    n >= SETUP_WRITES && n % 20 == 19
}

/// Writes of a process the planted lost write leaves alone (the setup's).
const SETUP_WRITES: u64 = 100;
