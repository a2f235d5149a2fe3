//! The rate limits in process, for when Redis cannot answer: the same token
//! buckets ([`Bucket::take`]), per process instead of shared. Two processes
//! then each allow the full rate: limits loosen while Redis is down, they
//! never vanish.

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use crate::domain::ids::TemplateSn;
use crate::domain::rate_limit::{Bucket, Level, RateLimit};

/// Buckets tracked at most; when full, buckets that refilled are dropped
/// (a full bucket is the same as none), and if none has, all are.
const MAX_BUCKETS: usize = 100_000;

pub struct LocalLimit {
    started: Instant,
    buckets: Mutex<HashMap<String, (Bucket, Level)>>,
}

impl Default for LocalLimit {
    fn default() -> Self {
        Self {
            started: Instant::now(),
            buckets: Mutex::default(),
        }
    }
}

impl LocalLimit {
    /// One claim's tokens: None when allowed, else the wait for a token.
    pub fn take(
        &self,
        limit: &RateLimit,
        sn: &TemplateSn,
        channel: Option<crate::domain::ids::ChannelId>,
        user: &str,
    ) -> Option<Duration> {
        let now_ms = u64::try_from(self.started.elapsed().as_millis()).unwrap_or(u64::MAX);
        let channel = channel.map_or_else(|| "-".to_owned(), |c| c.to_string());
        let wanted = [
            (limit.per_channel, format!("{sn}:ch:{channel}")),
            (limit.per_user, format!("{sn}:u:{user}")),
        ];
        let mut buckets = self.buckets.lock().unwrap_or_else(|e| e.into_inner());
        if buckets.len() >= MAX_BUCKETS {
            buckets.retain(|_, (b, l)| {
                b.take(Some(*l), now_ms).0.millitokens < u64::from(b.burst) * 1000 - 1000
            });
            if buckets.len() >= MAX_BUCKETS {
                buckets.clear();
            }
        }
        // Both buckets must have a token before either is taken.
        let mut taken = Vec::with_capacity(2);
        for (bucket, key) in wanted {
            let Some(bucket) = bucket else { continue };
            let level = buckets.get(&key).map(|(_, l)| *l);
            match bucket.take(level, now_ms) {
                (_, Some(wait)) => return Some(wait),
                (level, None) => taken.push((key, bucket, level)),
            }
        }
        for (key, bucket, level) in taken {
            buckets.insert(key, (bucket, level));
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::ids::ChannelId;

    #[test]
    fn a_channel_over_its_burst_waits_and_another_channel_does_not() {
        let limit = RateLimit {
            per_channel: Some(Bucket {
                per_second: 1,
                burst: 2,
            }),
            per_user: None,
        };
        let local = LocalLimit::default();
        let (a, b) = (
            Some(ChannelId(uuid::Uuid::from_u128(1))),
            Some(ChannelId(uuid::Uuid::from_u128(2))),
        );
        assert_eq!(local.take(&limit, &"T".into(), a, "u1"), None);
        assert_eq!(local.take(&limit, &"T".into(), a, "u2"), None);
        assert!(local.take(&limit, &"T".into(), a, "u3").is_some());
        assert_eq!(local.take(&limit, &"T".into(), b, "u4"), None);
    }
}
