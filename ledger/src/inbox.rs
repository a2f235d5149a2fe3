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
    Ok(inserted == 1)
}
