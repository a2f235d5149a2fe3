//! App keys (docs/design.md §19): made, rotated with an overlap, revoked.
//! Each change is one event on the key's stream `apikey-<id>`, written with
//! the row it changes; only the key's SHA-256 is stored, and the key itself
//! is answered once.

use chrono::{DateTime, Duration, Utc};
use deadpool_postgres::Transaction;
use rand::RngCore;
use sha2::{Digest, Sha256};
use uuid::Uuid;

use super::CommandError;
use crate::domain::events::{ApiKeyCreated, ApiKeyRevoked, ApiKeyRotated, Metadata};
use crate::domain::key_scope::KeyScope;
use crate::domain::ledger_event::LedgerEvent;
use crate::domain::rate_limit::Bucket;
use crate::domain::stream::StreamKind;
use crate::store::{self, NewEvent};

/// Most live keys: every request's key is looked up among them and each
/// process caches them; a platform's apps are tens, not thousands.
pub const MAX_KEYS: i64 = 1_000;
/// The prefix of every key, so a leaked one is recognised by secret
/// scanners and never mistaken for an operator's token.
pub const KEY_PREFIX: &str = "clk_";
/// Longest overlap a rotation may ask for: a deploy of every app, a week.
pub const MAX_OVERLAP_SECS: i64 = 7 * 24 * 3_600;

/// A key as made or rotated: the key itself, shown once.
pub struct IssuedKey {
    pub id: Uuid,
    pub name: String,
    pub key: String,
}

/// A new key: the prefix and 32 random bytes in hex.
fn new_key() -> String {
    let mut bytes = [0u8; 32];
    rand::rng().fill_bytes(&mut bytes);
    format!("{KEY_PREFIX}{}", hex::encode(bytes))
}

/// The SHA-256 of a key (or of any bearer token): what is stored and compared.
pub fn digest(key: &str) -> [u8; 32] {
    Sha256::digest(key.as_bytes()).into()
}

/// Makes the key `name` with `scopes` (a name no live key has).
pub async fn create(
    tx: &Transaction<'_>,
    (name, scopes, rate_limit): (&str, &[KeyScope], Option<Bucket>),
    metadata: &Metadata,
    now: DateTime<Utc>,
) -> Result<IssuedKey, CommandError> {
    // One maker at a time: the count and the name are checked, then written.
    tx.execute("LOCK TABLE api_keys IN SHARE ROW EXCLUSIVE MODE", &[])
        .await?;
    let live =
        "SELECT count(*), count(*) FILTER (WHERE name = $1) FROM api_keys WHERE revoked_at IS NULL";
    let row = tx.query_one(live, &[&name]).await?;
    let (count, same_name): (i64, i64) = (row.get(0), row.get(1));
    if same_name > 0 {
        let message = format!("a live key is already named {name:?}");
        return Err(CommandError::Conflict("key_name_taken", message));
    }
    if count >= MAX_KEYS {
        let message = format!("at most {MAX_KEYS} live keys: revoke one first");
        return Err(CommandError::Conflict("too_many_keys", message));
    }
    let (id, key) = (Uuid::new_v4(), new_key());
    let digest = digest(&key);
    let names: Vec<&str> = scopes.iter().map(|s| s.into()).collect();
    let insert = "INSERT INTO api_keys
                      (id, name, scopes, created_at, digest, rate_per_second, rate_burst, version)
                  VALUES ($1, $2, $3, $4, $5, $6, $7, 1)";
    let (per_second, burst) = crate::domain::rate_limit::columns(rate_limit);
    let values: [&(dyn tokio_postgres::types::ToSql + Sync); 7] =
        [&id, &name, &names, &now, &&digest[..], &per_second, &burst];
    tx.execute(insert, &values).await?;
    let created = ApiKeyCreated {
        key_id: id,
        name: name.to_owned(),
        scopes: scopes.to_vec(),
        digest: hex::encode(digest),
        rate_limit,
    };
    let event = NewEvent::of(&LedgerEvent::ApiKeyCreated(created), metadata, now)?;
    store::append(tx, &StreamKind::ApiKey.id(id), 0, &[event]).await?;
    let name = name.to_owned();
    Ok(IssuedKey { id, name, key })
}

/// Gives the key a new secret; the old one opens for `overlap` more.
pub async fn rotate(
    tx: &Transaction<'_>,
    id: Uuid,
    overlap: Duration,
    metadata: &Metadata,
    now: DateTime<Utc>,
) -> Result<IssuedKey, CommandError> {
    let (version, name) = lock_live(tx, id).await?;
    let key = new_key();
    let digest = digest(&key);
    let until = now + overlap;
    let update = "UPDATE api_keys SET previous_digest = digest, digest = $2,
                         previous_valid_until = $3, version = $4 WHERE id = $1";
    tx.execute(update, &[&id, &&digest[..], &until, &(version + 1)])
        .await?;
    let rotated = ApiKeyRotated {
        key_id: id,
        digest: hex::encode(digest),
        previous_valid_until: until,
    };
    let event = NewEvent::of(&LedgerEvent::ApiKeyRotated(rotated), metadata, now)?;
    store::append(tx, &StreamKind::ApiKey.id(id), version, &[event]).await?;
    Ok(IssuedKey { id, name, key })
}

/// Revokes the key: every request with it (either secret) is refused from
/// now on. False when it already was.
pub async fn revoke(
    tx: &Transaction<'_>,
    id: Uuid,
    metadata: &Metadata,
    now: DateTime<Utc>,
) -> Result<bool, CommandError> {
    let version = match lock_live(tx, id).await {
        Err(CommandError::Conflict("key_revoked", _)) => return Ok(false),
        other => other?.0,
    };
    let update = "UPDATE api_keys SET revoked_at = $2, version = $3 WHERE id = $1";
    tx.execute(update, &[&id, &now, &(version + 1)]).await?;
    let revoked = ApiKeyRevoked { key_id: id };
    let event = NewEvent::of(&LedgerEvent::ApiKeyRevoked(revoked), metadata, now)?;
    store::append(tx, &StreamKind::ApiKey.id(id), version, &[event]).await?;
    Ok(true)
}

/// Locks the key's row; its stream version and name. A revoked key
/// changes no more.
async fn lock_live(tx: &Transaction<'_>, id: Uuid) -> Result<(i32, String), CommandError> {
    let sql = "SELECT version, revoked_at IS NOT NULL, name FROM api_keys WHERE id = $1 FOR UPDATE";
    let row = tx.query_opt(sql, &[&id]).await?;
    let row = row.ok_or_else(|| CommandError::NotFound("api key", id.to_string()))?;
    if row.get::<_, bool>(1) {
        let message = format!("api key {id} is revoked");
        return Err(CommandError::Conflict("key_revoked", message));
    }
    Ok((row.get(0), row.get(2)))
}
