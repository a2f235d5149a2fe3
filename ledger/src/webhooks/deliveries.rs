//! The deliveries' rows at the sender's edge (docs/design.md §21): which
//! are due, the events they carry, what an attempt did, replays queued,
//! and old delivered rows pruned.

use chrono::{DateTime, Utc};
use tokio_postgres::GenericClient;
use uuid::Uuid;

use super::fanout::{self, Requeue};
use crate::domain::webhook::{Attempt, DeliveryStatus, Next};
use crate::store::RecordedEvent;

/// Events a replay queues per step and endpoint.
pub const REPLAY_STEP: i64 = 1_000;
/// Delivered rows are kept this long for the deliveries list, then pruned.
pub const KEEP_DELIVERED: &str = "7 days";
/// Rows pruned per step, so a prune never holds a long lock.
const PRUNE_STEP: i64 = 10_000;

/// A delivery due now.
#[derive(Clone, Debug)]
pub struct Due {
    pub id: i64,
    pub webhook_id: Uuid,
    pub position: i64,
    pub attempts: i32,
    pub queued_at: DateTime<Utc>,
}

/// Up to `per_endpoint` due deliveries of each enabled endpoint, leaving
/// out those in flight (`busy`) and any whose stream has an earlier event
/// still pending for the endpoint: per stream, an event waits for the one
/// before it. The stream's first pending position is one probe of the
/// partial index per candidate (a correlated `min`), never a join the
/// planner could turn quadratic on stale statistics.
pub async fn due(
    client: &impl GenericClient,
    now: DateTime<Utc>,
    busy: &[i64],
    per_endpoint: i64,
) -> Result<Vec<Due>, tokio_postgres::Error> {
    // The state is written into the text so the partial indexes apply.
    let pending = DeliveryStatus::Pending.as_str();
    let sql = format!(
        "
        SELECT d.id, d.webhook_id, d.position, d.attempts, d.queued_at
          FROM webhooks w
          CROSS JOIN LATERAL (
              SELECT d.* FROM webhook_deliveries d
               WHERE d.webhook_id = w.id AND d.status = '{pending}'
                 AND d.next_attempt_at <= $1 AND d.id <> ALL($2)
                 AND d.position = (
                     SELECT min(e.position) FROM webhook_deliveries e
                      WHERE e.webhook_id = d.webhook_id AND e.stream_id = d.stream_id
                        AND e.status = '{pending}')
               ORDER BY d.next_attempt_at, d.position
               LIMIT $3) d
         WHERE w.enabled"
    );
    let rows = client.query(&sql, &[&now, &busy, &per_endpoint]).await?;
    Ok(rows
        .iter()
        .map(|r| Due {
            id: r.get(0),
            webhook_id: r.get(1),
            position: r.get(2),
            attempts: r.get(3),
            queued_at: r.get(4),
        })
        .collect())
}

/// The events at `positions` (an event archived out of the store is absent).
pub async fn events(
    client: &impl GenericClient,
    positions: &[i64],
) -> Result<Vec<RecordedEvent>, tokio_postgres::Error> {
    crate::store::read::at_positions(client, positions).await
}

/// Records an attempt and what follows it; a row a replay or a concurrent
/// sender changed meanwhile is left as it is.
pub async fn record(
    client: &impl GenericClient,
    due: &Due,
    attempt: &Attempt,
    next: &Next,
    now: DateTime<Utc>,
) -> Result<(), tokio_postgres::Error> {
    let (status, error) = match attempt {
        Attempt::Delivered { status } => (Some(i32::from(*status)), None),
        Attempt::Refused { status, error } => (status.map(i32::from), Some(error.as_str())),
    };
    let at = match next {
        Next::Retry(at) => Some(*at),
        Next::Delivered | Next::Failed => None,
    };
    let delivered = (*next == Next::Delivered).then_some(now);
    let state = next.status().as_str();
    let pending = DeliveryStatus::Pending.as_str();
    client
        .execute(
            "UPDATE webhook_deliveries
                SET attempts = attempts + 1, last_attempt_at = $3, last_status = $4,
                    last_error = $5, status = $6,
                    next_attempt_at = coalesce($7, next_attempt_at), delivered_at = $8
              WHERE id = $1 AND attempts = $2 AND status = $9",
            &[
                &due.id,
                &due.attempts,
                &now,
                &status,
                &error,
                &state,
                &at,
                &delivered,
                &pending,
            ],
        )
        .await?;
    Ok(())
}

/// One step of every replay asked for: the next events of its range,
/// queued again (delivered and failed ones back to pending).
pub async fn replay_step(
    client: &mut tokio_postgres::Client,
    now: DateTime<Utc>,
) -> Result<u64, tokio_postgres::Error> {
    let asked = client
        .query(
            "SELECT id, event_types, replay_next, replay_until FROM webhooks
              WHERE enabled AND replay_next IS NOT NULL",
            &[],
        )
        .await?;
    if asked.is_empty() {
        return Ok(0);
    }
    let endpoints = fanout::enabled(client).await?;
    let mut queued = 0;
    for row in asked {
        let id: Uuid = row.get(0);
        let (next, until): (i64, i64) = (row.get(2), row.get(3));
        let Some(endpoint) = endpoints.iter().find(|(e, _)| *e == id) else {
            continue;
        };
        let events = crate::store::read::positions_from(&*client, next, until, REPLAY_STEP).await?;
        let tx = client.transaction().await?;
        queued += fanout::queue(
            &tx,
            std::slice::from_ref(endpoint),
            &events,
            now,
            Requeue::Yes,
        )
        .await?;
        let done = events.len() < usize::try_from(REPLAY_STEP).unwrap_or(usize::MAX);
        let after = events.last().map_or(until, |e| e.position) + 1;
        let (next, until) = if done {
            (None, None)
        } else {
            (Some(after), Some(until))
        };
        tx.execute(
            "UPDATE webhooks SET replay_next = $2, replay_until = $3 WHERE id = $1",
            &[&id, &next, &until],
        )
        .await?;
        tx.commit().await?;
    }
    Ok(queued)
}

/// Deletes delivered rows older than [`KEEP_DELIVERED`], a step at a time.
pub async fn prune(
    client: &impl GenericClient,
    now: DateTime<Utc>,
) -> Result<u64, tokio_postgres::Error> {
    let sql = format!(
        "DELETE FROM webhook_deliveries WHERE id IN (
             SELECT id FROM webhook_deliveries
              WHERE status = $2 AND delivered_at < $1::timestamptz - interval '{KEEP_DELIVERED}'
              LIMIT {PRUNE_STEP})"
    );
    let delivered = DeliveryStatus::Delivered.as_str();
    client.execute(&sql, &[&now, &delivered]).await
}
