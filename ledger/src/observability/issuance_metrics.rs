//! Bulk-issuance metrics (docs/design.md §9, §14): what the API counts as files
//! stream in (lines read, chunks published), and what the workers did, read
//! back from Postgres every `LEDGER_METRICS_REFRESH_SECS` (jobs by status, coupons issued by
//! jobs, chunk durations), so one `/metrics` tells the whole pipeline.

use std::sync::atomic::AtomicU64;

use deadpool_postgres::Pool;
use prometheus_client::encoding::EncodeLabelSet;
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::registry::Registry;

use crate::domain::issuance::IssuanceJobStatus;
use crate::queries::gauges;

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct StatusLabel {
    pub status: String,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct QuantileLabel {
    pub quantile: String,
}

#[derive(Clone, Default)]
pub struct IssuanceMetrics {
    pub lines_read: Counter,
    pub chunks_published: Counter,
    jobs: Family<StatusLabel, Gauge>,
    coupons_issued: Gauge,
    chunk_seconds: Family<QuantileLabel, Gauge<f64, AtomicU64>>,
}

impl IssuanceMetrics {
    pub fn register(&self, registry: &mut Registry) {
        let r = registry.sub_registry_with_prefix("issuance");
        r.register(
            "lines_read",
            "Lines of uploaded files read",
            self.lines_read.clone(),
        );
        r.register(
            "chunks_published",
            "Chunks published to coupon.issuance (confirmed)",
            self.chunks_published.clone(),
        );
        r.register("jobs", "Jobs by stored status", self.jobs.clone());
        r.register(
            "coupons_issued",
            "Coupons issued by jobs",
            self.coupons_issued.clone(),
        );
        r.register(
            "chunk_duration_seconds",
            "Chunk transaction time over the last hour, by quantile",
            self.chunk_seconds.clone(),
        );
    }

    /// Reads the workers' side from Postgres.
    pub async fn refresh(&self, pool: &Pool) -> Result<(), anyhow::Error> {
        let client = pool.get().await?;
        let rows = gauges::issuance_jobs_by_status(&**client).await?;
        for status in IssuanceJobStatus::ALL {
            let n = rows.iter().find(|(s, _)| s == status.as_str());
            let label = StatusLabel {
                status: status.as_str().to_owned(),
            };
            self.jobs
                .get_or_create(&label)
                .set(n.map_or(0, |(_, n)| *n));
        }
        let quantiles = gauges::chunk_ms_last_hour(&**client).await?;
        let issued = gauges::coupons_issued_by_chunks(&**client).await?;
        self.coupons_issued.set(issued);
        for (ms, quantile) in quantiles.into_iter().zip(["0.5", "0.99"]) {
            let label = QuantileLabel {
                quantile: quantile.to_owned(),
            };
            self.chunk_seconds
                .get_or_create(&label)
                .set(ms.unwrap_or(0.0) / 1000.0);
        }
        Ok(())
    }
}
