//! App keys by the digest of a request's bearer token, cached per process
//! for at most [`FRESH`]: a key revoked or rotated out on any server is
//! refused by every server within that (docs/design.md §19: 5 s), and a
//! busy key costs one indexed read per [`FRESH`], not one per request.
//! Misses are not cached: a key made on another server works at once, and
//! wrong tokens are bounded by `token_limit`.

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use chrono::{DateTime, Utc};
use deadpool_postgres::Pool;

use crate::api::http::error::ApiError;
use crate::commands::api_keys::MAX_KEYS;
use crate::queries::api_keys::{self, FoundKey};

/// How long a key's state is trusted before it is read again.
pub const FRESH: Duration = Duration::from_secs(2);
/// How often a key's `last_used_at` is written, per process.
const TOUCH_EVERY: Duration = Duration::from_secs(60);
/// Most digests kept: every live key's current and replaced secret.
const MAX_ENTRIES: usize = 2 * MAX_KEYS as usize;

struct Entry {
    found: FoundKey,
    read_at: Instant,
    touched_at: Option<Instant>,
}

#[derive(Default)]
pub struct KeyCache {
    entries: Mutex<HashMap<[u8; 32], Entry>>,
}

/// What a digest opens at `now`.
pub enum KeyState {
    Unknown,
    /// Revoked, or a replaced secret past its overlap.
    Revoked,
    Live(FoundKey),
}

impl KeyCache {
    /// The key `digest` opens, read again when older than [`FRESH`].
    pub async fn find(
        &self,
        pool: &Pool,
        digest: &[u8; 32],
        now: DateTime<Utc>,
    ) -> Result<KeyState, ApiError> {
        let cached = self.fresh(digest);
        let found = match cached {
            Some(found) => Some(found),
            None => {
                let client = pool.get().await?;
                let found = api_keys::by_digest(&**client, digest).await?;
                self.keep(digest, found.clone());
                found
            }
        };
        Ok(match found {
            None => KeyState::Unknown,
            Some(k) if k.revoked || k.valid_until.is_some_and(|u| u <= now) => KeyState::Revoked,
            Some(k) => {
                self.touch(pool, digest, &k, now);
                KeyState::Live(k)
            }
        })
    }

    fn fresh(&self, digest: &[u8; 32]) -> Option<FoundKey> {
        let entries = self.entries.lock().expect("key cache lock");
        let entry = entries.get(digest)?;
        (entry.read_at.elapsed() < FRESH).then(|| entry.found.clone())
    }

    fn keep(&self, digest: &[u8; 32], found: Option<FoundKey>) {
        let mut entries = self.entries.lock().expect("key cache lock");
        let Some(found) = found else {
            entries.remove(digest);
            return;
        };
        if entries.len() >= MAX_ENTRIES {
            // Only stale or revoked digests can fill it: start over.
            entries.clear();
        }
        let touched_at = entries.get(digest).and_then(|e| e.touched_at);
        let read_at = Instant::now();
        entries.insert(
            *digest,
            Entry {
                found,
                read_at,
                touched_at,
            },
        );
    }

    /// Writes `last_used_at` in the background, at most once a
    /// [`TOUCH_EVERY`] per key and process: a request never waits on it.
    fn touch(&self, pool: &Pool, digest: &[u8; 32], key: &FoundKey, now: DateTime<Utc>) {
        {
            let mut entries = self.entries.lock().expect("key cache lock");
            let Some(entry) = entries.get_mut(digest) else {
                return;
            };
            if entry.touched_at.is_some_and(|t| t.elapsed() < TOUCH_EVERY) {
                return;
            }
            entry.touched_at = Some(Instant::now());
        }
        let (pool, id) = (pool.clone(), key.id);
        tokio::spawn(async move {
            let Ok(client) = pool.get().await else {
                return;
            };
            if let Err(e) = api_keys::touch(&**client, id, now).await {
                tracing::debug!(error = %e, "last_used_at not written");
            }
        });
    }
}
