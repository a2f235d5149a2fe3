//! Bugs planted on purpose, for the fault suite to prove its checker can
//! fail (docs/design.md §18). Compiled only with the feature
//! `planted-bugs`, which only the tests crate turns on; without it every
//! [`active`] is the constant `false` and the bugs do not exist.
//!
//! One bug at a time, named by `LEDGER_PLANTED_BUG` when a binary starts.

use strum::{EnumString, IntoStaticStr};

/// Every planted bug, by the name `LEDGER_PLANTED_BUG` gives it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, EnumString, IntoStaticStr, strum::VariantArray)]
#[strum(serialize_all = "snake_case")]
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
/// in twenty it loses.
pub fn loses_this_write() -> bool {
    use std::sync::atomic::{AtomicU64, Ordering};
    static WRITES: AtomicU64 = AtomicU64::new(0);
    active(Bug::AnswerBeforeCommit) && WRITES.fetch_add(1, Ordering::Relaxed) % 20 == 19
}
