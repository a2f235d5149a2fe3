//! Consumer lag as Prometheus gauges (issue 15): per consumer of
//! `coupon.events` (the relay and each projection), the events it has not
//! handled yet and the age of the oldest of them, read from Postgres every
//! `LEDGER_METRICS_REFRESH_SECS` (`crate::observability::refresh`). What to alert on is in docs/reference/messaging.md ("Lag").

use std::sync::atomic::AtomicU64;

use deadpool_postgres::Pool;
use prometheus_client::encoding::EncodeLabelSet;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::registry::Registry;

use crate::queries::lag::consumer_lags;

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct ConsumerLabel {
    pub consumer: String,
}

#[derive(Clone, Default)]
pub struct LagMetrics {
    events: Family<ConsumerLabel, Gauge>,
    seconds: Family<ConsumerLabel, Gauge<f64, AtomicU64>>,
}

impl LagMetrics {
    pub fn register(&self, registry: &mut Registry) {
        let r = registry.sub_registry_with_prefix("consumer_lag");
        r.register(
            "events",
            "Events of coupon.events a consumer has not handled yet (capped at 1,000,000)",
            self.events.clone(),
        );
        r.register(
            "seconds",
            "Age of the oldest event a consumer has not handled yet",
            self.seconds.clone(),
        );
    }

    pub async fn refresh(&self, pool: &Pool) -> Result<(), anyhow::Error> {
        let client = pool.get().await?;
        for lag in consumer_lags(&**client).await? {
            let label = ConsumerLabel {
                consumer: lag.consumer,
            };
            self.events.get_or_create(&label).set(lag.events_behind);
            self.seconds.get_or_create(&label).set(lag.seconds_behind);
        }
        Ok(())
    }
}
