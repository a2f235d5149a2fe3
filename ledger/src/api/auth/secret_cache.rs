//! Opened channel secrets, cached in process: a secret never changes once
//! created, so an entry never goes stale; the map is bounded and simply
//! emptied when full (a miss costs one row read and one AEAD open).

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use deadpool_postgres::Pool;

use crate::api::http::error::ApiError;
use crate::commands::channels;
use crate::domain::ids::ChannelId;
use crate::secret_box::Keyring;

const MAX_CACHED: usize = 10_000;

pub struct SecretCache {
    keys: Keyring,
    opened: Mutex<HashMap<ChannelId, Arc<str>>>,
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

    /// The channel's signing secret; None when there is no such channel.
    pub async fn secret(
        &self,
        pool: &Pool,
        channel_id: ChannelId,
    ) -> Result<Option<Arc<str>>, ApiError> {
        if !self.proven.load(Ordering::Acquire) {
            // Postgres was down at start: the keys are not proven yet.
            return Err(ApiError::Unavailable("postgres".into()));
        }
        if let Some(hit) = self.lock().get(&channel_id) {
            return Ok(Some(hit.clone()));
        }
        let sealed = {
            let client = pool.get().await?;
            channels::sealed_secret(&**client, channel_id).await?
        };
        let Some(sealed) = sealed else {
            return Ok(None);
        };
        // `serve` opened every row at start, so this fails only for a row
        // written since by a process with other keys: an operator's error.
        let secret: Arc<str> = self
            .keys
            .open(channel_id.0, &sealed)
            .map_err(|e| ApiError::Internal(anyhow::anyhow!("channel {channel_id}: {e}")))?
            .into();
        let mut opened = self.lock();
        if opened.len() >= MAX_CACHED {
            opened.clear();
        }
        opened.insert(channel_id, secret.clone());
        Ok(Some(secret))
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<ChannelId, Arc<str>>> {
        // A panic while holding the lock cannot leave the map inconsistent.
        self.opened.lock().unwrap_or_else(|p| p.into_inner())
    }
}
