//! The event store's partitions (docs/design.md §16): how many are made
//! ahead of the one being written, and how many events fell into the
//! default partition (none unless the partitions ran out: then pg_partman
//! cannot make the partition they belong to). Read by
//! [`crate::observability::refresh::every`].

use deadpool_postgres::Pool;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::registry::Registry;

use crate::store::partitions;

#[derive(Clone, Default)]
pub struct StoreMetrics {
    ahead: Gauge,
    in_default: Gauge,
    partitions: Gauge,
}

impl StoreMetrics {
    pub fn register(&self, registry: &mut Registry) {
        let r = registry.sub_registry_with_prefix("event_partitions");
        r.register(
            "ahead",
            "Partitions of events made after the one holding the last position",
            self.ahead.clone(),
        );
        r.register(
            "default_rows",
            "Events in the default partition (appends past every partition made)",
            self.in_default.clone(),
        );
        r.register(
            "count",
            "Partitions of events, the default one included",
            self.partitions.clone(),
        );
    }

    pub async fn refresh(&self, pool: &Pool) -> anyhow::Result<()> {
        let mut client = pool.get().await?;
        let tx = crate::observability::refresh::bounded(&mut client).await?;
        let parts = partitions::list(&*tx).await?;
        let last: i64 = tx
            .query_one("SELECT coalesce(max(position), 0) FROM events", &[])
            .await?
            .get(0);
        let in_default: i64 = tx
            .query_one("SELECT count(*) FROM events_default", &[])
            .await?
            .get(0);
        tx.commit().await?;
        let ahead = parts
            .iter()
            .filter_map(|p| p.range)
            .filter(|(lower, _)| *lower > last)
            .count();
        self.ahead.set(i64::try_from(ahead).unwrap_or(i64::MAX));
        self.in_default.set(in_default);
        self.partitions
            .set(i64::try_from(parts.len()).unwrap_or(i64::MAX));
        Ok(())
    }
}
