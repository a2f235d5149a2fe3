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
use crate::store;
use crate::store::NewEvent;

pub struct CreatedChannel {
    pub id: Uuid,
    /// Shown once, to the operator who created the channel.
    pub secret: String,
}

pub async fn create(
    tx: &Transaction<'_>,
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
    tx.execute(
        &tx.prepare_cached("INSERT INTO channel_secrets (channel_id, secret) VALUES ($1, $2)")
            .await?,
        &[&id, &secret],
    )
    .await?;
    let created = ChannelCreated {
        channel_id: id,
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

/// The channel's signing secret, if the channel exists.
pub async fn secret(
    client: &impl GenericClient,
    channel_id: Uuid,
) -> Result<Option<String>, tokio_postgres::Error> {
    let row = client
        .query_opt(
            "SELECT secret FROM channel_secrets WHERE channel_id = $1",
            &[&channel_id],
        )
        .await?;
    Ok(row.map(|r| r.get(0)))
}

/// Records a nonce; false when it was seen before (a replay).
pub async fn record_nonce(
    client: &impl GenericClient,
    channel_id: Uuid,
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
