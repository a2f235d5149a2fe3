//! Hot and cold coupons (docs/design.md §16): how many ended coupons wait
//! for the archiver, how many are archived, and the purge horizon. Read
//! from Postgres by [`crate::observability::refresh::every`].

use deadpool_postgres::Pool;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::registry::Registry;

use crate::cold::{archive, purge};

/// The due count stops here: past it the archiver is far behind, and the
/// alert fires whatever the exact number.
const DUE_CAP: i64 = 1_000_000;

#[derive(Clone, Default)]
pub struct ColdMetrics {
    due: Gauge,
    archived: Gauge,
    horizon: Gauge,
}

impl ColdMetrics {
    pub fn register(&self, registry: &mut Registry) {
        let r = registry.sub_registry_with_prefix("cold_coupons");
        r.register(
            "due",
            "Ended coupons past LEDGER_ARCHIVE_AFTER_DAYS still in coupons (capped at 1,000,000)",
            self.due.clone(),
        );
        r.register(
            "archived",
            "Coupons in coupons_archive, as Postgres estimates them",
            self.archived.clone(),
        );
        r.register(
            "purge_horizon_timestamp_seconds",
            "Unix time before which archived coupons were purged (0: never)",
            self.horizon.clone(),
        );
    }

    pub async fn refresh(&self, pool: &Pool, after_days: u32) -> anyhow::Result<()> {
        let mut client = pool.get().await?;
        let tx = crate::observability::refresh::bounded(&mut client).await?;
        let before = archive::cutoff(crate::store::now(), after_days);
        let due = archive::due(&*tx, before, DUE_CAP).await?;
        let archived = crate::replay::estimated_rows(&*tx, "coupons_archive").await?;
        let horizon = purge::horizon(&*tx).await?;
        tx.commit().await?;
        self.due.set(due);
        self.archived
            .set(i64::try_from(archived).unwrap_or(i64::MAX));
        self.horizon.set(horizon.map_or(0, |h| h.timestamp()));
        Ok(())
    }
}
