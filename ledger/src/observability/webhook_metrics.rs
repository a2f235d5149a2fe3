//! Webhooks (docs/design.md §21, §14): each endpoint's deliveries by
//! status and how long its oldest pending one has waited, and how far the
//! fan-out is behind the log, read from Postgres by
//! [`crate::observability::refresh::every`]. The `webhook` label is an
//! endpoint's id: at most 100 of them exist.

use deadpool_postgres::Pool;
use prometheus_client::encoding::EncodeLabelSet;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::registry::Registry;
use strum::VariantArray;

use crate::domain::webhook::DeliveryStatus;

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct StatusLabel {
    pub webhook: String,
    pub status: &'static str,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct WebhookLabel {
    pub webhook: String,
}

#[derive(Clone, Default)]
pub struct WebhookMetrics {
    deliveries: Family<StatusLabel, Gauge>,
    oldest_pending: Family<WebhookLabel, Gauge>,
    fanout_position: Gauge,
}

impl WebhookMetrics {
    pub fn register(&self, registry: &mut Registry) {
        registry.register(
            "webhook_deliveries",
            "Webhook deliveries by endpoint and status (pending, delivered, failed; \
             delivered rows are kept 7 days)",
            self.deliveries.clone(),
        );
        registry.register(
            "webhook_oldest_pending_seconds",
            "Seconds the endpoint's oldest pending delivery has waited (0: none)",
            self.oldest_pending.clone(),
        );
        registry.register(
            "webhook_fanout_position",
            "Position of the last event the webhooks fan-out read (compare events_head_position)",
            self.fanout_position.clone(),
        );
    }

    pub async fn refresh(&self, pool: &Pool) -> anyhow::Result<()> {
        let mut client = pool.get().await?;
        let tx = crate::observability::refresh::bounded(&mut client).await?;
        let rows = tx
            .query(
                "SELECT w.id::text, d.status, count(d.id),
                        coalesce(extract(epoch FROM now() - min(d.queued_at)), 0)::bigint
                   FROM webhooks w LEFT JOIN webhook_deliveries d ON d.webhook_id = w.id
                  GROUP BY w.id, d.status",
                &[],
            )
            .await?;
        let fanout = tx
            .query_one("SELECT position FROM webhook_fanout", &[])
            .await?;
        tx.commit().await?;
        self.deliveries.clear();
        self.oldest_pending.clear();
        for row in &rows {
            let webhook: String = row.get(0);
            let label = WebhookLabel {
                webhook: webhook.clone(),
            };
            self.oldest_pending.get_or_create(&label).set(0);
            for status in DeliveryStatus::VARIANTS {
                let label = StatusLabel {
                    webhook: webhook.clone(),
                    status: status.as_str(),
                };
                self.deliveries.get_or_create(&label).set(0);
            }
            let Some(status) = row.get::<_, Option<&str>>(1) else {
                continue;
            };
            let Ok(status) = status.parse::<DeliveryStatus>() else {
                continue;
            };
            let label = StatusLabel {
                webhook: webhook.clone(),
                status: status.as_str(),
            };
            self.deliveries.get_or_create(&label).set(row.get(2));
            if status == DeliveryStatus::Pending {
                let waited = row.get::<_, i64>(3);
                self.oldest_pending
                    .get_or_create(&WebhookLabel { webhook })
                    .set(waited);
            }
        }
        self.fanout_position.set(fanout.get(0));
        Ok(())
    }
}
