//! Webhook endpoints' writes (docs/design.md §21): made (the secret
//! answered once), changed, disabled and enabled, the secret rotated with
//! an overlap, a replay from a position asked for. Endpoints are
//! configuration, so these write rows, not events.

use chrono::{DateTime, Duration, Utc};
use deadpool_postgres::Transaction;
use rand::RngCore;
use uuid::Uuid;

use super::CommandError;
use crate::domain::webhook::{EventTypes, MAX_WEBHOOKS, WebhookUrl};
use crate::secret_box::{Keyring, Sealed};

/// Prefix of every signing secret, so a leaked one is recognised.
pub const SECRET_PREFIX: &str = "whsec_";

/// An endpoint as asked for, parsed.
pub struct NewWebhook {
    pub url: WebhookUrl,
    pub event_types: EventTypes,
    pub description: Option<String>,
    pub retry_hours: i32,
}

/// A change: each field given replaces the stored one.
#[derive(Default)]
pub struct WebhookChange {
    pub url: Option<WebhookUrl>,
    pub event_types: Option<EventTypes>,
    pub description: Option<Option<String>>,
    pub retry_hours: Option<i32>,
}

fn new_secret() -> String {
    let mut bytes = [0u8; 32];
    rand::rng().fill_bytes(&mut bytes);
    format!("{SECRET_PREFIX}{}", hex::encode(bytes))
}

fn not_found(id: Uuid) -> CommandError {
    CommandError::NotFound("webhook", id.to_string())
}

/// Makes an endpoint; its id and its secret, which is never shown again.
pub async fn create(
    tx: &Transaction<'_>,
    new: &NewWebhook,
    (keys, by): (&Keyring, &str),
    now: DateTime<Utc>,
) -> Result<(Uuid, String), CommandError> {
    // One maker at a time: the count is checked, then written.
    tx.execute("LOCK TABLE webhooks IN SHARE ROW EXCLUSIVE MODE", &[])
        .await?;
    let count: i64 = tx
        .query_one("SELECT count(*) FROM webhooks", &[])
        .await?
        .get(0);
    if count >= MAX_WEBHOOKS {
        let message =
            format!("at most {MAX_WEBHOOKS} webhooks: reuse one (PATCH its url and event_types)");
        return Err(CommandError::Conflict("too_many_webhooks", message));
    }
    let (id, secret) = (Uuid::new_v4(), new_secret());
    let Sealed {
        key_id,
        nonce,
        ciphertext,
    } = keys.seal(id, &secret);
    tx.execute(
        "INSERT INTO webhooks (id, url, event_types, description, retry_hours,
                               key_id, nonce, ciphertext, created_at, created_by, updated_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $9)",
        &[
            &id,
            &new.url.as_str(),
            &new.event_types.names(),
            &new.description,
            &new.retry_hours,
            &key_id,
            &nonce,
            &ciphertext,
            &now,
            &by,
        ],
    )
    .await?;
    Ok((id, secret))
}

/// Applies `change` to the endpoint.
pub async fn change(
    tx: &Transaction<'_>,
    id: Uuid,
    change: &WebhookChange,
    now: DateTime<Utc>,
) -> Result<(), CommandError> {
    let description = change.description.as_ref();
    let n = tx
        .execute(
            "UPDATE webhooks SET url = coalesce($2, url),
                    event_types = coalesce($3, event_types),
                    description = CASE WHEN $4 THEN $5 ELSE description END,
                    retry_hours = coalesce($6, retry_hours), updated_at = $7
              WHERE id = $1",
            &[
                &id,
                &change.url.as_ref().map(WebhookUrl::as_str),
                &change.event_types.as_ref().map(EventTypes::names),
                &description.is_some(),
                &description.cloned().flatten(),
                &change.retry_hours,
                &now,
            ],
        )
        .await?;
    if n == 0 {
        return Err(not_found(id));
    }
    Ok(())
}

/// Disables or enables the endpoint (the same state again is no change).
pub async fn set_enabled(
    tx: &Transaction<'_>,
    id: Uuid,
    enabled: bool,
    now: DateTime<Utc>,
) -> Result<(), CommandError> {
    let n = tx
        .execute(
            "UPDATE webhooks SET enabled = $2,
                    updated_at = CASE WHEN enabled = $2 THEN updated_at ELSE $3 END
              WHERE id = $1",
            &[&id, &enabled, &now],
        )
        .await?;
    if n == 0 {
        return Err(not_found(id));
    }
    Ok(())
}

/// A new secret; the current one keeps signing beside it for `overlap`.
pub async fn rotate(
    tx: &Transaction<'_>,
    id: Uuid,
    (keys, overlap): (&Keyring, Duration),
    now: DateTime<Utc>,
) -> Result<String, CommandError> {
    let secret = new_secret();
    let sealed = keys.seal(id, &secret);
    let until = now + overlap;
    let n = tx
        .execute(
            "UPDATE webhooks SET previous_key_id = key_id, previous_nonce = nonce,
                    previous_ciphertext = ciphertext, previous_valid_until = $5,
                    key_id = $2, nonce = $3, ciphertext = $4, updated_at = $6
              WHERE id = $1",
            &[
                &id,
                &sealed.key_id,
                &sealed.nonce,
                &sealed.ciphertext,
                &until,
                &now,
            ],
        )
        .await?;
    if n == 0 {
        return Err(not_found(id));
    }
    Ok(secret)
}

/// Asks the sender to queue again every event from `from_position` to the
/// log's head now; answers that head.
pub async fn replay(
    tx: &Transaction<'_>,
    id: Uuid,
    from_position: i64,
    now: DateTime<Utc>,
) -> Result<i64, CommandError> {
    let head: i64 = tx
        .query_one("SELECT coalesce(max(position), 0) FROM events", &[])
        .await?
        .get(0);
    let n = tx
        .execute(
            "UPDATE webhooks SET replay_next = $2, replay_until = $3, updated_at = $4
              WHERE id = $1",
            &[&id, &from_position, &head, &now],
        )
        .await?;
    if n == 0 {
        return Err(not_found(id));
    }
    Ok(head)
}

/// At `serve`'s start, beside the channels' secrets: every webhook secret
/// (and a rotated-out one still signing) under an old key is sealed again
/// under the current one, so the old key may be dropped; one no key opens
/// is an error. Returns how many were sealed again.
pub async fn seal_all(
    tx: &Transaction<'_>,
    keys: &Keyring,
) -> Result<u64, super::channels::SealError> {
    let rows = tx
        .query(
            "SELECT id, key_id, nonce, ciphertext, previous_key_id, previous_nonce,
                    previous_ciphertext
               FROM webhooks ORDER BY id FOR UPDATE",
            &[],
        )
        .await?;
    let mut resealed = 0;
    for row in rows {
        let id: Uuid = row.get(0);
        for (at, slot) in [(1, ""), (4, "previous_")] {
            let Some(sealed) = Sealed::from_row(&row, at) else {
                continue;
            };
            let secret = keys.open(id, &sealed).map_err(|source| {
                super::channels::SealError::OpenWebhook {
                    webhook_id: id,
                    source,
                }
            })?;
            if sealed.key_id == keys.current_id() {
                continue;
            }
            let again = keys.seal(id, &secret);
            let sql = format!(
                "UPDATE webhooks SET {slot}key_id = $2, {slot}nonce = $3, {slot}ciphertext = $4
                  WHERE id = $1"
            );
            tx.execute(&sql, &[&id, &again.key_id, &again.nonce, &again.ciphertext])
                .await?;
            resealed += 1;
        }
    }
    Ok(resealed)
}
