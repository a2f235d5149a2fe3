//! `ledger events publish --from-position N --queue Q`: a new subscriber's
//! queue cannot see the past by itself (RabbitMQ deletes what was acked),
//! so this sends it the stored events from position N on, in the relay's
//! order and message format, one bounded batch at a time.

use lapin::options::QueueDeclareOptions;
use lapin::types::FieldTable;
use tokio_postgres::GenericClient;

use super::message;
use super::publish::{PublishError, Publisher};
use crate::store::{GlobalCursor, read_all_from};

/// Events read and published per round: memory stays bounded.
pub const BATCH: i64 = 2_000;

#[derive(Debug, thiserror::Error)]
pub enum BackfillError {
    #[error("queue {queue:?} does not exist (declare and bind it first): {source}")]
    NoQueue { queue: String, source: lapin::Error },
    #[error(transparent)]
    Publish(#[from] PublishError),
    #[error(transparent)]
    Db(#[from] tokio_postgres::Error),
}

/// Publishes every event with position ≥ `from_position` (committed when
/// the backfill reaches it) to `queue`; returns how many.
pub async fn backfill(
    client: &impl GenericClient,
    publisher: &Publisher,
    queue: &str,
    from_position: i64,
    mut progress: impl FnMut(u64),
) -> Result<u64, BackfillError> {
    let passive = QueueDeclareOptions {
        passive: true,
        ..Default::default()
    };
    publisher
        .channel()
        .queue_declare(queue.into(), passive, FieldTable::default())
        .await
        .map_err(|source| BackfillError::NoQueue {
            queue: queue.to_owned(),
            source,
        })?;
    let mut cursor = GlobalCursor::START;
    let mut sent = 0;
    loop {
        let events = read_all_from(client, cursor, from_position, BATCH).await?;
        let Some(last) = events.last() else {
            return Ok(sent);
        };
        let messages: Vec<_> = events.iter().map(message::encode).collect();
        // The default exchange routes by queue name: only this queue gets them.
        publisher.publish_all("", queue, &messages).await?;
        cursor = last.cursor();
        sent += messages.len() as u64;
        progress(sent);
    }
}
