//! Each app key's own request rate (docs/design.md §19): a token bucket
//! per key and process, from the key's `rate_limit`. In process, like a
//! proxy's limit at the edge: N servers allow N times the rate, which the
//! key's owner sizes for; what must hold across servers (code guesses) is
//! counted in Redis (`guess_limit`).

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use crate::commands::api_keys::MAX_KEYS;
use crate::domain::rate_limit::{Bucket, Level};

/// Buckets kept: every live key's, and room for keys revoked meanwhile.
const MAX_BUCKETS: usize = 2 * MAX_KEYS as usize;

pub struct KeyLimit {
    started: Instant,
    levels: Mutex<HashMap<String, Level>>,
}

impl Default for KeyLimit {
    fn default() -> Self {
        Self {
            started: Instant::now(),
            levels: Mutex::default(),
        }
    }
}

impl KeyLimit {
    /// One request of `key`: None when allowed, else the wait for a token.
    pub fn take(&self, key: &str, bucket: Bucket) -> Option<Duration> {
        let now_ms = u64::try_from(self.started.elapsed().as_millis()).unwrap_or(u64::MAX);
        let mut levels = self.levels.lock().unwrap_or_else(|e| e.into_inner());
        if levels.len() >= MAX_BUCKETS && !levels.contains_key(key) {
            // Only keys gone since can fill it; a new bucket starts full.
            levels.clear();
        }
        let (level, wait) = bucket.take(levels.get(key).copied(), now_ms);
        levels.insert(key.to_owned(), level);
        wait
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_key_gets_its_burst_then_waits_and_another_key_is_apart() {
        let limit = KeyLimit::default();
        let bucket = Bucket {
            per_second: 1,
            burst: 3,
        };
        for _ in 0..3 {
            assert_eq!(limit.take("a", bucket), None);
        }
        assert!(
            limit
                .take("a", bucket)
                .is_some_and(|w| w <= Duration::from_secs(1))
        );
        assert_eq!(limit.take("b", bucket), None);
    }
}
