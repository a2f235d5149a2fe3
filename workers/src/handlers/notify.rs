//! The `notify` worker (docs/design.md §10): the notify projection, which applies
//! `coupon.events.notify` in batches ([`crate::consumers::batched`], with
//! [`super::projector::Projector::Notify`] as the handler), and the sender,
//! which every minute sends the reminders and `CouponsGranted` messages due
//! by the clock (`ledger::commands::reminders`), each batch as one AMQP
//! transaction, and purges old sent and cancelled rows.

use std::time::Duration;

use chrono::Utc;
use deadpool_postgres::Pool;
use ledger::commands::reminders::{self, SendLimits};
use ledger::messaging::lazy_publisher::LazyPublisher;

use crate::shutdown::Shutdown;

/// How often the sender looks for due reminders.
pub const SEND_INTERVAL: Duration = Duration::from_secs(60);
/// Rows purged per statement, and statements per round.
const PURGE_BATCH: i64 = 10_000;
const PURGE_ROUNDS: usize = 100;

/// The sender's loop: send what is due now, purge, sleep a minute.
pub async fn send_loop(
    pool: Pool,
    publisher: LazyPublisher,
    retention_days: u32,
    mut shutdown: Shutdown,
) -> anyhow::Result<()> {
    let retention = chrono::Duration::days(i64::from(retention_days));
    while !shutdown.is_set() {
        let now = Utc::now();
        match reminders::send_due(&pool, &publisher, now, SendLimits::default()).await {
            Ok(report) if report.messages > 0 || report.publish_errors > 0 => {
                tracing::info!(?report, "notifications sent")
            }
            Ok(_) => {}
            Err(e) => tracing::warn!(
                error = ledger::logging::chain(&e),
                "sending notifications failed"
            ),
        }
        if let Err(e) = purge(&pool, now, retention).await {
            tracing::warn!(
                error = ledger::logging::chain(e.as_ref()),
                "purging reminders failed"
            );
        }
        shutdown.sleep(SEND_INTERVAL).await;
    }
    Ok(())
}

async fn purge(
    pool: &Pool,
    now: chrono::DateTime<Utc>,
    retention: chrono::Duration,
) -> anyhow::Result<()> {
    for _ in 0..PURGE_ROUNDS {
        let n = reminders::purge(pool, now, retention, PURGE_BATCH).await?;
        if n < PURGE_BATCH.unsigned_abs() {
            break;
        }
    }
    Ok(())
}
