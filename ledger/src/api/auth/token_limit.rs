//! Wrong bearer tokens, limited per client address: after
//! [`ADDRESS_FAILURES`] wrong admin or service tokens in a fixed window
//! ([`WINDOW`]) from one address, its wrong tokens are answered 429 with
//! `Retry-After` until the window ends, and counted no further.
//!
//! Only wrong tokens are ever looked at: the right token is compared first
//! and passes with no Redis call and no wait, even from a limited address
//! (one address may front a misconfigured client and a healthy one; a
//! caller holding the token is not the one to stop). The tokens are long
//! and random, so guessing them is hopeless at any rate: the limit is there
//! to bound and to show a flood of wrong tokens (a stale deploy, a scan),
//! and to tell a misconfigured client to back off. 20 a minute: a person
//! retrying by hand never gets there, a client stuck on a wrong token
//! within seconds.
//!
//! The address is the connection's peer, never `X-Forwarded-For`: that is
//! the caller's own claim, and a caller without a token is not trusted to
//! make it. Counts are shared through Redis like `guess_limit`'s (N API
//! processes allow the limit once), with this process's own windows as the
//! answer when Redis cannot give one.

use std::net::IpAddr;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use crate::api::auth::auth_limit::{Limited, WINDOW, Windows};
use crate::api::auth::shared_windows::{self, Counter};
use crate::redis_link::RedisHandle;

/// Wrong tokens one client address may send per window.
pub const ADDRESS_FAILURES: u32 = 20;

pub struct TokenLimit {
    /// Where the counts are shared; None counts in process only.
    redis: Option<RedisHandle>,
    /// This process's own counts: the answer while Redis cannot give one.
    addresses: Mutex<Windows<IpAddr>>,
}

/// What a wrong token is answered.
#[derive(Debug)]
pub enum WrongToken {
    /// Counted; answered 403.
    Counted,
    /// The address used up its window: 429.
    Limited(Limited),
}

impl TokenLimit {
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
            addresses: Mutex::new(Windows::new(ADDRESS_FAILURES)),
        }
    }

    /// A wrong token from `address`: Limited while its window is used up,
    /// else counted here and in Redis. Without an address (no peer known)
    /// nothing can be counted.
    pub async fn wrong_token(&self, address: Option<IpAddr>, now: Instant) -> WrongToken {
        let Some(address) = address else {
            return WrongToken::Counted;
        };
        let here = self.lock().wait(&address, now);
        let shared = self.wait_shared(address).await;
        if let Some(retry_after) = here.max(shared) {
            return WrongToken::Limited(Limited {
                retry_after,
                what: "wrong bearer tokens",
            });
        }
        self.lock().fail(address, now);
        self.fail_shared(address).await;
        WrongToken::Counted
    }

    /// Redis's wait; None when Redis is not limiting, or cannot say.
    async fn wait_shared(&self, address: IpAddr) -> Option<Duration> {
        let redis = self.redis.as_ref()?;
        let mut conn = redis.connection().await?;
        match shared_windows::wait(&mut conn, &[counter(redis, address)]).await {
            Ok(wait) => wait,
            Err(e) => {
                redis_failed(redis, &e);
                None
            }
        }
    }

    async fn fail_shared(&self, address: IpAddr) {
        let Some(redis) = &self.redis else { return };
        let Some(mut conn) = redis.connection().await else {
            return;
        };
        let counters = [counter(redis, address)];
        if let Err(e) = shared_windows::fail(&mut conn, &counters, WINDOW).await {
            redis_failed(redis, &e);
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Windows<IpAddr>> {
        // Counts stay consistent even if a holder panicked.
        self.addresses.lock().unwrap_or_else(|p| p.into_inner())
    }
}

fn counter(redis: &RedisHandle, address: IpAddr) -> Counter {
    Counter {
        key: redis.key(&["token", "address", &address.to_string()]),
        limit: ADDRESS_FAILURES,
    }
}

/// Reports a failed Redis call, so the next ones skip Redis for a while:
/// the in-process counts decide meanwhile.
fn redis_failed(redis: &RedisHandle, error: &redis::RedisError) {
    tracing::debug!(error = %error, "token limit: redis failed, counting in process");
    redis.report_failure();
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn an_address_is_limited_after_its_wrong_tokens_and_others_are_not() {
        let limit = TokenLimit::in_process();
        let t0 = Instant::now();
        let (ip, other) = (IpAddr::from([10, 0, 0, 1]), IpAddr::from([10, 0, 0, 2]));
        for _ in 0..ADDRESS_FAILURES {
            let answer = limit.wrong_token(Some(ip), t0).await;
            assert!(matches!(answer, WrongToken::Counted));
        }
        let answer = limit.wrong_token(Some(ip), t0).await;
        assert!(matches!(answer, WrongToken::Limited(l) if l.retry_after == WINDOW));
        let answer = limit.wrong_token(Some(other), t0).await;
        assert!(matches!(answer, WrongToken::Counted));
        let answer = limit.wrong_token(Some(ip), t0 + WINDOW).await;
        assert!(matches!(answer, WrongToken::Counted), "a new window");
    }
}
