//! The provider's keys in memory (docs/design.md §19), and what a token's
//! `kid` makes of them: found, stale, fetch them (first, or again for an
//! unknown `kid`, at most once a minute), unknown, or the provider down.
//! Pure: the caller passes the clock, `super::Oidc` does the fetching.

use std::sync::Arc;
use std::time::{Duration, Instant};

use super::OidcError;
use super::jwks::Key;

/// An unknown `kid` refetches the keys at most this often: anyone can send
/// tokens with made-up `kid`s, and each must not become a request to the
/// provider.
const REFETCH_AFTER: Duration = Duration::from_secs(60);

/// After a failed fetch, the next is tried this soon: with no keys,
/// operators are locked out, so a blip of the provider should not cost a
/// minute; a few seconds still spare a provider that is down.
const RETRY_AFTER_FAILURE: Duration = Duration::from_secs(5);

/// Keys older than this are fetched again before use, so a key the provider
/// withdrew (rotated out, or compromised) stops being accepted within the
/// hour even when no unknown `kid` comes along.
const KEYS_MAX_AGE: Duration = Duration::from_secs(3600);

/// The keys in memory and when they were fetched.
#[derive(Default)]
pub(super) struct Cache {
    keys: Vec<Arc<Key>>,
    /// When the last successful fetch ended.
    fetched: Option<Instant>,
    /// When an unknown `kid` last made the keys be fetched.
    refetched: Option<Instant>,
    /// The last fetch, if it failed and none succeeded since: when, and why.
    failed: Option<(Instant, String)>,
}

/// What the cache makes of a `kid`.
pub(super) enum Lookup {
    /// The keys with that `kid` (one, unless the provider reuses a `kid`
    /// across key types).
    Found(Vec<Arc<Key>>),
    /// The keys with that `kid`, but older than [`KEYS_MAX_AGE`]: load the
    /// key set, unless another verification is loading it.
    Stale(Vec<Arc<Key>>),
    /// Fetch the key set, then look again.
    Fetch(Fetch),
    /// Not a key of the provider's: its keys are newer than the token, or
    /// an unknown `kid` had them fetched less than a minute ago.
    Unknown,
    /// A fetch failed moments ago, for this reason.
    Down(String),
}

/// Why the keys are fetched: only refetches for unknown `kid`s, which
/// anyone can cause, are held to one a minute.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Fetch {
    /// None yet, or older than [`KEYS_MAX_AGE`].
    Load,
    /// The keys are fresh, but the token names none of them.
    Refetch,
}

impl Cache {
    /// `kid` for a token that came at `arrived`.
    pub(super) fn lookup(&self, kid: &str, arrived: Instant, now: Instant) -> Lookup {
        let named: Vec<Arc<Key>> = self.keys.iter().filter(|k| k.kid == kid).cloned().collect();
        let since = |at: Instant| now.saturating_duration_since(at);
        let fresh = self.fetched.is_some_and(|at| since(at) < KEYS_MAX_AGE);
        let failed = self
            .failed
            .as_ref()
            .filter(|(at, _)| since(*at) < RETRY_AFTER_FAILURE);
        // Old keys serve while the provider cannot be reached.
        if !named.is_empty() && (fresh || failed.is_some()) {
            return Lookup::Found(named);
        }
        if let Some((_, why)) = failed {
            return Lookup::Down(why.clone());
        }
        if !fresh {
            return if named.is_empty() {
                Lookup::Fetch(Fetch::Load)
            } else {
                Lookup::Stale(named)
            };
        }
        let newer = self.fetched.is_some_and(|at| at >= arrived);
        let refetched = self.refetched.is_some_and(|at| since(at) < REFETCH_AFTER);
        if newer || refetched {
            Lookup::Unknown
        } else {
            Lookup::Fetch(Fetch::Refetch)
        }
    }

    /// A fetch's outcome: new keys replace all the old (a withdrawn key is
    /// forgotten); a failure keeps them.
    pub(super) fn record(
        &mut self,
        fetched: Result<Vec<Arc<Key>>, String>,
        reason: Fetch,
        now: Instant,
    ) {
        if reason == Fetch::Refetch {
            self.refetched = Some(now);
        }
        match fetched {
            Ok(keys) => {
                self.keys = keys;
                self.fetched = Some(now);
                self.failed = None;
            }
            Err(why) => self.failed = Some((now, why)),
        }
    }
}

impl Lookup {
    /// The answer; a fetch asked for after one was made leaves the `kid`
    /// unknown.
    pub(super) fn answer(self) -> Result<Vec<Arc<Key>>, OidcError> {
        match self {
            Lookup::Found(keys) | Lookup::Stale(keys) => Ok(keys),
            Lookup::Fetch(_) | Lookup::Unknown => Err(unknown_kid()),
            Lookup::Down(why) => Err(OidcError::Unavailable(why)),
        }
    }
}

fn unknown_kid() -> OidcError {
    OidcError::Invalid("the token's key (kid) is not one the identity provider publishes".into())
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::api::auth::oidc::jwks::keys_of;
    use crate::api::auth::oidc::jwks::tests::rsa;

    fn cache_with(kid: &str, at: Instant) -> Cache {
        let keys = keys_of(json!({ "keys": [rsa(kid)] }).to_string().as_bytes());
        let mut cache = Cache::default();
        cache.record(keys, Fetch::Load, at);
        cache
    }

    fn fetch(lookup: Lookup) -> Option<Fetch> {
        match lookup {
            Lookup::Fetch(reason) => Some(reason),
            _ => None,
        }
    }

    #[test]
    fn an_unknown_kid_refetches_at_most_once_a_minute() {
        let t0 = Instant::now();
        let s = Duration::from_secs;
        let empty = Cache::default().lookup("k", t0, t0);
        assert_eq!(fetch(empty), Some(Fetch::Load));
        let mut cache = cache_with("k", t0);
        assert!(matches!(cache.lookup("k", t0, t0), Lookup::Found(ref k) if k.len() == 1));
        // A token that came before the fetch ended: the keys are news to it.
        assert!(matches!(cache.lookup("other", t0, t0), Lookup::Unknown));
        let t1 = t0 + s(1);
        assert_eq!(fetch(cache.lookup("other", t1, t1)), Some(Fetch::Refetch));
        cache.record(Err("down".into()), Fetch::Refetch, t1);
        cache.record(keys_of(br#"{"keys": []}"#), Fetch::Load, t1 + s(10));
        assert!(matches!(
            cache.lookup("k", t1 + s(11), t1 + s(11)),
            Lookup::Unknown
        ));
        let t2 = t1 + REFETCH_AFTER - s(1);
        assert!(matches!(cache.lookup("other", t2, t2), Lookup::Unknown));
        let t3 = t1 + REFETCH_AFTER;
        assert_eq!(fetch(cache.lookup("other", t3, t3)), Some(Fetch::Refetch));
    }

    #[test]
    fn old_keys_are_loaded_again_and_serve_while_the_provider_is_down() {
        let t0 = Instant::now();
        let mut cache = cache_with("k", t0);
        let t1 = t0 + Duration::from_secs(600);
        assert!(matches!(cache.lookup("k", t1, t1), Lookup::Found(_)));
        let old = t0 + KEYS_MAX_AGE;
        assert!(matches!(cache.lookup("k", old, old), Lookup::Stale(ref k) if k.len() == 1));
        assert_eq!(fetch(cache.lookup("other", old, old)), Some(Fetch::Load));
        cache.record(Err("down".into()), Fetch::Load, old);
        assert!(matches!(cache.lookup("k", old, old), Lookup::Found(_)));
        assert!(matches!(cache.lookup("other", old, old), Lookup::Down(ref why) if why == "down"));
        let later = old + RETRY_AFTER_FAILURE;
        assert!(matches!(cache.lookup("k", later, later), Lookup::Stale(_)));
        assert_eq!(
            fetch(cache.lookup("other", later, later)),
            Some(Fetch::Load)
        );
        cache.record(keys_of(br#"{"keys": []}"#), Fetch::Load, later);
        let withdrawn = cache.lookup("k", later, later);
        assert!(
            matches!(withdrawn, Lookup::Unknown),
            "a withdrawn key is forgotten"
        );
    }
}
