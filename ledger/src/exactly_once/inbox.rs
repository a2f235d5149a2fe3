//! The consumer inbox: each (consumer, message id) takes effect at most once.
//!
//! Claimed inside the transaction that applies the message's effect, so a
//! redelivery after a crash between commit and ack finds the row and is a no-op.

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

/// [`claim`] for a batch, in one statement: for each id, whether this is
/// its first time (a repeat within the batch is not).
pub async fn claim_all(
    tx: &Transaction<'_>,
    consumer: &str,
    message_ids: &[&str],
) -> Result<Vec<bool>, tokio_postgres::Error> {
    let sql = "INSERT INTO inbox (consumer, message_id)
               SELECT $1, id FROM unnest($2::text[]) AS m (id)
               ON CONFLICT DO NOTHING RETURNING message_id";
    let rows = tx
        .query(&tx.prepare_cached(sql).await?, &[&consumer, &message_ids])
        .await?;
    let mut fresh: std::collections::HashSet<String> = rows.iter().map(|r| r.get(0)).collect();
    let skip = crate::planted::active(crate::planted::Bug::SkipInbox);
    Ok(message_ids
        .iter()
        .map(|id| fresh.remove(*id) || skip)
        .collect())
}
