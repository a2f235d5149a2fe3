//! App keys as the API shows them (never a key nor its digest), and a key
//! found by the digest of a request's bearer token (docs/design.md §19).

use chrono::{DateTime, Utc};
use serde::Serialize;
use tokio_postgres::{GenericClient, Row};
use utoipa::ToSchema;
use uuid::Uuid;

use crate::domain::key_scope::KeyScope;
use crate::domain::rate_limit::Bucket;
use crate::write_model::RowError;

/// An app key: its scopes and times, never the key.
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct ApiKeyView {
    pub id: Uuid,
    pub name: String,
    #[schema(value_type = Vec<String>)]
    pub scopes: Vec<KeyScope>,
    pub created_at: DateTime<Utc>,
    /// Until when the secret the last rotation replaced still opens; null
    /// when none does.
    pub previous_valid_until: Option<DateTime<Utc>>,
    pub revoked_at: Option<DateTime<Utc>>,
    /// The last request with it (written at most once a minute).
    pub last_used_at: Option<DateTime<Utc>>,
    /// Its own request rate, per server; null: none.
    pub rate_limit: Option<Bucket>,
}

const VIEW: &str = "SELECT id, name, scopes, created_at,
        CASE WHEN previous_valid_until > $1 THEN previous_valid_until END,
        revoked_at, last_used_at, rate_per_second, rate_burst FROM api_keys ";

impl ApiKeyView {
    fn from_row(r: &Row) -> Result<Self, RowError> {
        Ok(Self {
            id: r.try_get(0)?,
            name: r.try_get(1)?,
            scopes: scopes(r.try_get(2)?)?,
            created_at: r.try_get(3)?,
            previous_valid_until: r.try_get(4)?,
            revoked_at: r.try_get(5)?,
            last_used_at: r.try_get(6)?,
            rate_limit: bucket(r.try_get(7)?, r.try_get(8)?),
        })
    }
}

/// A stored rate limit (both columns or neither: a CHECK says so).
fn bucket(per_second: Option<i32>, burst: Option<i32>) -> Option<Bucket> {
    let (per_second, burst) = (
        u32::try_from(per_second?).ok()?,
        u32::try_from(burst?).ok()?,
    );
    Some(Bucket { per_second, burst })
}

/// Stored scope names as scopes; one this build does not know is an error
/// (a newer build wrote it), never dropped silently.
fn scopes(names: Vec<String>) -> Result<Vec<KeyScope>, RowError> {
    names
        .iter()
        .map(|n| {
            n.parse()
                .map_err(|_| RowError::Unreadable(format!("unknown key scope {n:?}")))
        })
        .collect()
}

pub async fn read(
    client: &impl GenericClient,
    id: Uuid,
    now: DateTime<Utc>,
) -> Result<Option<ApiKeyView>, RowError> {
    let sql = format!("{VIEW} WHERE id = $2");
    let row = client.query_opt(&sql, &[&now, &id]).await?;
    row.as_ref().map(ApiKeyView::from_row).transpose()
}

/// Every key, live ones first, by name (at most `MAX_KEYS` live ones and
/// the revoked ones: bounded by `limit`).
pub async fn list(
    client: &impl GenericClient,
    now: DateTime<Utc>,
    limit: i64,
) -> Result<Vec<ApiKeyView>, RowError> {
    let sql = format!("{VIEW} ORDER BY revoked_at IS NOT NULL, name, id LIMIT $2");
    let rows = client.query(&sql, &[&now, &limit]).await?;
    rows.iter().map(ApiKeyView::from_row).collect()
}

/// A key found by a digest: who it is, and until when this digest opens
/// (None: until revoked).
#[derive(Clone, Debug)]
pub struct FoundKey {
    pub id: Uuid,
    pub name: String,
    pub scopes: Vec<KeyScope>,
    pub revoked: bool,
    pub rate_limit: Option<Bucket>,
    /// Set when `digest` is the secret a rotation replaced.
    pub valid_until: Option<DateTime<Utc>>,
}

/// The key whose current or replaced secret has `digest`.
pub async fn by_digest(
    client: &impl GenericClient,
    digest: &[u8; 32],
) -> Result<Option<FoundKey>, RowError> {
    let sql = "SELECT id, name, scopes, revoked_at IS NOT NULL, digest = $1, previous_valid_until,
                      rate_per_second, rate_burst
                 FROM api_keys WHERE digest = $1 OR previous_digest = $1";
    let row = client.query_opt(sql, &[&&digest[..]]).await?;
    let Some(r) = row else {
        return Ok(None);
    };
    let current: bool = r.try_get(4)?;
    let until: Option<DateTime<Utc>> = r.try_get(5)?;
    Ok(Some(FoundKey {
        id: r.try_get(0)?,
        name: r.try_get(1)?,
        scopes: scopes(r.try_get(2)?)?,
        revoked: r.try_get(3)?,
        rate_limit: bucket(r.try_get(6)?, r.try_get(7)?),
        // The columns are set together; a replaced secret without an end
        // would be a bug, and is taken as ended.
        valid_until: (!current).then(|| until.unwrap_or(DateTime::<Utc>::MIN_UTC)),
    }))
}

/// Notes that the key was used at `now` (operational: not an event).
pub async fn touch(
    client: &impl GenericClient,
    id: Uuid,
    now: DateTime<Utc>,
) -> Result<(), tokio_postgres::Error> {
    let sql = "UPDATE api_keys SET last_used_at = $2 WHERE id = $1 AND (last_used_at IS NULL OR last_used_at < $2)";
    client.execute(sql, &[&id, &now]).await.map(drop)
}
