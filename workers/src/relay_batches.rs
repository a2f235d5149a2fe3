//! Batches of encoded events, read once and shared by the relay's routes.
//! Routes usually stand at the same cursor, so the first to ask for the
//! events after it reads and encodes them, and the others take the same
//! batch instead of reading and encoding it again (the relay's CPU went
//! to that four times over).

use std::collections::VecDeque;
use std::sync::Arc;

use ledger::messaging::message::{self, Outgoing};
use ledger::store::{GlobalCursor, read_all};
use tokio::sync::Mutex;
use tokio_postgres::Client;

/// Events read and published per round and route (bounds memory and re-sends).
pub const BATCH: i64 = 5_000;
/// Batches kept for routes that are behind: at most this many are held
/// (with BATCH, about 35 MB of messages).
const KEPT: usize = 8;

/// The events after one cursor, ready to publish.
pub struct Batch {
    pub messages: Vec<Outgoing>,
    /// The cursor after the batch's last event.
    pub last: GlobalCursor,
}

pub struct SharedBatches {
    client: Arc<Client>,
    recent: Mutex<VecDeque<(GlobalCursor, Arc<Batch>)>>,
}

impl SharedBatches {
    pub fn new(client: Arc<Client>) -> Self {
        Self {
            client,
            recent: Mutex::new(VecDeque::with_capacity(KEPT)),
        }
    }

    /// The committed events after `cursor` (none yet: `None`). A batch
    /// read earlier for the same cursor may be shorter than a new read
    /// would be; the route's next call picks up the rest.
    pub async fn after(
        &self,
        cursor: GlobalCursor,
    ) -> Result<Option<Arc<Batch>>, tokio_postgres::Error> {
        // Held across the read: routes arriving together wait for one read.
        let mut recent = self.recent.lock().await;
        if let Some((_, batch)) = recent.iter().find(|(after, _)| *after == cursor) {
            return Ok(Some(batch.clone()));
        }
        let events = read_all(&*self.client, cursor, BATCH).await?;
        let Some(last) = events.last() else {
            return Ok(None);
        };
        let batch = Arc::new(Batch {
            messages: events.iter().map(message::encode).collect(),
            last: last.cursor(),
        });
        if recent.len() == KEPT {
            recent.pop_front();
        }
        recent.push_back((cursor, batch.clone()));
        Ok(Some(batch))
    }
}
