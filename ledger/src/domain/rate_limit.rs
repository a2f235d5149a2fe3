//! A template's claim rate limits (docs/design.md §12), pure: token buckets per
//! channel and per user, and the decision one claim gets from a bucket.
//!
//! A bucket holds at most `burst` tokens and gains `per_second` a second; a
//! claim takes one token or is refused with the wait until the next token.
//! Levels are kept in thousandths of a token, so a slow refill (1 a second)
//! still moves every millisecond and no floats are involved.

use std::time::Duration;

use serde::{Deserialize, Serialize};

/// The largest rate or burst a template may set.
pub const MAX_RATE: u32 = 1_000_000;

/// One token bucket: a steady rate and the burst allowed above it.
#[derive(
    Clone,
    Copy,
    Debug,
    PartialEq,
    Eq,
    Serialize,
    Deserialize,
    schemars::JsonSchema,
    utoipa::ToSchema,
)]
#[serde(deny_unknown_fields)]
// `Bucket` is taken in the OpenAPI document by the stats' buckets.
#[schema(as = RateLimitBucket)]
pub struct Bucket {
    /// Claims a second, 1 to 1,000,000.
    #[schemars(range(min = 1, max = 1_000_000))]
    #[schema(minimum = 1, maximum = 1_000_000)]
    pub per_second: u32,
    /// Claims allowed at once after a quiet spell, 1 to 1,000,000.
    #[schemars(range(min = 1, max = 1_000_000))]
    #[schema(minimum = 1, maximum = 1_000_000)]
    pub burst: u32,
}

/// `rate_limit` of a template: either bucket may be absent (no limit).
#[derive(
    Clone,
    Copy,
    Debug,
    Default,
    PartialEq,
    Eq,
    Serialize,
    Deserialize,
    schemars::JsonSchema,
    utoipa::ToSchema,
)]
#[serde(deny_unknown_fields)]
pub struct RateLimit {
    /// Every channel's claims on this template, each channel on its own bucket.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub per_channel: Option<Bucket>,
    /// Every user's claims on this template, each user on its own bucket.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub per_user: Option<Bucket>,
}

#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum RateLimitError {
    #[error("{0}.per_second must be 1 to 1000000")]
    Rate(&'static str),
    #[error("{0}.burst must be 1 to 1000000")]
    Burst(&'static str),
}

impl RateLimit {
    /// Checks the ranges of a limit as it arrived (serde did the shape).
    pub fn validate(self) -> Result<Self, RateLimitError> {
        for (name, bucket) in [
            ("per_channel", self.per_channel),
            ("per_user", self.per_user),
        ] {
            if let Some(b) = bucket {
                b.validate(name)?;
            }
        }
        Ok(self)
    }

    pub fn is_empty(&self) -> bool {
        self.per_channel.is_none() && self.per_user.is_none()
    }
}

/// A bucket as a row's two integer columns (`per_second`, `burst`; an app
/// key's rate, docs/design.md §19). Its numbers are at most 1,000,000: they fit.
pub fn columns(limit: Option<Bucket>) -> (Option<i32>, Option<i32>) {
    let column = |n: u32| i32::try_from(n).unwrap_or(i32::MAX);
    (
        limit.map(|b| column(b.per_second)),
        limit.map(|b| column(b.burst)),
    )
}

/// A bucket's level: thousandths of a token, as of `at_ms` (milliseconds on
/// the caller's clock).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Level {
    pub millitokens: u64,
    pub at_ms: u64,
}

impl Bucket {
    /// Checks the ranges of a bucket as it arrived, named `name` in the error.
    pub fn validate(self, name: &'static str) -> Result<Self, RateLimitError> {
        if !(1..=MAX_RATE).contains(&self.per_second) {
            return Err(RateLimitError::Rate(name));
        }
        if !(1..=MAX_RATE).contains(&self.burst) {
            return Err(RateLimitError::Burst(name));
        }
        Ok(self)
    }

    fn capacity(&self) -> u64 {
        u64::from(self.burst) * 1000
    }

    /// Takes one token at `now_ms` from `level` (None: a full bucket). Returns
    /// the new level and, when refused, how long until a token is there.
    pub fn take(&self, level: Option<Level>, now_ms: u64) -> (Level, Option<Duration>) {
        let level = level.unwrap_or(Level {
            millitokens: self.capacity(),
            at_ms: now_ms,
        });
        // A clock that went back refills nothing rather than underflowing.
        let elapsed = now_ms.saturating_sub(level.at_ms);
        let refill = elapsed.saturating_mul(u64::from(self.per_second));
        let millitokens = level
            .millitokens
            .saturating_add(refill)
            .min(self.capacity());
        let now = Level {
            millitokens,
            at_ms: now_ms.max(level.at_ms),
        };
        if millitokens >= 1000 {
            let left = Level {
                millitokens: millitokens - 1000,
                ..now
            };
            return (left, None);
        }
        let missing = 1000 - millitokens;
        let wait_ms = missing.div_ceil(u64::from(self.per_second));
        (now, Some(Duration::from_millis(wait_ms)))
    }
}

/// Whole seconds for `Retry-After`: at least 1, rounded up.
pub fn retry_after_secs(wait: Duration) -> u64 {
    wait.as_millis().div_ceil(1000).max(1) as u64
}

#[cfg(test)]
mod tests {
    use super::*;

    const B: Bucket = Bucket {
        per_second: 2,
        burst: 3,
    };

    #[test]
    fn a_full_bucket_allows_the_burst_then_refuses_with_the_wait() {
        let mut level = None;
        for _ in 0..3 {
            let (l, refused) = B.take(level, 1_000);
            assert_eq!(refused, None);
            level = Some(l);
        }
        let (_, refused) = B.take(level, 1_000);
        assert_eq!(refused, Some(Duration::from_millis(500)));
    }

    #[test]
    fn tokens_come_back_at_the_rate_and_never_above_the_burst() {
        let empty = Level {
            millitokens: 0,
            at_ms: 0,
        };
        assert!(B.take(Some(empty), 499).1.is_some());
        assert!(B.take(Some(empty), 500).1.is_none());
        let (after_long_quiet, _) = B.take(Some(empty), 1_000_000);
        assert_eq!(after_long_quiet.millitokens, 2_000, "3 tokens, one taken");
    }

    #[test]
    fn a_clock_going_back_refills_nothing() {
        let level = Level {
            millitokens: 0,
            at_ms: 10_000,
        };
        let (l, refused) = B.take(Some(level), 5_000);
        assert!(refused.is_some());
        assert_eq!(l.at_ms, 10_000);
    }

    #[test]
    fn ranges_are_checked() {
        let zero = RateLimit {
            per_user: Some(Bucket {
                per_second: 0,
                burst: 1,
            }),
            per_channel: None,
        };
        assert_eq!(zero.validate(), Err(RateLimitError::Rate("per_user")));
        assert_eq!(retry_after_secs(Duration::from_millis(1)), 1);
        assert_eq!(retry_after_secs(Duration::from_millis(1001)), 2);
    }
}
