//! Who did what (docs/design.md §19): the events written in answer to
//! operators' and apps' requests, with the principal their metadata names,
//! oldest first, paged by position. Read from the events themselves
//! through the index of those requests' events (`events_by_principal`).

use chrono::{DateTime, Utc};
use serde::Serialize;
use serde_json::Value;
use tokio_postgres::GenericClient;
use utoipa::ToSchema;

/// Most actions in one page.
pub const MAX_PAGE: i64 = 500;
/// Longest name a filter may hold, in characters (an operator's is 64, a
/// key's id 36).
pub const MAX_FILTER_LEN: usize = 64;

#[derive(Serialize, ToSchema)]
pub struct Action {
    pub position: i64,
    pub occurred_at: DateTime<Utc>,
    pub event_type: String,
    pub stream_id: String,
    /// `admin` (an operator) or `service` (an app key).
    pub actor: String,
    pub operator: Option<String>,
    pub role: Option<String>,
    /// `{id, name}` of the app key.
    #[schema(value_type = Option<Object>)]
    pub api_key: Option<Value>,
    /// The request's id: the events of one request share it.
    pub correlation_id: Option<String>,
}

/// What the list is narrowed to.
pub struct Filter<'a> {
    pub operator: Option<&'a str>,
    /// A key's id or name.
    pub api_key: Option<&'a str>,
    pub from: Option<DateTime<Utc>>,
    pub to: Option<DateTime<Utc>>,
    /// Only events after this position (the last page's last).
    pub after: i64,
    pub limit: i64,
}

pub async fn list(
    client: &impl GenericClient,
    f: &Filter<'_>,
) -> Result<Vec<Action>, tokio_postgres::Error> {
    let sql = "SELECT position, occurred_at, event_type, stream_id, metadata->>'actor',
                      metadata->>'operator', metadata->>'role', metadata->'api_key',
                      metadata->>'correlation_id'
                 FROM events
                WHERE metadata->>'actor' IN ('admin', 'service') AND position > $1
                  AND ($2::text IS NULL OR metadata->>'operator' = $2)
                  AND ($3::text IS NULL OR metadata->'api_key'->>'id' = $3
                       OR metadata->'api_key'->>'name' = $3)
                  AND ($4::timestamptz IS NULL OR occurred_at >= $4)
                  AND ($5::timestamptz IS NULL OR occurred_at < $5)
                ORDER BY position LIMIT $6";
    let params: [&(dyn tokio_postgres::types::ToSql + Sync); 6] =
        [&f.after, &f.operator, &f.api_key, &f.from, &f.to, &f.limit];
    let rows = client.query(sql, &params).await?;
    Ok(rows
        .iter()
        .map(|r| Action {
            position: r.get(0),
            occurred_at: r.get(1),
            event_type: r.get(2),
            stream_id: r.get(3),
            actor: r.get(4),
            operator: r.get(5),
            role: r.get(6),
            api_key: r.get(7),
            correlation_id: r.get(8),
        })
        .collect())
}
