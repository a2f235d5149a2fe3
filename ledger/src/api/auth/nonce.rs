//! Spending a channel request's nonce: the one place that does it for the
//! API (docs/design.md §6). Redis answers a replay it remembers cheaply;
//! Postgres (`channel_nonces`) is the guard that holds when Redis is down
//! or was flushed. The lifetime is `domain::nonce`'s, which the flash
//! gate's admission script uses too.

use crate::api::Shared;
use crate::api::http::error::ApiError;
use crate::commands::channels;
use crate::domain::ids::ChannelId;
use crate::domain::nonce;

/// Spends the nonce in Redis, then in Postgres; 401 when either saw it.
pub async fn spend(state: &Shared, channel: ChannelId, value: &str) -> Result<(), ApiError> {
    if seen_in_redis(state, channel, value).await {
        return Err(replay());
    }
    spend_in_postgres(state, channel, value).await
}

/// Spends the nonce in Redis; true when Redis says it was spent before.
/// False when Redis cannot tell (down): Postgres decides then.
pub async fn seen_in_redis(state: &Shared, channel: ChannelId, value: &str) -> bool {
    let Some(mut conn) = state.redis.connection().await else {
        return false;
    };
    let key = state
        .redis
        .key(&nonce::key_parts(&channel.to_string(), value));
    let set: Result<Option<String>, _> = redis::cmd("SET")
        .arg(&key)
        .arg(1)
        .arg("NX")
        .arg("EX")
        .arg(nonce::TTL_SECS)
        .query_async(&mut conn)
        .await;
    if set.is_err() {
        state.redis.report_failure();
    }
    matches!(set, Ok(None))
}

/// Records the nonce in Postgres, for a request whose nonce Redis has
/// already seen spent by this request (the flash gate's script).
pub async fn spend_in_postgres(
    state: &Shared,
    channel: ChannelId,
    value: &str,
) -> Result<(), ApiError> {
    let client = state.pool.get().await?;
    if !channels::record_nonce(&**client, channel, value).await? {
        return Err(replay());
    }
    Ok(())
}

/// The answer to a nonce seen before.
pub fn replay() -> ApiError {
    ApiError::Unauthorized("nonce already used".into())
}
