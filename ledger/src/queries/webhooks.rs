//! Webhook endpoints as the API shows them (never a secret), with how
//! their deliveries stand, and an endpoint's deliveries (docs/design.md §21).

use chrono::{DateTime, Utc};
use serde::Serialize;
use tokio_postgres::{GenericClient, Row};
use utoipa::ToSchema;
use uuid::Uuid;

pub use crate::domain::webhook::DeliveryStatus;

/// Deliveries listed per page at most (the list pages by `before`).
pub const MAX_PAGE: i64 = 500;

/// An endpoint: where it points, what it gets, how its deliveries stand.
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct WebhookView {
    pub id: Uuid,
    pub url: String,
    /// `["*"]` or event type names.
    pub event_types: Vec<String>,
    pub description: Option<String>,
    pub enabled: bool,
    /// Hours a delivery is retried before it is `failed`.
    pub retry_hours: i32,
    pub created_at: DateTime<Utc>,
    /// The operator who made it.
    pub created_by: String,
    pub updated_at: DateTime<Utc>,
    /// Until when the secret the last rotation replaced still signs too;
    /// null when none does.
    pub previous_secret_valid_until: Option<DateTime<Utc>>,
    /// A replay still being queued: the next position and the last.
    pub replay: Option<ReplayRange>,
    pub deliveries: DeliveryCounts,
}

#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct ReplayRange {
    pub next_position: i64,
    pub until_position: i64,
}

#[derive(Clone, Debug, Default, Serialize, ToSchema)]
pub struct DeliveryCounts {
    pub pending: i64,
    pub delivered: i64,
    pub failed: i64,
    /// When the oldest pending delivery was queued (how far behind).
    pub oldest_pending_at: Option<DateTime<Utc>>,
}

/// The endpoints' columns and counts (`$1`: now); `{P}`, `{D}`, `{F}` are
/// the pending, delivered and failed states.
const VIEW: &str = "
    SELECT w.id, w.url, w.event_types, w.description, w.enabled, w.retry_hours,
           w.created_at, w.created_by, w.updated_at,
           CASE WHEN w.previous_valid_until > $1 THEN w.previous_valid_until END,
           w.replay_next, w.replay_until,
           (SELECT count(*) FROM webhook_deliveries d WHERE d.webhook_id = w.id AND d.status = '{P}'),
           (SELECT count(*) FROM webhook_deliveries d WHERE d.webhook_id = w.id AND d.status = '{D}'),
           (SELECT count(*) FROM webhook_deliveries d WHERE d.webhook_id = w.id AND d.status = '{F}'),
           (SELECT min(queued_at) FROM webhook_deliveries d WHERE d.webhook_id = w.id AND d.status = '{P}')
      FROM webhooks w ";

fn view() -> String {
    VIEW.replace("{P}", DeliveryStatus::Pending.as_str())
        .replace("{D}", DeliveryStatus::Delivered.as_str())
        .replace("{F}", DeliveryStatus::Failed.as_str())
}

impl WebhookView {
    fn from_row(r: &Row) -> Self {
        let replay = r
            .get::<_, Option<i64>>(10)
            .zip(r.get::<_, Option<i64>>(11))
            .map(|(next_position, until_position)| ReplayRange {
                next_position,
                until_position,
            });
        Self {
            id: r.get(0),
            url: r.get(1),
            event_types: r.get(2),
            description: r.get(3),
            enabled: r.get(4),
            retry_hours: r.get(5),
            created_at: r.get(6),
            created_by: r.get(7),
            updated_at: r.get(8),
            previous_secret_valid_until: r.get(9),
            replay,
            deliveries: DeliveryCounts {
                pending: r.get(12),
                delivered: r.get(13),
                failed: r.get(14),
                oldest_pending_at: r.get(15),
            },
        }
    }
}

/// Every endpoint (at most 100), oldest first.
pub async fn list(
    client: &impl GenericClient,
    now: DateTime<Utc>,
) -> Result<Vec<WebhookView>, tokio_postgres::Error> {
    let sql = format!("{} ORDER BY w.created_at, w.id", view());
    let rows = client.query(&sql, &[&now]).await?;
    Ok(rows.iter().map(WebhookView::from_row).collect())
}

pub async fn read(
    client: &impl GenericClient,
    id: Uuid,
    now: DateTime<Utc>,
) -> Result<Option<WebhookView>, tokio_postgres::Error> {
    let sql = format!("{} WHERE w.id = $2", view());
    let row = client.query_opt(&sql, &[&now, &id]).await?;
    Ok(row.as_ref().map(WebhookView::from_row))
}

/// One event owed to an endpoint and how its attempts went.
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct DeliveryView {
    pub id: i64,
    pub event_id: Uuid,
    pub event_type: String,
    pub stream_id: String,
    pub position: i64,
    pub status: DeliveryStatus,
    pub attempts: i32,
    pub queued_at: DateTime<Utc>,
    /// When the next attempt is due (pending only).
    pub next_attempt_at: Option<DateTime<Utc>>,
    pub last_attempt_at: Option<DateTime<Utc>>,
    /// The receiver's last HTTP status (null: no answer).
    pub last_status: Option<i32>,
    /// Why the last attempt did not deliver.
    pub last_error: Option<String>,
    pub delivered_at: Option<DateTime<Utc>>,
}

impl DeliveryView {
    fn from_row(r: &Row) -> Self {
        // The column's CHECK holds it to the enum's names.
        let crate::db::Named(status) = r.get::<_, crate::db::Named<DeliveryStatus>>(5);
        Self {
            id: r.get(0),
            event_id: r.get(1),
            event_type: r.get(2),
            stream_id: r.get(3),
            position: r.get(4),
            status,
            attempts: r.get(6),
            queued_at: r.get(7),
            next_attempt_at: (status == DeliveryStatus::Pending).then(|| r.get(8)),
            last_attempt_at: r.get(9),
            last_status: r.get(10),
            last_error: r.get(11),
            delivered_at: r.get(12),
        }
    }
}

/// An endpoint's deliveries, newest first, `status` ones only when given,
/// those with an id below `before` when given.
pub async fn deliveries(
    client: &impl GenericClient,
    webhook_id: Uuid,
    (status, before): (Option<DeliveryStatus>, Option<i64>),
    limit: i64,
) -> Result<Vec<DeliveryView>, tokio_postgres::Error> {
    let status = status.map(DeliveryStatus::as_str);
    let rows = client
        .query(
            "SELECT id, event_id, event_type, stream_id, position, status, attempts, queued_at,
                    next_attempt_at, last_attempt_at, last_status, last_error, delivered_at
               FROM webhook_deliveries
              WHERE webhook_id = $1 AND ($2::text IS NULL OR status = $2)
                AND ($3::bigint IS NULL OR id < $3)
              ORDER BY id DESC LIMIT $4",
            &[&webhook_id, &status, &before, &limit.clamp(1, MAX_PAGE)],
        )
        .await?;
    Ok(rows.iter().map(DeliveryView::from_row).collect())
}
