//! Retention: the tables that guard against replays only need to remember
//! for a while, so the scanner prunes them by age, in bounded batches.
//!
//! - `channel_nonces`: a signed request is refused outside ±300 s of the
//!   server's clock, so a nonce cannot be replayed once it is older than
//!   twice that window; kept 15 minutes to allow for clock skew between
//!   API servers.
//! - `idempotency_keys`: the same key and body answer the first response
//!   again for 24 hours (the usual contract of idempotency keys).
//! - `inbox`: redeliveries and relay re-sends come within minutes; kept 7
//!   days. A projection also skips any stream version it has applied, so an
//!   older duplicate still changes nothing.
//!
//! Rows are picked with SKIP LOCKED, so two scanners share the work.

use chrono::{DateTime, Duration, Utc};
use tokio_postgres::GenericClient;

pub const NONCE_RETENTION: Duration = Duration::minutes(15);
pub const IDEMPOTENCY_RETENTION: Duration = Duration::hours(24);
pub const INBOX_RETENTION: Duration = Duration::days(7);
/// Rows deleted per table and call.
pub const PRUNE_BATCH: i64 = 10_000;

/// (table, column holding the row's age, retention).
const TABLES: [(&str, &str, Duration); 3] = [
    ("channel_nonces", "seen_at", NONCE_RETENTION),
    ("idempotency_keys", "created_at", IDEMPOTENCY_RETENTION),
    ("inbox", "processed_at", INBOX_RETENTION),
];

/// Rows deleted by one [`prune`], per table.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Pruned {
    pub nonces: u64,
    pub idempotency_keys: u64,
    pub inbox: u64,
}

impl Pruned {
    pub fn total(&self) -> u64 {
        self.nonces + self.idempotency_keys + self.inbox
    }

    /// Whether some table had a full batch (more may be due).
    pub fn full(&self) -> bool {
        let batch = u64::try_from(PRUNE_BATCH).unwrap_or(u64::MAX);
        [self.nonces, self.idempotency_keys, self.inbox].contains(&batch)
    }
}

/// Deletes up to [`PRUNE_BATCH`] rows of each table that are older than
/// its retention at `now`.
pub async fn prune(
    client: &impl GenericClient,
    now: DateTime<Utc>,
) -> Result<Pruned, tokio_postgres::Error> {
    let mut counts = [0u64; 3];
    for (count, (table, column, retention)) in counts.iter_mut().zip(TABLES) {
        let sql = format!(
            "DELETE FROM {table} WHERE ctid = ANY(ARRAY(
                 SELECT ctid FROM {table} WHERE {column} < $1
                  LIMIT $2 FOR UPDATE SKIP LOCKED))"
        );
        *count = client
            .execute(&sql, &[&(now - retention), &PRUNE_BATCH])
            .await?;
    }
    let [nonces, idempotency_keys, inbox] = counts;
    Ok(Pruned {
        nonces,
        idempotency_keys,
        inbox,
    })
}
