//! The Redis bitmap of used-up codes (docs/design.md §13): one bitmap per code
//! batch, one bit per serial (its place in the batch), set once Postgres
//! has committed a code's last use. `POST /v1/redemptions` answers a code
//! whose bit is set 410 without Postgres. Only a committed last use sets a
//! bit, so a set bit is always true; a bit missing (Redis down, a failed
//! SETBIT) only sends the repeat on to Postgres, which refuses it too.

use crate::redis_link::RedisHandle;
use crate::write_model::code_batch_row::Batch;

/// The code's bit: the batch's key, and the offset (serial − first serial).
fn bit(redis: &RedisHandle, batch: &Batch, serial: i64) -> (String, usize) {
    let key = redis.key(&["codes", &batch.id.to_string(), "used-up"]);
    let offset = usize::try_from(serial - batch.first_serial).unwrap_or(0);
    (key, offset)
}

/// Whether Redis knows the code is used up; false when it cannot tell.
pub async fn is_set(redis: &RedisHandle, batch: &Batch, serial: i64) -> bool {
    let Some(mut conn) = redis.connection().await else {
        return false;
    };
    let set: Result<bool, _> = redis::cmd("GETBIT")
        .arg(bit(redis, batch, serial))
        .query_async(&mut conn)
        .await;
    set.unwrap_or(false)
}

/// Marks the code used up, once Postgres has committed its last use. A
/// failure is logged and otherwise ignored: Redis is an accelerator.
pub async fn mark(redis: &RedisHandle, batch: &Batch, serial: i64) {
    let Some(mut conn) = redis.connection().await else {
        return;
    };
    let set: Result<i64, _> = redis::cmd("SETBIT")
        .arg(bit(redis, batch, serial))
        .arg(1)
        .query_async(&mut conn)
        .await;
    if let Err(e) = set {
        redis.report_failure();
        tracing::debug!(error = %e, "used-up bit not set (Postgres still refuses the code)");
    }
}
