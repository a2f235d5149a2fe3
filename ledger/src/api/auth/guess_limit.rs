//! Failed redemptions, limited against guessing codes: after too many 404s
//! in a fixed window ([`WINDOW`]) for one user, from one client address or
//! by one caller (the service token, a channel), that user's, address's or
//! caller's redemptions are answered 429 with `Retry-After` until the
//! window ends, even with a good code. Successes are not counted. A random
//! string passes the code check once in 2^19 tries, so at these limits
//! guessing one code takes years per address. The caller's own budget is
//! what bounds a caller that varies the user and the `X-Forwarded-For` it
//! sends on every try: it is larger (a caller fronts many users) but finite.
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
use crate::redis_link::RedisHandle;

/// Failed redemptions one user may make per window.
pub const USER_FAILURES: u32 = 10;
/// Failed redemptions one client address may make per window (one address
/// may front many users).
pub const ADDRESS_FAILURES: u32 = 50;
/// Failed redemptions one caller (the service, a channel) may make per
/// window, whatever users and addresses it names: 2,000 a minute is far
/// above the mistypes of a busy app's users, and leaves a guesser that
/// varies both about a code in 2^19 / 2,000 ≈ 4 hours of tries that pass
/// the check character, of which only issued serials are codes.
pub const CALLER_FAILURES: u32 = 2_000;

/// Who a redemption's failures count against.
#[derive(Clone, Copy, Debug)]
pub struct Guesser<'a> {
    pub user: &'a str,
    /// The end user's address, when known.
    pub address: Option<IpAddr>,
    /// The credential that asked: `service`, or `channel:<id>`.
    pub caller: &'a str,
}

struct Counts {
    users: Windows<String>,
    addresses: Windows<IpAddr>,
    callers: Windows<String>,
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
                callers: Windows::new(CALLER_FAILURES),
            }),
        }
    }

    /// Err while the user, the address or the caller is limited, here or
    /// in Redis.
    pub async fn check(&self, who: Guesser<'_>, now: Instant) -> Result<(), Limited> {
        let here = self.wait_here(who, now);
        let shared = self.wait_shared(who).await;
        match here.max(shared) {
            None => Ok(()),
            Some(retry_after) => Err(Limited {
                retry_after,
                what: "failed redemptions",
            }),
        }
    }

    /// Counts one failed redemption against each key, here and in Redis.
    pub async fn failed(&self, who: Guesser<'_>, now: Instant) {
        self.fail_here(who, now);
        self.fail_shared(who).await;
    }

    fn wait_here(&self, who: Guesser<'_>, now: Instant) -> Option<Duration> {
        let counts = self.lock();
        let by_user = counts.users.wait(&who.user.to_owned(), now);
        let by_address = who.address.and_then(|a| counts.addresses.wait(&a, now));
        let by_caller = counts.callers.wait(&who.caller.to_owned(), now);
        by_user.max(by_address).max(by_caller)
    }

    fn fail_here(&self, who: Guesser<'_>, now: Instant) {
        let mut counts = self.lock();
        counts.users.fail(who.user.to_owned(), now);
        if let Some(a) = who.address {
            counts.addresses.fail(a, now);
        }
        counts.callers.fail(who.caller.to_owned(), now);
    }

    /// Redis's wait; None when Redis is not limiting, or cannot say.
    async fn wait_shared(&self, who: Guesser<'_>) -> Option<Duration> {
        let redis = self.redis.as_ref()?;
        let mut conn = redis.connection().await?;
        let counters = counters(redis, who);
        match shared_windows::wait(&mut conn, &counters).await {
            Ok(wait) => wait,
            Err(e) => {
                redis_failed(redis, &e);
                None
            }
        }
    }

    async fn fail_shared(&self, who: Guesser<'_>) {
        let Some(redis) = &self.redis else { return };
        let Some(mut conn) = redis.connection().await else {
            return;
        };
        let counters = counters(redis, who);
        if let Err(e) = shared_windows::fail(&mut conn, &counters, WINDOW).await {
            redis_failed(redis, &e);
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Counts> {
        // Counts stay consistent even if a holder panicked.
        self.counts.lock().unwrap_or_else(|p| p.into_inner())
    }
}

/// The Redis counters of the user, the address and the caller.
fn counters(redis: &RedisHandle, who: Guesser<'_>) -> Vec<Counter> {
    let mut counters = vec![
        Counter {
            key: redis.key(&["guess", "user", who.user]),
            limit: USER_FAILURES,
        },
        Counter {
            key: redis.key(&["guess", "caller", who.caller]),
            limit: CALLER_FAILURES,
        },
    ];
    if let Some(a) = who.address {
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

    fn who(user: &str, address: Option<IpAddr>) -> Guesser<'_> {
        Guesser {
            user,
            address,
            caller: "service",
        }
    }

    #[tokio::test]
    async fn a_user_is_limited_after_their_failures_and_others_are_not() {
        let limit = GuessLimit::in_process();
        let t0 = Instant::now();
        for _ in 0..USER_FAILURES {
            assert!(limit.check(who("u1", None), t0).await.is_ok());
            limit.failed(who("u1", None), t0).await;
        }
        assert!(limit.check(who("u1", None), t0).await.is_err());
        assert!(limit.check(who("u2", None), t0).await.is_ok());
        let later = t0 + WINDOW;
        assert!(limit.check(who("u1", None), later).await.is_ok());
    }

    #[tokio::test]
    async fn an_address_is_limited_across_users() {
        let limit = GuessLimit::in_process();
        let (t0, ip) = (Instant::now(), Some(IpAddr::from([10, 0, 0, 1])));
        for i in 0..ADDRESS_FAILURES {
            limit.failed(who(&format!("u{i}"), ip), t0).await;
        }
        assert!(limit.check(who("fresh", ip), t0).await.is_err());
        assert!(limit.check(who("fresh", None), t0).await.is_ok());
    }

    /// A caller that names a new user and a new address on every try is
    /// still limited, by its own budget; another caller is not.
    #[tokio::test]
    async fn a_caller_varying_users_and_addresses_is_limited() {
        let limit = GuessLimit::in_process();
        let t0 = Instant::now();
        for i in 0..CALLER_FAILURES {
            let ip = IpAddr::from(i.to_be_bytes());
            let user = format!("u{i}");
            assert!(limit.check(who(&user, Some(ip)), t0).await.is_ok());
            limit.failed(who(&user, Some(ip)), t0).await;
        }
        let fresh = who("fresh", Some(IpAddr::from([192, 0, 2, 9])));
        assert!(limit.check(fresh, t0).await.is_err());
        let other = Guesser {
            caller: "channel:x",
            ..fresh
        };
        assert!(limit.check(other, t0).await.is_ok());
    }

    /// Redis down (nothing listens on port 1): the in-process counts answer.
    #[tokio::test]
    async fn with_redis_down_the_process_still_limits() {
        let redis = RedisHandle::new("redis://127.0.0.1:1/", "guess-test:").unwrap();
        let limit = GuessLimit::shared(redis);
        let t0 = Instant::now();
        for _ in 0..USER_FAILURES {
            assert!(limit.check(who("u1", None), t0).await.is_ok());
            limit.failed(who("u1", None), t0).await;
        }
        let refused = limit.check(who("u1", None), t0).await.unwrap_err();
        assert_eq!(refused.retry_after, WINDOW);
        assert!(limit.check(who("u2", None), t0).await.is_ok());
    }
}
