//! Failed redemptions, limited in process against guessing codes: after
//! too many 404s in a fixed window for one user or from one client
//! address, that user's or address's redemptions are answered 429 with
//! `Retry-After` until the window ends, even with a good code. Successes
//! are not counted. The same bounded windows as failed signatures
//! (`auth_limit`). A random string passes the code check once in 2^19
//! tries, so at these limits guessing one code takes years per address.

use std::net::IpAddr;
use std::sync::Mutex;
use std::time::Instant;

use super::auth_limit::{Limited, Windows};

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
    counts: Mutex<Counts>,
}

impl Default for GuessLimit {
    fn default() -> Self {
        Self {
            counts: Mutex::new(Counts {
                users: Windows::new(USER_FAILURES),
                addresses: Windows::new(ADDRESS_FAILURES),
            }),
        }
    }
}

impl GuessLimit {
    /// Err while the user or the address is limited.
    pub fn check(&self, user: &str, address: Option<IpAddr>, now: Instant) -> Result<(), Limited> {
        let counts = self.lock();
        let by_user = counts.users.wait(&user.to_owned(), now);
        let by_address = address.and_then(|a| counts.addresses.wait(&a, now));
        match by_user.max(by_address) {
            None => Ok(()),
            Some(retry_after) => Err(Limited {
                retry_after,
                what: "failed redemptions",
            }),
        }
    }

    /// Counts one failed redemption against both keys.
    pub fn failed(&self, user: &str, address: Option<IpAddr>, now: Instant) {
        let mut counts = self.lock();
        counts.users.fail(user.to_owned(), now);
        if let Some(a) = address {
            counts.addresses.fail(a, now);
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Counts> {
        self.counts.lock().unwrap_or_else(|p| p.into_inner())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_user_is_limited_after_their_failures_and_others_are_not() {
        let limit = GuessLimit::default();
        let t0 = Instant::now();
        for _ in 0..USER_FAILURES {
            assert!(limit.check("u1", None, t0).is_ok());
            limit.failed("u1", None, t0);
        }
        assert!(limit.check("u1", None, t0).is_err());
        assert!(limit.check("u2", None, t0).is_ok());
        let later = t0 + super::super::auth_limit::WINDOW;
        assert!(limit.check("u1", None, later).is_ok());
    }

    #[test]
    fn an_address_is_limited_across_users() {
        let limit = GuessLimit::default();
        let (t0, ip) = (Instant::now(), Some(IpAddr::from([10, 0, 0, 1])));
        for i in 0..ADDRESS_FAILURES {
            limit.failed(&format!("u{i}"), ip, t0);
        }
        assert!(limit.check("fresh", ip, t0).is_err());
        assert!(limit.check("fresh", None, t0).is_ok());
    }
}
