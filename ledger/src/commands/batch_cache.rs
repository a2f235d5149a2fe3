//! Code batches as redemptions find them, cached in process for at most
//! [`TTL`] (docs/design.md §13): a redemption's code names its batch by key
//! and serial, and without the cache every request read the batch's row
//! before it queued. What may change in a batch is its status; a stop made by
//! this process is seen at once (the route [`forget`](BatchCache::forget)s
//! the batch), one made by another within [`TTL`] here, and the redemption's
//! own transaction reads the status again ([`super::code_batches::current`]),
//! so no code is redeemed after its batch's stop has committed. Unknown
//! serials are not cached: a guesser's misses go to Postgres and to the
//! guess limit. The map is bounded and emptied when full.

use std::collections::{BTreeMap, HashMap};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use uuid::Uuid;

use super::code_batches;
use crate::write_model::code_batch_row::Batch;

/// Batches cached at once: far more than run at a time; past it the map is
/// emptied (a miss costs one indexed read).
const MAX_CACHED: usize = 10_000;
/// The longest an entry is used without reading the batch again.
pub const TTL: Duration = Duration::from_secs(5);

/// Batches by key id, then by first serial.
type ByKey = HashMap<String, BTreeMap<i64, (Batch, Instant)>>;

#[derive(Default)]
pub struct BatchCache {
    batches: Mutex<(ByKey, usize)>,
}

impl BatchCache {
    /// The batch of `key_id` whose range holds `serial`, if cached less
    /// than [`TTL`] ago.
    pub fn cached(&self, key_id: &str, serial: i64, now: Instant) -> Option<Batch> {
        let (by_key, _) = &*self.lock();
        let (_, (batch, read)) = by_key.get(key_id)?.range(..=serial).next_back()?;
        let fresh = now.saturating_duration_since(*read) < TTL;
        (fresh && batch.holds(serial)).then(|| batch.clone())
    }

    /// The same, read by `client` (a cache miss), and kept.
    pub async fn read(
        &self,
        client: &deadpool_postgres::Client,
        key_id: &str,
        serial: i64,
        now: Instant,
    ) -> Result<Option<Batch>, tokio_postgres::Error> {
        let found = code_batches::holding(client, key_id, serial).await?;
        if let Some(batch) = &found {
            self.keep(batch.clone(), now);
        }
        Ok(found)
    }

    fn keep(&self, batch: Batch, now: Instant) {
        let (by_key, count) = &mut *self.lock();
        if *count >= MAX_CACHED {
            by_key.clear();
            *count = 0;
        }
        let batches = by_key.entry(batch.key_id.clone()).or_default();
        if batches.insert(batch.first_serial, (batch, now)).is_none() {
            *count += 1;
        }
    }

    /// Drops batch `id`, changed by this process: its next redemption reads it.
    pub fn forget(&self, id: Uuid) {
        let (by_key, count) = &mut *self.lock();
        for batches in by_key.values_mut() {
            let before = batches.len();
            batches.retain(|_, (b, _)| b.id != id);
            *count -= before - batches.len();
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, (ByKey, usize)> {
        self.batches.lock().unwrap_or_else(|e| e.into_inner())
    }
}
