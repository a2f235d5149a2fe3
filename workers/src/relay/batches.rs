//! Batches of encoded events, read once and shared by the relay's routes.
//! Routes usually stand at the same cursor, so the first to ask for the
//! events after it reads and encodes them, and the others take the same
//! batch instead of reading and encoding it again (the relay's CPU went
//! to that four times over). The next batch is read while the routes
//! publish the current one.

use std::collections::VecDeque;
use std::sync::Arc;

use ledger::messaging::message::{self, Outgoing};
use ledger::messaging::routes::Packing;
use ledger::messaging::run_message;
use ledger::store::{GlobalCursor, StoreId, read_all};
use tokio::sync::Mutex;
use tokio_postgres::Client;

/// Events read and published per round and route (bounds memory and re-sends).
pub const BATCH: i64 = 5_000;
/// Batches kept for routes that are behind: at most this many are held
/// (with BATCH, about 70 MB of messages: each event once alone, once in a run).
const KEPT: usize = 8;

/// The events after one cursor, ready to publish.
pub struct Batch {
    /// One message per event.
    pub messages: Vec<Outgoing>,
    /// The same events in runs, for the ledger's own queues.
    pub runs: Vec<Outgoing>,
    /// The cursor after the batch's last event.
    pub last: GlobalCursor,
}

impl Batch {
    /// What `packing` sends of this batch.
    pub fn packed(&self, packing: Packing) -> &[Outgoing] {
        match packing {
            Packing::OnePerEvent => &self.messages,
            Packing::Runs => &self.runs,
        }
    }
}

pub struct SharedBatches {
    client: Arc<Client>,
    /// Stamped on each message once, here, so the four routes' sends
    /// find it there and do not stamp it again.
    store: StoreId,
    recent: std::sync::Mutex<VecDeque<(GlobalCursor, Arc<Batch>)>>,
    /// One read at a time: routes asking for the same batch wait for it.
    reader: Mutex<()>,
}

impl SharedBatches {
    pub fn new(client: Arc<Client>, store: StoreId) -> Self {
        Self {
            client,
            store,
            recent: std::sync::Mutex::new(VecDeque::with_capacity(KEPT)),
            reader: Mutex::new(()),
        }
    }

    /// The committed events after `cursor` (none yet: `None`); the batch
    /// after them is read ahead while the routes publish these. A batch
    /// read earlier for the same cursor may be shorter than a new read
    /// would be; the route's next call picks up the rest.
    pub async fn after(
        self: &Arc<Self>,
        cursor: GlobalCursor,
    ) -> Result<Option<Arc<Batch>>, tokio_postgres::Error> {
        let batch = match self.cached(cursor) {
            Some(batch) => batch,
            None => match self.read(cursor).await? {
                Some(batch) => batch,
                None => return Ok(None),
            },
        };
        self.read_ahead(batch.last);
        Ok(Some(batch))
    }

    fn cached(&self, cursor: GlobalCursor) -> Option<Arc<Batch>> {
        let recent = self.recent.lock().expect("no panic while holding it");
        recent
            .iter()
            .find(|(after, _)| *after == cursor)
            .map(|(_, batch)| batch.clone())
    }

    /// Reads and encodes the events after `cursor`, unless a read that
    /// finished meanwhile already did.
    async fn read(
        &self,
        cursor: GlobalCursor,
    ) -> Result<Option<Arc<Batch>>, tokio_postgres::Error> {
        let _reading = self.reader.lock().await;
        if let Some(batch) = self.cached(cursor) {
            return Ok(Some(batch));
        }
        let events = read_all(&*self.client, cursor, BATCH).await?;
        let Some(last) = events.last() else {
            return Ok(None);
        };
        let messages: Vec<Outgoing> = events.iter().map(|e| self.encode(e)).collect();
        let runs = run_message::runs(&events, &messages)
            .into_iter()
            .map(|mut run| {
                run.properties = self.store.stamped(&run.properties);
                run
            })
            .collect();
        let batch = Arc::new(Batch {
            messages,
            runs,
            last: last.cursor(),
        });
        let mut recent = self.recent.lock().expect("no panic while holding it");
        if recent.len() == KEPT {
            recent.pop_front();
        }
        recent.push_back((cursor, batch.clone()));
        Ok(Some(batch))
    }

    fn encode(&self, event: &ledger::store::RecordedEvent) -> Outgoing {
        let mut message = message::encode(event);
        message.properties = self.store.stamped(&message.properties);
        message
    }

    fn read_ahead(self: &Arc<Self>, cursor: GlobalCursor) {
        if self.cached(cursor).is_some() {
            return;
        }
        let this = self.clone();
        tokio::spawn(async move {
            // A failed read ahead is read again by the route that needs it.
            if let Err(e) = this.read(cursor).await {
                tracing::debug!(error = %e, "reading ahead failed");
            }
        });
    }
}
