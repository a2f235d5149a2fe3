//! Opened channel secrets and the channel's status, cached in process for
//! at most [`TTL`] (docs/design.md §15): a disable, an enable or a rotation
//! made by another `serve` process holds here within that time; one made by
//! this process holds at once (the route [`forget`](SecretCache::forget)s
//! the entry). The map is bounded and simply emptied when full (a miss
//! costs one row read and one or two AEAD opens).

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use chrono::{DateTime, Utc};
use deadpool_postgres::Pool;

use crate::api::http::error::ApiError;
use crate::commands::channels;
use crate::domain::channel::previous_verifies;
use crate::domain::ids::ChannelId;
use crate::secret_box::{Keyring, Sealed};

const MAX_CACHED: usize = 10_000;
/// The longest an entry is used: the bound on how late another process
/// sees a channel disabled, enabled or its secret rotated.
pub const TTL: Duration = Duration::from_secs(5);

/// What verifies a channel's signatures, opened.
pub struct ChannelKeys {
    current: String,
    /// The secret the last rotation replaced, and until when it verifies.
    previous: Option<(String, DateTime<Utc>)>,
    pub disabled: bool,
}

impl ChannelKeys {
    /// The secrets a signature made at `now` may be checked with: the
    /// current one, and the replaced one inside its overlap.
    pub fn verifying_at(&self, now: DateTime<Utc>) -> impl Iterator<Item = &str> {
        let previous = self
            .previous
            .as_ref()
            .filter(|(_, until)| previous_verifies(Some(*until), now))
            .map(|(secret, _)| secret.as_str());
        std::iter::once(self.current.as_str()).chain(previous)
    }
}

/// A channel's keys, and whether they came from the cache (then they may be
/// up to [`TTL`] old).
pub struct Found {
    pub keys: Arc<ChannelKeys>,
    pub cached: bool,
}

pub struct SecretCache {
    keys: Keyring,
    opened: Mutex<HashMap<ChannelId, (Arc<ChannelKeys>, Instant)>>,
    /// Set once `serve` has opened every stored secret with these keys.
    proven: AtomicBool,
}

impl SecretCache {
    pub fn new(keys: Keyring) -> Self {
        Self {
            keys,
            opened: Mutex::new(HashMap::new()),
            proven: AtomicBool::new(false),
        }
    }

    /// The keys open every stored secret (checked at start).
    pub fn mark_proven(&self) {
        self.proven.store(true, Ordering::Release);
    }

    pub fn keys(&self) -> &Keyring {
        &self.keys
    }

    /// Drops the channel's entry: this process changed it.
    pub fn forget(&self, channel_id: ChannelId) {
        self.lock().remove(&channel_id);
    }

    /// The channel's keys, from the cache when fresh enough; None when
    /// there is no such channel.
    pub async fn find(
        &self,
        pool: &Pool,
        channel_id: ChannelId,
    ) -> Result<Option<Found>, ApiError> {
        let hit = self.lock().get(&channel_id).cloned();
        if let Some((keys, at)) = hit
            && at.elapsed() < TTL
        {
            return Ok(Some(Found { keys, cached: true }));
        }
        self.reload(pool, channel_id).await
    }

    /// The channel's keys read from Postgres (and cached), never from the cache.
    pub async fn reload(
        &self,
        pool: &Pool,
        channel_id: ChannelId,
    ) -> Result<Option<Found>, ApiError> {
        if !self.proven.load(Ordering::Acquire) {
            // Postgres was down at start: the keys are not proven yet.
            return Err(ApiError::Unavailable("postgres".into()));
        }
        let stored = {
            let client = pool.get().await?;
            channels::signing_keys(&**client, channel_id).await?
        };
        let Some(stored) = stored else {
            self.forget(channel_id);
            return Ok(None);
        };
        let previous = match stored.previous {
            Some((sealed, until)) => Some((self.open(channel_id, &sealed)?, until)),
            None => None,
        };
        let keys = Arc::new(ChannelKeys {
            current: self.open(channel_id, &stored.current)?,
            previous,
            disabled: stored.disabled,
        });
        let mut opened = self.lock();
        if opened.len() >= MAX_CACHED {
            opened.clear();
        }
        opened.insert(channel_id, (keys.clone(), Instant::now()));
        Ok(Some(Found {
            keys,
            cached: false,
        }))
    }

    fn open(&self, channel_id: ChannelId, sealed: &Sealed) -> Result<String, ApiError> {
        // `serve` opened every row at start, so this fails only for a row
        // written since by a process with other keys: an operator's error.
        self.keys
            .open(channel_id.0, sealed)
            .map_err(|e| ApiError::Internal(anyhow::anyhow!("channel {channel_id}: {e}")))
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<ChannelId, (Arc<ChannelKeys>, Instant)>> {
        // A panic while holding the lock cannot leave the map inconsistent.
        self.opened.lock().unwrap_or_else(|p| p.into_inner())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_replaced_secret_verifies_only_inside_its_overlap() {
        let now = Utc::now();
        let keys = |until| ChannelKeys {
            current: "new".into(),
            previous: Some(("old".into(), until)),
            disabled: false,
        };
        let inside = keys(now + chrono::Duration::seconds(1));
        assert_eq!(inside.verifying_at(now).collect::<Vec<_>>(), ["new", "old"]);
        let ended = keys(now);
        assert_eq!(ended.verifying_at(now).collect::<Vec<_>>(), ["new"]);
    }
}
