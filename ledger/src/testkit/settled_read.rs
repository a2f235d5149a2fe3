//! The log as a test expects to read it right after writing.

use std::time::{Duration, Instant};

use tokio_postgres::GenericClient;

use crate::store::{GlobalCursor, RecordedEvent, read_all};

/// How long the read waits for the server's oldest open transaction.
const PATIENCE: Duration = Duration::from_secs(30);

/// [`read_all`], read again until it returns every stored event after
/// `after` (up to `limit`), for at most 30 s. The commit-safe read stops
/// below the oldest transaction still open on the whole server, any
/// database's: under the parallel suite another test's transaction can
/// hold it back for an instant after this test committed.
pub async fn read_all_settled(
    client: &impl GenericClient,
    after: GlobalCursor,
    limit: i64,
) -> Result<Vec<RecordedEvent>, tokio_postgres::Error> {
    let sql = "SELECT count(*) FROM events WHERE (tx_id, position) > ($1, $2)";
    let stored: i64 = client
        .query_one(sql, &[&after.tx_id, &after.position])
        .await?
        .get(0);
    let wanted = usize::try_from(stored.min(limit)).unwrap_or(0);
    let deadline = Instant::now() + PATIENCE;
    loop {
        let events = read_all(client, after, limit).await?;
        if events.len() >= wanted || Instant::now() > deadline {
            return Ok(events);
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}
