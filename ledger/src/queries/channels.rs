//! Channels as the API shows them: one, or all of them by name. Never a
//! secret: `channel_secrets` is not read here (docs/design.md §15).

use chrono::{DateTime, Utc};
use serde::Serialize;
use tokio_postgres::{GenericClient, Row};
use utoipa::ToSchema;
use uuid::Uuid;

use crate::domain::channel::ChannelStatus;
use crate::domain::ids::ChannelId;
use crate::write_model::RowError;

/// The most channels listed.
pub const MAX_LISTED: i64 = 1_000;

/// A channel, without its secret: its status and the age of its secrets.
#[derive(Serialize, ToSchema)]
pub struct ChannelView {
    pub id: Uuid,
    pub name: String,
    pub status: ChannelStatus,
    pub created_at: DateTime<Utc>,
    /// When the current secret was made (at creation, or the last rotation).
    pub secret_created_at: DateTime<Utc>,
    /// Until when the secret the last rotation replaced still verifies
    /// signatures; null when no replaced secret does any more.
    pub previous_secret_valid_until: Option<DateTime<Utc>>,
}

/// The view's statement ending in `$tail`, built at compile time. The
/// replaced secret's end is shown only while it still verifies at `$1`.
macro_rules! view_sql {
    ($tail:literal) => {
        concat!(
            "SELECT id, name, status, created_at, secret_created_at,
                CASE WHEN previous_secret_valid_until > $1 THEN previous_secret_valid_until END
             FROM channels ",
            $tail
        )
    };
}

impl ChannelView {
    fn from_row(r: &Row) -> Result<Self, RowError> {
        let crate::db::Named(status) = r.try_get::<_, crate::db::Named<ChannelStatus>>(2)?;
        Ok(Self {
            id: r.get(0),
            name: r.get(1),
            status,
            created_at: r.get(3),
            secret_created_at: r.get(4),
            previous_secret_valid_until: r.get(5),
        })
    }
}

/// The channel, if it exists, as of `now`.
pub async fn read(
    client: &impl GenericClient,
    id: ChannelId,
    now: DateTime<Utc>,
) -> Result<Option<ChannelView>, RowError> {
    let sql = view_sql!("WHERE id = $2");
    let row = client.query_opt(sql, &[&now, &id]).await?;
    row.as_ref().map(ChannelView::from_row).transpose()
}

/// Every channel (at most [`MAX_LISTED`]), by name, as of `now`.
pub async fn list(
    client: &impl GenericClient,
    now: DateTime<Utc>,
) -> Result<Vec<ChannelView>, RowError> {
    let sql = view_sql!("ORDER BY name, id LIMIT $2");
    let rows = client.query(sql, &[&now, &MAX_LISTED]).await?;
    rows.iter().map(ChannelView::from_row).collect()
}
