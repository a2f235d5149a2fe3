//! Failed redemptions, limited against guessing codes: after too many 404s
//! in a fixed window ([`WINDOW`]) for one user or from one client address,
//! that user's or address's redemptions are answered 429 with `Retry-After`
//! until the window ends, even with a good code. Successes are not counted.
//! A random string passes the code check once in 2^19 tries, so at these
//! limits guessing one code takes years per address.
//!
//! The counts are shared through Redis ([`crate::api::auth::shared_windows`]), so N API
//! processes allow the limit once, not N times. Each process also keeps its
//! own counts in the same bounded windows as failed signatures
//! (`auth_limit`), always: when Redis is down or errs, those answer, so the
//! limit still holds per process, from the failures it has already seen.
//! A check refuses when either count is used up: the in-process one can
//! only be the lower (it sees a subset of the failures) unless Redis lost
//! its keys, and then it is the one that still remembers.

use std::net::IpAddr;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use crate::api::auth::auth_limit::{Limited, WINDOW, Windows};
use crate::api::auth::shared_windows::{self, Counter};
use crate::redis_handle::RedisHandle;

/// Failed redemptions one user may make per window.
pub const USER_FAILURES: u32 = 10;
/// Failed redemptions one client address may make per window (one address
/// may front many users).
pub const ADDRESS_FAILURES: u32 = 50;

struct Counts {
    users: Windows<String>,
    addresses: Windows<IpAddr>,
}

pub struct GuessLimit {
    /// Where the counts are shared; None counts in process only.
    redis: Option<RedisHandle>,
    /// This process's own counts: the answer while Redis cannot give one.
    counts: Mutex<Counts>,
}

impl GuessLimit {
    /// Counts shared through `redis`, and in process as the fallback.
    pub fn shared(redis: RedisHandle) -> Self {
        Self::with(Some(redis))
    }

    /// Counts in this process only.
    pub fn in_process() -> Self {
        Self::with(None)
    }

    fn with(redis: Option<RedisHandle>) -> Self {
        Self {
            redis,
            counts: Mutex::new(Counts {
                users: Windows::new(USER_FAILURES),
                addresses: Windows::new(ADDRESS_FAILURES),
            }),
        }
    }

    /// Err while the user or the address is limited, here or in Redis.
    pub async fn check(
        &self,
        user: &str,
        address: Option<IpAddr>,
        now: Instant,
    ) -> Result<(), Limited> {
        let here = self.wait_here(user, address, now);
        let shared = self.wait_shared(user, address).await;
        match here.max(shared) {
            None => Ok(()),
            Some(retry_after) => Err(Limited {
                retry_after,
                what: "failed redemptions",
            }),
        }
    }

    /// Counts one failed redemption against both keys, here and in Redis.
    pub async fn failed(&self, user: &str, address: Option<IpAddr>, now: Instant) {
        self.fail_here(user, address, now);
        self.fail_shared(user, address).await;
    }

    fn wait_here(&self, user: &str, address: Option<IpAddr>, now: Instant) -> Option<Duration> {
        let counts = self.lock();
        let by_user = counts.users.wait(&user.to_owned(), now);
        let by_address = address.and_then(|a| counts.addresses.wait(&a, now));
        by_user.max(by_address)
    }

    fn fail_here(&self, user: &str, address: Option<IpAddr>, now: Instant) {
        let mut counts = self.lock();
        counts.users.fail(user.to_owned(), now);
        if let Some(a) = address {
            counts.addresses.fail(a, now);
        }
    }

    /// Redis's wait; None when Redis is not limiting, or cannot say.
    async fn wait_shared(&self, user: &str, address: Option<IpAddr>) -> Option<Duration> {
        let redis = self.redis.as_ref()?;
        let mut conn = redis.connection().await?;
        let counters = counters(redis, user, address);
        match shared_windows::wait(&mut conn, &counters).await {
            Ok(wait) => wait,
            Err(e) => {
                redis_failed(redis, &e);
                None
            }
        }
    }

    async fn fail_shared(&self, user: &str, address: Option<IpAddr>) {
        let Some(redis) = &self.redis else { return };
        let Some(mut conn) = redis.connection().await else {
            return;
        };
        let counters = counters(redis, user, address);
        if let Err(e) = shared_windows::fail(&mut conn, &counters, WINDOW).await {
            redis_failed(redis, &e);
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Counts> {
        // Counts stay consistent even if a holder panicked.
        self.counts.lock().unwrap_or_else(|p| p.into_inner())
    }
}

/// The Redis counters of the user and of the address.
fn counters(redis: &RedisHandle, user: &str, address: Option<IpAddr>) -> Vec<Counter> {
    let mut counters = vec![Counter {
        key: redis.key(&["guess", "user", user]),
        limit: USER_FAILURES,
    }];
    if let Some(a) = address {
        counters.push(Counter {
            key: redis.key(&["guess", "address", &a.to_string()]),
            limit: ADDRESS_FAILURES,
        });
    }
    counters
}

/// Reports a failed Redis call, so the next ones skip Redis for a while:
/// the in-process counts decide meanwhile.
fn redis_failed(redis: &RedisHandle, error: &redis::RedisError) {
    tracing::debug!(error = %error, "guess limit: redis failed, counting in process");
    redis.report_failure();
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_user_is_limited_after_their_failures_and_others_are_not() {
        let limit = GuessLimit::in_process();
        let t0 = Instant::now();
        for _ in 0..USER_FAILURES {
            assert!(limit.check("u1", None, t0).await.is_ok());
            limit.failed("u1", None, t0).await;
        }
        assert!(limit.check("u1", None, t0).await.is_err());
        assert!(limit.check("u2", None, t0).await.is_ok());
        let later = t0 + WINDOW;
        assert!(limit.check("u1", None, later).await.is_ok());
    }

    #[tokio::test]
    async fn an_address_is_limited_across_users() {
        let limit = GuessLimit::in_process();
        let (t0, ip) = (Instant::now(), Some(IpAddr::from([10, 0, 0, 1])));
        for i in 0..ADDRESS_FAILURES {
            limit.failed(&format!("u{i}"), ip, t0).await;
        }
        assert!(limit.check("fresh", ip, t0).await.is_err());
        assert!(limit.check("fresh", None, t0).await.is_ok());
    }

    /// Redis down (nothing listens on port 1): the in-process counts answer.
    #[tokio::test]
    async fn with_redis_down_the_process_still_limits() {
        let redis = RedisHandle::new("redis://127.0.0.1:1/", "guess-test:").unwrap();
        let limit = GuessLimit::shared(redis);
        let t0 = Instant::now();
        for _ in 0..USER_FAILURES {
            assert!(limit.check("u1", None, t0).await.is_ok());
            limit.failed("u1", None, t0).await;
        }
        let refused = limit.check("u1", None, t0).await.unwrap_err();
        assert_eq!(refused.retry_after, WINDOW);
        assert!(limit.check("u2", None, t0).await.is_ok());
    }
}
