//! Channels (发放渠道): who may issue coupons, and their request-signing secrets.

use chrono::{DateTime, Utc};
use deadpool_postgres::Transaction;
use rand::RngCore;
use tokio_postgres::GenericClient;
use uuid::Uuid;

use super::CommandError;
use crate::domain::channel::ChannelStatus;
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
    let secret = new_secret();
    tx.execute(
        &tx.prepare_cached(
            "INSERT INTO channels (id, name, created_at, status, secret_created_at, version)
             VALUES ($1, $2, $3, $4, $3, 1)",
        )
        .await?,
        &[&id, &name, &now, &ChannelStatus::Active.as_str()],
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

/// A new signing secret: 32 random bytes, in hex.
pub(super) fn new_secret() -> String {
    let mut bytes = [0u8; 32];
    rand::rng().fill_bytes(&mut bytes);
    hex::encode(bytes)
}

/// What verifies a channel's signatures, read in one statement with its
/// status (docs/design.md §15): the sealed current secret, the secret the
/// last rotation replaced and until when it verifies, and whether the
/// channel is disabled.
pub struct SigningKeys {
    pub current: Sealed,
    pub previous: Option<(Sealed, DateTime<Utc>)>,
    pub disabled: bool,
}

/// The channel's [`SigningKeys`], if the channel exists.
pub async fn signing_keys(
    client: &impl GenericClient,
    channel_id: ChannelId,
) -> Result<Option<SigningKeys>, tokio_postgres::Error> {
    let row = client
        .query_opt(
            "SELECT s.key_id, s.nonce, s.ciphertext,
                    s.previous_key_id, s.previous_nonce, s.previous_ciphertext,
                    c.previous_secret_valid_until, c.status = $2
               FROM channel_secrets s JOIN channels c ON c.id = s.channel_id
              WHERE s.channel_id = $1 AND s.ciphertext IS NOT NULL",
            &[&channel_id, &ChannelStatus::Disabled.as_str()],
        )
        .await?;
    // The statement keeps only sealed rows: `current` is always there.
    Ok(row.and_then(|r| {
        Some(SigningKeys {
            current: Sealed::from_row(&r, 0)?,
            previous: Sealed::from_row(&r, 3).zip(r.get::<_, Option<DateTime<Utc>>>(6)),
            disabled: r.get(7),
        })
    }))
}

#[derive(Debug, thiserror::Error)]
pub enum SealError {
    #[error("channel {channel_id}: {source}")]
    Open { channel_id: Uuid, source: OpenError },
    #[error("webhook {webhook_id}: {source}")]
    OpenWebhook { webhook_id: Uuid, source: OpenError },
    #[error(transparent)]
    Db(#[from] tokio_postgres::Error),
}

/// At start: seals the plaintext rows left from before V6 and re-seals rows
/// under an old key with the current one (a rotated-out previous secret
/// too), in one transaction, so that after it no row is plaintext and an old
/// key may be dropped. Opening every row also proves the keys before any
/// request needs them: a row no configured key opens is an error, and
/// `serve` refuses to start. Returns how many secrets were (re)sealed.
pub async fn seal_all(tx: &Transaction<'_>, keys: &Keyring) -> Result<u64, SealError> {
    let rows = tx
        .query(
            "SELECT channel_id, secret, key_id, nonce, ciphertext,
                    previous_key_id, previous_nonce, previous_ciphertext
               FROM channel_secrets ORDER BY channel_id FOR UPDATE",
            &[],
        )
        .await?;
    let mut resealed = 0;
    for row in rows {
        let channel_id: Uuid = row.get(0);
        let current = match row.get::<_, Option<String>>(1) {
            Some(plain) => Some(keys.seal(channel_id, &plain)),
            None => resealed_under_current(keys, channel_id, Sealed::from_row(&row, 2))?,
        };
        let previous = resealed_under_current(keys, channel_id, Sealed::from_row(&row, 5))?;
        if let Some(sealed) = &current {
            update_sealed(tx, channel_id, Slot::Current, sealed).await?;
            resealed += 1;
        }
        if let Some(sealed) = &previous {
            update_sealed(tx, channel_id, Slot::Previous, sealed).await?;
            resealed += 1;
        }
    }
    Ok(resealed)
}

/// `sealed` opened (which proves the keys) and, when under an old key,
/// sealed again under the current one; None when it needs no new seal.
fn resealed_under_current(
    keys: &Keyring,
    channel_id: Uuid,
    sealed: Option<Sealed>,
) -> Result<Option<Sealed>, SealError> {
    let Some(sealed) = sealed else {
        return Ok(None);
    };
    let secret = keys
        .open(channel_id, &sealed)
        .map_err(|source| SealError::Open { channel_id, source })?;
    Ok((sealed.key_id != keys.current_id()).then(|| keys.seal(channel_id, &secret)))
}

/// Which of a row's secrets: the current one, or the one a rotation replaced.
#[derive(Clone, Copy)]
enum Slot {
    Current,
    Previous,
}

/// Stores `sealed` in the row's `slot`; sealing the current secret clears
/// its plaintext.
async fn update_sealed(
    tx: &Transaction<'_>,
    channel_id: Uuid,
    slot: Slot,
    sealed: &Sealed,
) -> Result<(), tokio_postgres::Error> {
    let sql = match slot {
        Slot::Current => {
            "UPDATE channel_secrets SET secret = NULL, key_id = $2, nonce = $3, ciphertext = $4
             WHERE channel_id = $1"
        }
        Slot::Previous => {
            "UPDATE channel_secrets
                SET previous_key_id = $2, previous_nonce = $3, previous_ciphertext = $4
              WHERE channel_id = $1"
        }
    };
    let (key_id, nonce, ciphertext) = (&sealed.key_id, &sealed.nonce, &sealed.ciphertext);
    tx.execute(sql, &[&channel_id, key_id, nonce, ciphertext])
        .await?;
    Ok(())
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
