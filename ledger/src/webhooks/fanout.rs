//! The fan-out (docs/design.md §21): reads the log after its cursor, in
//! the relay's commit-safe order (a late commit is never skipped), and
//! queues one delivery per event for every enabled endpoint that wants
//! its type, moving the cursor in the same transaction. An endpoint
//! disabled meanwhile is owed nothing; `replay` queues what it missed.

use chrono::{DateTime, Utc};
use tokio_postgres::Client;
use uuid::Uuid;

use crate::domain::webhook::{DeliveryStatus, EventTypes};
use crate::store::{GlobalCursor, RecordedEvent, read_all};

/// Events read per step: one transaction's worth of deliveries per endpoint.
pub const STEP: i64 = 1_000;

/// One step; the number of events read (fewer than [`STEP`]: caught up).
pub async fn step(client: &mut Client, now: DateTime<Utc>) -> Result<usize, tokio_postgres::Error> {
    let row = client
        .query_one("SELECT tx_id, position FROM webhook_fanout", &[])
        .await?;
    let cursor = GlobalCursor {
        tx_id: row.get(0),
        position: row.get(1),
    };
    let events = read_all(&*client, cursor, STEP).await?;
    let Some(last) = events.last().map(RecordedEvent::cursor) else {
        return Ok(0);
    };
    let endpoints = enabled(client).await?;
    let tx = client.transaction().await?;
    queue(&tx, &endpoints, &events, now, Requeue::No).await?;
    tx.execute(
        "UPDATE webhook_fanout SET tx_id = $1, position = $2, updated_at = $3",
        &[&last.tx_id, &last.position, &now],
    )
    .await?;
    tx.commit().await?;
    Ok(events.len())
}

/// The enabled endpoints and what they want.
pub async fn enabled(client: &Client) -> Result<Vec<(Uuid, EventTypes)>, tokio_postgres::Error> {
    let rows = client
        .query("SELECT id, event_types FROM webhooks WHERE enabled", &[])
        .await?;
    Ok(rows
        .iter()
        .filter_map(|r| {
            let names: Vec<String> = r.get(1);
            // Stored lists were parsed before; a type since removed is dropped.
            let types = EventTypes::parse(&names).ok()?;
            Some((r.get(0), types))
        })
        .collect())
}

/// Whether a delivery already there is queued again (a replay) or left.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Requeue {
    No,
    Yes,
}

/// Queues a delivery of each of `events` to each endpoint of
/// `endpoints` that wants it.
pub async fn queue(
    tx: &tokio_postgres::Transaction<'_>,
    endpoints: &[(Uuid, EventTypes)],
    events: &[RecordedEvent],
    now: DateTime<Utc>,
    requeue: Requeue,
) -> Result<u64, tokio_postgres::Error> {
    let (mut ids, mut positions, mut event_ids) = (Vec::new(), Vec::new(), Vec::new());
    let (mut streams, mut types) = (Vec::new(), Vec::new());
    for event in events {
        let kind = event.event_type.as_str();
        for (id, _) in endpoints.iter().filter(|(_, t)| t.wants(kind)) {
            ids.push(*id);
            positions.push(event.position);
            event_ids.push(event.event_id);
            streams.push(event.stream_id.as_str());
            types.push(kind);
        }
    }
    if ids.is_empty() {
        return Ok(0);
    }
    let on_conflict = match requeue {
        Requeue::No => "DO NOTHING".to_owned(),
        Requeue::Yes => format!(
            "DO UPDATE SET status = '{}', attempts = 0, queued_at = EXCLUDED.queued_at,
                 next_attempt_at = EXCLUDED.next_attempt_at, last_error = NULL,
                 last_status = NULL, delivered_at = NULL",
            DeliveryStatus::Pending.as_str()
        ),
    };
    let sql = format!(
        "INSERT INTO webhook_deliveries
             (webhook_id, position, event_id, stream_id, event_type, queued_at, next_attempt_at)
         SELECT w, p, e, s, t, $6, $6
           FROM unnest($1::uuid[], $2::bigint[], $3::uuid[], $4::text[], $5::text[])
                AS d(w, p, e, s, t)
         ON CONFLICT (webhook_id, event_id) {on_conflict}"
    );
    tx.execute(
        &sql,
        &[&ids, &positions, &event_ids, &streams, &types, &now],
    )
    .await
}
