//! The hash chain's sealer (docs/design.md §11, §14): how many events are sealed,
//! the position of the last one, how many committed events wait to be
//! sealed, and when the last checkpoint was taken; read from Postgres by
//! [`crate::observability::refresh::every`].

use deadpool_postgres::Pool;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::registry::Registry;

use crate::audit::seal;
use crate::queries::gauges;
use crate::queries::lag::COUNT_CAP;

#[derive(Clone, Default)]
pub struct SealerMetrics {
    sealed: Gauge,
    position: Gauge,
    behind: Gauge,
    checkpoint: Gauge,
}

impl SealerMetrics {
    pub fn register(&self, registry: &mut Registry) {
        let r = registry.sub_registry_with_prefix("sealer");
        r.register(
            "sealed_events",
            "Events sealed into the hash chain (the chain's length)",
            self.sealed.clone(),
        );
        r.register(
            "position",
            "Position of the last sealed event (0: none yet)",
            self.position.clone(),
        );
        r.register(
            "lag_events",
            "Events not sealed yet (capped at 1,000,000)",
            self.behind.clone(),
        );
        r.register(
            "last_checkpoint_timestamp_seconds",
            "Unix time of the last seal checkpoint (0: none yet)",
            self.checkpoint.clone(),
        );
    }

    pub async fn refresh(&self, pool: &Pool) -> anyhow::Result<()> {
        let mut client = pool.get().await?;
        let tx = crate::observability::refresh::bounded(&mut client).await?;
        let head = seal::head(&*tx).await?;
        let behind = gauges::events_after(&*tx, head.cursor, COUNT_CAP).await?;
        let checkpoint = gauges::last_checkpoint_epoch(&*tx).await?;
        tx.commit().await?;
        self.sealed.set(head.seq);
        self.position.set(head.cursor.position.max(0));
        self.behind.set(behind);
        self.checkpoint.set(checkpoint.unwrap_or(0.0) as i64);
        Ok(())
    }
}
