//! Failed channel authentication, limited in process: after too many 401s in
//! a fixed window from one channel id or one client address, requests from it
//! are answered 429 with `Retry-After` until the window ends — even correctly
//! signed ones, or a guesser could keep trying. Successes are not counted.
//! Bounded: at most [`MAX_TRACKED`] keys per kind; when full and nothing has
//! expired, a new key goes untracked (its address is still limited).
//! A later issue brings limits shared through Redis.

use std::collections::HashMap;
use std::hash::Hash;
use std::net::IpAddr;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use axum::response::{IntoResponse, Response};
use uuid::Uuid;

use crate::api::http::error::ApiError;

/// Failed requests one channel id may make per window.
pub const CHANNEL_FAILURES: u32 = 20;
/// Failed requests one client address may make per window: higher, as one
/// gateway may front many channels.
pub const ADDRESS_FAILURES: u32 = 100;
pub const WINDOW: Duration = Duration::from_secs(60);
pub const MAX_TRACKED: usize = 10_000;

/// Fixed windows of failure counts per key (also `guess_limit`'s).
pub(crate) struct Windows<K> {
    limit: u32,
    started: HashMap<K, (Instant, u32)>,
}

impl<K: Hash + Eq> Windows<K> {
    pub(crate) fn new(limit: u32) -> Self {
        Self {
            limit,
            started: HashMap::new(),
        }
    }

    /// How long `key` must wait, if it has used up its window.
    pub(crate) fn wait(&self, key: &K, now: Instant) -> Option<Duration> {
        let (start, failures) = self.started.get(key)?;
        let end = *start + WINDOW;
        (*failures >= self.limit && now < end).then(|| end - now)
    }

    pub(crate) fn fail(&mut self, key: K, now: Instant) {
        if !self.started.contains_key(&key) && self.started.len() >= MAX_TRACKED {
            self.started.retain(|_, (start, _)| now < *start + WINDOW);
            if self.started.len() >= MAX_TRACKED {
                return;
            }
        }
        let entry = self.started.entry(key).or_insert((now, 0));
        if now >= entry.0 + WINDOW {
            *entry = (now, 0);
        }
        entry.1 = entry.1.saturating_add(1);
    }
}

struct Counts {
    channels: Windows<Uuid>,
    addresses: Windows<IpAddr>,
}

pub struct AuthLimit {
    counts: Mutex<Counts>,
}

impl Default for AuthLimit {
    fn default() -> Self {
        Self {
            counts: Mutex::new(Counts {
                channels: Windows::new(CHANNEL_FAILURES),
                addresses: Windows::new(ADDRESS_FAILURES),
            }),
        }
    }
}

impl AuthLimit {
    /// Err while the channel id or the address is limited.
    pub fn check(
        &self,
        channel: Option<Uuid>,
        address: Option<IpAddr>,
        now: Instant,
    ) -> Result<(), Limited> {
        let counts = self.lock();
        let by_channel = channel.and_then(|c| counts.channels.wait(&c, now));
        let by_address = address.and_then(|a| counts.addresses.wait(&a, now));
        match by_channel.max(by_address) {
            None => Ok(()),
            Some(retry_after) => Err(Limited {
                retry_after,
                what: "failed signatures",
            }),
        }
    }

    /// Counts one failed authentication against both keys.
    pub fn failed(&self, channel: Option<Uuid>, address: Option<IpAddr>, now: Instant) {
        let mut counts = self.lock();
        if let Some(c) = channel {
            counts.channels.fail(c, now);
        }
        if let Some(a) = address {
            counts.addresses.fail(a, now);
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Counts> {
        // Counts stay consistent even if a holder panicked.
        self.counts.lock().unwrap_or_else(|p| p.into_inner())
    }
}

/// A refusal: answered 429 with the standard body and `Retry-After`.
#[derive(Debug)]
pub struct Limited {
    pub retry_after: Duration,
    /// What there were too many of.
    pub what: &'static str,
}

impl IntoResponse for Limited {
    fn into_response(self) -> Response {
        ApiError::from(self).into_response()
    }
}

/// `Retry-After` is in whole seconds, rounded up.
impl From<Limited> for ApiError {
    fn from(limited: Limited) -> Self {
        let wait = limited.retry_after;
        let secs = (wait.as_secs() + u64::from(wait.subsec_nanos() > 0)).max(1);
        ApiError::Limited {
            message: format!("too many {}; retry after {secs} s", limited.what),
            retry_after: secs,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::http::header::RETRY_AFTER;

    fn retry_after(limited: Limited) -> u64 {
        let r = limited.into_response();
        assert_eq!(r.status(), 429);
        r.headers()[RETRY_AFTER].to_str().unwrap().parse().unwrap()
    }

    #[test]
    fn a_channel_is_limited_after_its_failures_until_the_window_ends() {
        let limit = AuthLimit::default();
        let (ch, other) = (Some(Uuid::new_v4()), Some(Uuid::new_v4()));
        let t0 = Instant::now();
        for _ in 0..CHANNEL_FAILURES {
            assert!(limit.check(ch, None, t0).is_ok());
            limit.failed(ch, None, t0);
        }
        let refused = limit
            .check(ch, None, t0 + Duration::from_millis(500))
            .unwrap_err();
        assert_eq!(retry_after(refused), 60);
        assert!(limit.check(other, None, t0).is_ok());
        assert!(limit.check(ch, None, t0 + WINDOW).is_ok());
        limit.failed(ch, None, t0 + WINDOW);
        assert!(limit.check(ch, None, t0 + WINDOW).is_ok(), "a new window");
    }

    #[test]
    fn an_address_is_limited_across_channels() {
        let limit = AuthLimit::default();
        let ip: Option<IpAddr> = Some("10.0.0.7".parse().unwrap());
        let t0 = Instant::now();
        for _ in 0..ADDRESS_FAILURES {
            limit.failed(Some(Uuid::new_v4()), ip, t0);
        }
        let refused = limit.check(Some(Uuid::new_v4()), ip, t0).unwrap_err();
        assert_eq!(retry_after(refused), 60);
        assert!(
            limit
                .check(None, Some("10.0.0.8".parse().unwrap()), t0)
                .is_ok()
        );
    }

    #[test]
    fn tracked_keys_are_bounded() {
        let mut windows = Windows::new(1);
        let t0 = Instant::now();
        for i in 0..MAX_TRACKED as u128 + 5 {
            windows.fail(Uuid::from_u128(i), t0);
        }
        assert_eq!(windows.started.len(), MAX_TRACKED);
        // Expired windows make room.
        windows.fail(Uuid::from_u128(u128::MAX), t0 + WINDOW);
        assert_eq!(windows.started.len(), 1);
    }
}
