//! Notifications (docs/design.md §10, §14): `notify_msg` rows by status, for
//! expiry reminders and by notify type, and the pending reminders whose
//! time is long past (the sender is not keeping up, or not running), read
//! from Postgres by [`crate::observability::refresh::every`].

use deadpool_postgres::Pool;
use prometheus_client::encoding::EncodeLabelSet;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::registry::Registry;

use crate::domain::reminder::NotifyType;
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

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct TypeStatusLabel {
    pub r#type: &'static str,
    pub status: &'static str,
}

#[derive(Clone, Default)]
pub struct ReminderMetrics {
    rows: Family<StatusLabel, Gauge>,
    by_type: Family<TypeStatusLabel, Gauge>,
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
            "notifications",
            "notify_msg rows by notify type (expiry_reminder, coupons_granted) and status",
            self.by_type.clone(),
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
        let count = |kind: NotifyType, code: i16| {
            rows.iter()
                .find(|(t, s, _)| *t == kind.code() && *s == code)
                .map_or(0, |(.., n)| *n)
        };
        for (code, status) in STATUSES {
            let label = StatusLabel { status };
            let reminders = count(NotifyType::ExpiryReminder, code);
            self.rows.get_or_create(&label).set(reminders);
            for kind in NotifyType::ALL {
                let label = TypeStatusLabel {
                    r#type: kind.label(),
                    status,
                };
                self.by_type.get_or_create(&label).set(count(kind, code));
            }
        }
        self.overdue.set(overdue);
        Ok(())
    }
}
