//! Channels (发放渠道): who may issue coupons, and their request-signing secrets.

use chrono::{DateTime, Utc};
use deadpool_postgres::Transaction;
use rand::RngCore;
use tokio_postgres::GenericClient;
use uuid::Uuid;

use super::CommandError;
use crate::domain::events::{ChannelCreated, Metadata};
use crate::domain::ids::ChannelId;
use crate::domain::ledger_event::LedgerEvent;
use crate::secret_box::{Keyring, OpenError, Sealed};
use crate::store;
use crate::store::NewEvent;

pub struct CreatedChannel {
    pub id: Uuid,
    /// Shown once, to the operator who created the channel.
    pub secret: String,
}

/// Creates the channel; its secret is stored sealed by `keys`, never in plain.
pub async fn create(
    tx: &Transaction<'_>,
    keys: &Keyring,
    name: &str,
    metadata: &Metadata,
    now: DateTime<Utc>,
) -> Result<CreatedChannel, CommandError> {
    let id = Uuid::new_v4();
    let mut bytes = [0u8; 32];
    rand::rng().fill_bytes(&mut bytes);
    let secret = hex::encode(bytes);
    tx.execute(
        &tx.prepare_cached("INSERT INTO channels (id, name, created_at) VALUES ($1, $2, $3)")
            .await?,
        &[&id, &name, &now],
    )
    .await?;
    let sealed = keys.seal(id, &secret);
    tx.execute(
        &tx.prepare_cached(
            "INSERT INTO channel_secrets (channel_id, key_id, nonce, ciphertext)
             VALUES ($1, $2, $3, $4)",
        )
        .await?,
        &[&id, &sealed.key_id, &sealed.nonce, &sealed.ciphertext],
    )
    .await?;
    let created = ChannelCreated {
        channel_id: ChannelId(id),
        name: name.to_owned(),
    };
    let stream = ChannelId(id).stream_id();
    store::append(
        tx,
        &stream,
        0,
        &[NewEvent::of(
            &LedgerEvent::ChannelCreated(created),
            metadata,
            now,
        )?],
    )
    .await?;
    Ok(CreatedChannel { id, secret })
}

/// The channel's sealed signing secret, if the channel exists.
pub async fn sealed_secret(
    client: &impl GenericClient,
    channel_id: ChannelId,
) -> Result<Option<Sealed>, tokio_postgres::Error> {
    let row = client
        .query_opt(
            "SELECT key_id, nonce, ciphertext FROM channel_secrets
             WHERE channel_id = $1 AND ciphertext IS NOT NULL",
            &[&channel_id],
        )
        .await?;
    Ok(row.map(|r| Sealed {
        key_id: r.get(0),
        nonce: r.get(1),
        ciphertext: r.get(2),
    }))
}

#[derive(Debug, thiserror::Error)]
pub enum SealError {
    #[error("channel {channel_id}: {source}")]
    Open { channel_id: Uuid, source: OpenError },
    #[error(transparent)]
    Db(#[from] tokio_postgres::Error),
}

/// At start: seals the plaintext rows left from before V6 and re-seals rows
/// under an old key with the current one, in one transaction, so that after
/// it no row is plaintext and an old key may be dropped. Opening every row
/// also proves the keys before any request needs them: a row no configured
/// key opens is an error, and `serve` refuses to start. Returns how many rows
/// were (re)sealed.
pub async fn seal_all(tx: &Transaction<'_>, keys: &Keyring) -> Result<u64, SealError> {
    let rows = tx
        .query(
            "SELECT channel_id, secret, key_id, nonce, ciphertext FROM channel_secrets
             ORDER BY channel_id FOR UPDATE",
            &[],
        )
        .await?;
    let mut resealed = 0;
    for row in rows {
        let channel_id: Uuid = row.get(0);
        let secret = match row.get::<_, Option<String>>(1) {
            Some(plain) => plain,
            None => {
                let sealed = Sealed {
                    key_id: row.get(2),
                    nonce: row.get(3),
                    ciphertext: row.get(4),
                };
                let secret = keys
                    .open(channel_id, &sealed)
                    .map_err(|source| SealError::Open { channel_id, source })?;
                if sealed.key_id == keys.current_id() {
                    continue;
                }
                secret
            }
        };
        let sealed = keys.seal(channel_id, &secret);
        tx.execute(
            "UPDATE channel_secrets SET secret = NULL, key_id = $2, nonce = $3, ciphertext = $4
             WHERE channel_id = $1",
            &[
                &channel_id,
                &sealed.key_id,
                &sealed.nonce,
                &sealed.ciphertext,
            ],
        )
        .await?;
        resealed += 1;
    }
    Ok(resealed)
}

/// Records a nonce; false when it was seen before (a replay).
pub async fn record_nonce(
    client: &impl GenericClient,
    channel_id: ChannelId,
    nonce: &str,
) -> Result<bool, tokio_postgres::Error> {
    let inserted = client
        .execute(
            "INSERT INTO channel_nonces (channel_id, nonce) VALUES ($1, $2)
             ON CONFLICT DO NOTHING",
            &[&channel_id, &nonce],
        )
        .await?;
    Ok(inserted == 1)
}
