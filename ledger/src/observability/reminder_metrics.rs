//! Expiry reminders (DESIGN §10, §14): `notify_msg` rows by status, and the
//! pending ones whose time is long past (the sender is not keeping up, or
//! not running), read from Postgres by [`crate::observability::refresh::every`].

use deadpool_postgres::Pool;
use prometheus_client::encoding::EncodeLabelSet;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::registry::Registry;

/// `notify_msg.status` values and their labels (DESIGN §10).
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
        let rows = tx
            .query(
                "SELECT status, count(*) FROM notify_msg GROUP BY status",
                &[],
            )
            .await?;
        let overdue: i64 = tx
            .query_one(
                &format!(
                    "SELECT count(*) FROM notify_msg
                      WHERE status = 0 AND notify_time < now() - interval '{OVERDUE_AFTER}'"
                ),
                &[],
            )
            .await?
            .get(0);
        tx.commit().await?;
        for (code, status) in STATUSES {
            let n = rows.iter().find(|r| r.get::<_, i16>(0) == code);
            self.rows
                .get_or_create(&StatusLabel { status })
                .set(n.map_or(0, |r| r.get(1)));
        }
        self.overdue.set(overdue);
        Ok(())
    }
}
