//! The consumer inbox: each (consumer, message id) takes effect at most once.
//!
//! Claimed inside the transaction that applies the message's effect, so a
//! redelivery after a crash between commit and ack finds the row and is a no-op.
//! The projections keep only a receipt per message ([`record_all`]): their
//! own rows hold each stream's version, which skips a repeat of any event
//! however the runs carrying it were cut (docs/design.md §5).

use deadpool_postgres::Transaction;

/// Returns true the first time `consumer` sees `message_id`, false on a redelivery.
pub async fn claim(
    tx: &Transaction<'_>,
    consumer: &str,
    message_id: &str,
) -> Result<bool, tokio_postgres::Error> {
    let inserted = tx
        .execute(
            &tx.prepare_cached(
                "INSERT INTO inbox (consumer, message_id) VALUES ($1, $2) ON CONFLICT DO NOTHING",
            )
            .await?,
            &[&consumer, &message_id],
        )
        .await?;
    Ok(inserted == 1 || crate::planted::active(crate::planted::Bug::SkipInbox))
}

/// What a projection committed of one message: its id and the positions
/// of the events it applied from it.
pub struct Receipt {
    pub message_id: String,
    pub positions: Vec<i64>,
}

/// Records that `consumer` committed `receipts` (one statement), whether
/// or not it had before: the caller dedupes by its own rows. A message
/// whose events commit in parts (one isolated inside a batch) adds each
/// part's positions to its receipt.
pub async fn record_all(
    tx: &Transaction<'_>,
    consumer: &str,
    receipts: &[Receipt],
) -> Result<(), tokio_postgres::Error> {
    let ids: Vec<&str> = receipts.iter().map(|r| r.message_id.as_str()).collect();
    let positions: Vec<String> = receipts.iter().map(|r| multirange(&r.positions)).collect();
    let sql = "INSERT INTO inbox (consumer, message_id, positions)
               SELECT $1, id, p::int8multirange FROM unnest($2::text[], $3::text[]) AS m (id, p)
               ON CONFLICT (consumer, message_id) DO UPDATE
                 SET positions = coalesce(inbox.positions, '{}') + EXCLUDED.positions";
    tx.execute(
        &tx.prepare_cached(sql).await?,
        &[&consumer, &ids, &positions],
    )
    .await?;
    Ok(())
}

/// `positions` as the text of an `int8multirange`: runs of consecutive
/// positions as one range each (a run's events mostly are).
fn multirange(positions: &[i64]) -> String {
    let mut sorted = positions.to_vec();
    sorted.sort_unstable();
    sorted.dedup();
    let mut ranges: Vec<(i64, i64)> = Vec::new();
    for p in sorted {
        match ranges.last_mut() {
            Some(last) if last.1 == p => last.1 = p + 1,
            _ => ranges.push((p, p + 1)),
        }
    }
    let ranges: Vec<String> = ranges.iter().map(|(a, b)| format!("[{a},{b})")).collect();
    format!("{{{}}}", ranges.join(","))
}

#[cfg(test)]
mod tests {
    use super::multirange;

    #[test]
    fn consecutive_positions_make_one_range_each() {
        assert_eq!(multirange(&[7, 3, 4, 5, 9, 4]), "{[3,6),[7,8),[9,10)}");
        assert_eq!(multirange(&[]), "{}");
    }
}
