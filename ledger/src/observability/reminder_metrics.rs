//! Expiry reminders (docs/design.md §10, §14): `notify_msg` rows by status, and the
//! pending ones whose time is long past (the sender is not keeping up, or
//! not running), read from Postgres by [`crate::observability::refresh::every`].

use deadpool_postgres::Pool;
use prometheus_client::encoding::EncodeLabelSet;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::registry::Registry;

use crate::queries::gauges;

/// `notify_msg.status` values and their labels (docs/design.md §10).
pub const STATUSES: [(i16, &str); 4] =
    [(0, "pending"), (1, "sent"), (2, "failed"), (3, "cancelled")];

/// A pending reminder this long past its time counts as overdue.
pub const OVERDUE_AFTER: &str = "15 minutes";

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct StatusLabel {
    pub status: &'static str,
}

#[derive(Clone, Default)]
pub struct ReminderMetrics {
    rows: Family<StatusLabel, Gauge>,
    overdue: Gauge,
}

impl ReminderMetrics {
    pub fn register(&self, registry: &mut Registry) {
        registry.register(
            "reminders",
            "Expiry reminder rows (notify_msg) by status: pending, sent, failed, cancelled",
            self.rows.clone(),
        );
        registry.register(
            "reminders_overdue",
            "Pending expiry reminders more than 15 minutes past their notify_time",
            self.overdue.clone(),
        );
    }

    pub async fn refresh(&self, pool: &Pool) -> anyhow::Result<()> {
        let mut client = pool.get().await?;
        let tx = crate::observability::refresh::bounded(&mut client).await?;
        let rows = gauges::notify_rows_by_status(&*tx).await?;
        let overdue = gauges::notify_rows_overdue(&*tx, OVERDUE_AFTER).await?;
        tx.commit().await?;
        for (code, status) in STATUSES {
            let n = rows.iter().find(|(c, _)| *c == code);
            self.rows
                .get_or_create(&StatusLabel { status })
                .set(n.map_or(0, |(_, n)| *n));
        }
        self.overdue.set(overdue);
        Ok(())
    }
}
