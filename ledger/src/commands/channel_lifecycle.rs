//! A channel's lifecycle (docs/design.md §15): disabled and enabled, its
//! secret rotated with an overlap. Each change is one event on the
//! channel's stream, written with the row it changes.

use chrono::{DateTime, Duration, Utc};
use deadpool_postgres::Transaction;

use super::CommandError;
use super::channels::new_secret;
use crate::domain::channel::ChannelStatus;
use crate::domain::events::{ChannelSecretRotated, ChannelStatusChanged, Metadata};
use crate::domain::ids::ChannelId;
use crate::domain::ledger_event::LedgerEvent;
use crate::secret_box::{Keyring, Sealed};
use crate::store::{self, NewEvent};

/// Moves the channel to `to`; false (nothing written) when it already is.
pub async fn set_status(
    tx: &Transaction<'_>,
    channel_id: ChannelId,
    to: ChannelStatus,
    metadata: &Metadata,
    now: DateTime<Utc>,
) -> Result<bool, CommandError> {
    let (from, version) = lock(tx, channel_id).await?;
    if from == to {
        return Ok(false);
    }
    let changed = ChannelStatusChanged {
        channel_id,
        from,
        to,
    };
    let event = match to {
        ChannelStatus::Disabled => LedgerEvent::ChannelDisabled(changed),
        ChannelStatus::Active => LedgerEvent::ChannelEnabled(changed),
    };
    bump(
        tx,
        channel_id,
        version,
        NewEvent::of(&event, metadata, now)?,
    )
    .await?;
    tx.execute(
        &tx.prepare_cached("UPDATE channels SET status = $2 WHERE id = $1")
            .await?,
        &[&channel_id, &to.as_str()],
    )
    .await?;
    Ok(true)
}

/// A rotation's new secret, to be shown once.
pub struct Rotated {
    pub secret: String,
    pub rotated_at: DateTime<Utc>,
    pub previous_valid_until: DateTime<Utc>,
}

/// Replaces the channel's secret with a new one, sealed by `keys`; the
/// replaced one verifies until `now + overlap`. A secret replaced earlier
/// is forgotten: only the latest previous secret overlaps.
pub async fn rotate(
    tx: &Transaction<'_>,
    keys: &Keyring,
    channel_id: ChannelId,
    overlap: Duration,
    metadata: &Metadata,
    now: DateTime<Utc>,
) -> Result<Rotated, CommandError> {
    let (_, version) = lock(tx, channel_id).await?;
    let secret = new_secret();
    replace_sealed(tx, channel_id, &keys.seal(channel_id.0, &secret)).await?;
    let rotated = ChannelSecretRotated {
        channel_id,
        rotated_at: now,
        previous_valid_until: now + overlap,
    };
    tx.execute(
        &tx.prepare_cached(
            "UPDATE channels SET secret_created_at = $2, previous_secret_valid_until = $3
             WHERE id = $1",
        )
        .await?,
        &[
            &channel_id,
            &rotated.rotated_at,
            &rotated.previous_valid_until,
        ],
    )
    .await?;
    let (rotated_at, previous_valid_until) = (rotated.rotated_at, rotated.previous_valid_until);
    let event = LedgerEvent::ChannelSecretRotated(rotated);
    bump(
        tx,
        channel_id,
        version,
        NewEvent::of(&event, metadata, now)?,
    )
    .await?;
    Ok(Rotated {
        secret,
        rotated_at,
        previous_valid_until,
    })
}

/// Moves the channel's current sealed secret to its previous one (the one
/// before is dropped) and stores `sealed` as the current one.
async fn replace_sealed(
    tx: &Transaction<'_>,
    channel_id: ChannelId,
    sealed: &Sealed,
) -> Result<(), CommandError> {
    let moved = tx
        .execute(
            &tx.prepare_cached(
                "UPDATE channel_secrets
                    SET previous_key_id = key_id, previous_nonce = nonce,
                        previous_ciphertext = ciphertext,
                        key_id = $2, nonce = $3, ciphertext = $4
                  WHERE channel_id = $1 AND ciphertext IS NOT NULL",
            )
            .await?,
            &[
                &channel_id,
                &sealed.key_id,
                &sealed.nonce,
                &sealed.ciphertext,
            ],
        )
        .await?;
    if moved != 1 {
        // `serve` seals every row at start; an unsealed one is a hand edit.
        let e = anyhow::anyhow!("channel {channel_id}: its secret is not sealed");
        return Err(CommandError::Internal(e));
    }
    Ok(())
}

/// The channel's status and stream version, its row locked; 404 when unknown.
async fn lock(
    tx: &Transaction<'_>,
    channel_id: ChannelId,
) -> Result<(ChannelStatus, i32), CommandError> {
    let row = tx
        .query_opt(
            &tx.prepare_cached("SELECT status, version FROM channels WHERE id = $1 FOR UPDATE")
                .await?,
            &[&channel_id],
        )
        .await?
        .ok_or_else(|| CommandError::not_found("channel", channel_id))?;
    let crate::db::Named::<ChannelStatus>(status) = row.try_get(0)?;
    Ok((status, row.get(1)))
}

/// Appends one event to the channel's stream and records its new version.
async fn bump(
    tx: &Transaction<'_>,
    channel_id: ChannelId,
    version: i32,
    event: NewEvent,
) -> Result<(), CommandError> {
    let out = store::append(tx, &channel_id.stream_id(), version, &[event]).await?;
    tx.execute(
        &tx.prepare_cached("UPDATE channels SET version = $2 WHERE id = $1")
            .await?,
        &[&channel_id, &out.version],
    )
    .await?;
    Ok(())
}
