//! Moving ended coupons to cold storage (docs/design.md §16): each batch is
//! one statement that takes the oldest due rows still unlocked, deletes
//! them from `coupons` and inserts them into `coupons_archive`, so a kill
//! between batches loses nothing and a second archiver takes other rows.
//! Rows a command holds (a refund thawing a coupon) are skipped, not waited
//! for.

use chrono::{DateTime, Duration, Utc};
use tokio_postgres::GenericClient;

use super::{COLUMNS, ENDED_AT_SQL, ended_sql};

/// Rows moved per statement: one commit's WAL and locks stay small (a few
/// MB, tens of milliseconds), and claims never wait behind a batch.
pub const DEFAULT_BATCH: i64 = 5_000;
/// The largest batch a caller may ask for.
pub const MAX_BATCH: i64 = 50_000;
/// The most `due` counts before it answers "at least this many": a count
/// of a billion cold rows would read the index for minutes.
pub const COUNT_CAP: i64 = 100_000_000;

/// The instant before which an ended coupon is due: `now - after_days`.
pub fn cutoff(now: DateTime<Utc>, after_days: u32) -> DateTime<Utc> {
    now - Duration::days(i64::from(after_days))
}

/// How many ended coupons last changed before `before` are still hot
/// (at most `cap`, itself at most [`COUNT_CAP`]).
pub async fn due(
    client: &impl GenericClient,
    before: DateTime<Utc>,
    cap: i64,
) -> Result<i64, tokio_postgres::Error> {
    let sql = format!(
        "SELECT count(*) FROM (SELECT 1 FROM coupons
          WHERE {ended} AND {ENDED_AT_SQL} < $1 LIMIT $2) due",
        ended = ended_sql()
    );
    let cap = cap.clamp(0, COUNT_CAP);
    Ok(client.query_one(&sql, &[&before, &cap]).await?.get(0))
}

/// Moves up to `batch` due coupons, oldest first; returns how many moved
/// (fewer than `batch`: nothing more was due, or the rest was locked).
pub async fn move_batch(
    client: &impl GenericClient,
    before: DateTime<Utc>,
    batch: i64,
) -> Result<u64, tokio_postgres::Error> {
    let sql = format!(
        "WITH due AS (
             SELECT id FROM coupons WHERE {ended} AND {ENDED_AT_SQL} < $1
              ORDER BY {ENDED_AT_SQL} LIMIT $2 FOR UPDATE SKIP LOCKED),
         moved AS (
             DELETE FROM coupons c USING due WHERE c.id = due.id RETURNING c.*)
         INSERT INTO coupons_archive ({COLUMNS}) SELECT {COLUMNS} FROM moved",
        ended = ended_sql()
    );
    client
        .execute(sql.as_str(), &[&before, &batch.clamp(1, MAX_BATCH)])
        .await
}

/// Moves batches of `batch` until nothing more is due or `go_on` (told
/// each batch's count) says stop; returns how many moved in all.
pub async fn move_all(
    client: &impl GenericClient,
    before: DateTime<Utc>,
    batch: i64,
    mut go_on: impl FnMut(u64) -> bool,
) -> Result<u64, tokio_postgres::Error> {
    let mut total = 0;
    loop {
        let moved = move_batch(client, before, batch).await?;
        total += moved;
        if moved < batch.clamp(1, MAX_BATCH).unsigned_abs() || !go_on(moved) {
            return Ok(total);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_cutoff_is_that_many_days_back() {
        let now = "2026-11-26T12:00:00Z".parse().unwrap();
        let due: DateTime<Utc> = "2026-08-28T12:00:00Z".parse().unwrap();
        assert_eq!(cutoff(now, 90), due);
        assert_eq!(cutoff(now, 0), now);
    }
}
