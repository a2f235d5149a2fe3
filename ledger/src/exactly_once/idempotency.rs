//! Idempotency keys for commands (docs/design.md §7: every POST accepts `Idempotency-Key`).
//!
//! A key is claimed by INSERT inside the command's own transaction and its
//! response stored in the same transaction, so a key is never recorded without
//! the effect it stands for. A concurrent second request with the same key
//! waits on the first one's row lock and then sees its stored response.

use deadpool_postgres::Transaction;
use serde_json::Value;
use sha2::{Digest, Sha256};

/// Longest accepted key; longer ones are refused at the edge.
pub const MAX_KEY_LEN: usize = 255;

#[derive(Debug, thiserror::Error)]
pub enum IdempotencyError {
    #[error("Idempotency-Key must be 1 to {MAX_KEY_LEN} visible ASCII characters")]
    InvalidKey,
    #[error("Idempotency-Key was already used with a different request")]
    KeyReused,
    #[error("idempotency store: {0}")]
    Db(#[from] tokio_postgres::Error),
}

/// A stored response to replay.
#[derive(Clone, Debug, PartialEq)]
pub struct StoredResponse {
    pub status: u16,
    pub body: Value,
}

#[derive(Clone, Debug, PartialEq)]
pub enum Claim {
    /// First time: do the work, then [`record_response`] in the same transaction.
    Fresh,
    /// Seen before with the same request: answer this without doing anything.
    Replay(StoredResponse),
}

/// Hash of what makes two requests "the same" (route, body, …).
pub fn request_hash(parts: &[&[u8]]) -> [u8; 32] {
    let mut hasher = Sha256::new();
    for part in parts {
        // Length-prefixed so ("ab","c") and ("a","bc") differ.
        hasher.update((part.len() as u64).to_be_bytes());
        hasher.update(part);
    }
    hasher.finalize().into()
}

pub fn validate_key(key: &str) -> Result<(), IdempotencyError> {
    let ok =
        !key.is_empty() && key.len() <= MAX_KEY_LEN && key.bytes().all(|b| b.is_ascii_graphic());
    if ok {
        Ok(())
    } else {
        Err(IdempotencyError::InvalidKey)
    }
}

/// Claims `key` within `scope` (e.g. the caller's identity) for a request with `hash`.
pub async fn claim(
    tx: &Transaction<'_>,
    scope: &str,
    key: &str,
    hash: &[u8; 32],
) -> Result<Claim, IdempotencyError> {
    validate_key(key)?;
    let inserted = tx
        .execute(
            &tx.prepare_cached(
                "INSERT INTO idempotency_keys (scope, key, request_hash) VALUES ($1, $2, $3)
             ON CONFLICT DO NOTHING",
            )
            .await?,
            &[&scope, &key, &hash.as_slice()],
        )
        .await?;
    if inserted == 1 {
        return Ok(Claim::Fresh);
    }
    let row = tx
        .query_one(
            &tx.prepare_cached(
                "SELECT request_hash, response_status, response_body
               FROM idempotency_keys WHERE scope = $1 AND key = $2",
            )
            .await?,
            &[&scope, &key],
        )
        .await?;
    if row.get::<_, &[u8]>(0) != hash.as_slice() {
        return Err(IdempotencyError::KeyReused);
    }
    let status: Option<i16> = row.get(1);
    let body: Option<Value> = row.get(2);
    debug_assert!(status.is_some(), "a committed key always has its response");
    Ok(Claim::Replay(StoredResponse {
        status: status.map_or(200, |s| s as u16),
        body: body.unwrap_or(Value::Null),
    }))
}

/// Forgets `key`: the request it stood for took no effect after all (a
/// package job that could not be published and was failed in the same
/// transaction), so the same key may ask again.
pub async fn release(tx: &Transaction<'_>, scope: &str, key: &str) -> Result<(), IdempotencyError> {
    let sql = "DELETE FROM idempotency_keys WHERE scope = $1 AND key = $2";
    tx.execute(sql, &[&scope, &key]).await?;
    Ok(())
}

/// Stores the response of a [`Claim::Fresh`] request, before the transaction commits.
pub async fn record_response(
    tx: &Transaction<'_>,
    scope: &str,
    key: &str,
    response: &StoredResponse,
) -> Result<(), IdempotencyError> {
    let updated = tx
        .execute(
            &tx.prepare_cached(
                "UPDATE idempotency_keys SET response_status = $3, response_body = $4
              WHERE scope = $1 AND key = $2",
            )
            .await?,
            &[&scope, &key, &(response.status as i16), &response.body],
        )
        .await?;
    debug_assert_eq!(updated, 1, "record_response follows a Fresh claim");
    Ok(())
}
