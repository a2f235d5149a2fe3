//! Flash-sale metrics (docs/design.md §12): what the gate answered, the batches'
//! sizes and latencies, and the reconciler's corrections.

use prometheus_client::encoding::EncodeLabelSet;
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::histogram::{Histogram, exponential_buckets};
use prometheus_client::registry::Registry;

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct OutcomeLabel {
    pub outcome: &'static str,
}

#[derive(Clone)]
pub struct FlashMetrics {
    /// The gate's answers: reserved, sold_out, at_limit, rate_limited, cold,
    /// redis_down, queue_full.
    pub gate: Family<OutcomeLabel, Counter>,
    pub batch_size: Histogram,
    pub batch_seconds: Histogram,
    /// Redemptions written per group-committed batch.
    pub redemption_batch_size: Histogram,
    /// Units of stock the reconciler moved (Redis was off by that much).
    pub corrections: Counter,
    pub resets: Counter,
}

impl Default for FlashMetrics {
    fn default() -> Self {
        Self {
            gate: Family::default(),
            batch_size: Histogram::new(exponential_buckets(1.0, 2.0, 9)),
            batch_seconds: Histogram::new(exponential_buckets(0.0005, 2.0, 12)),
            redemption_batch_size: Histogram::new(exponential_buckets(1.0, 2.0, 9)),
            corrections: Counter::default(),
            resets: Counter::default(),
        }
    }
}

impl FlashMetrics {
    pub fn register(&self, registry: &mut Registry) {
        registry.register(
            "flash_gate",
            "Claims by what the Redis gate answered",
            self.gate.clone(),
        );
        registry.register(
            "flash_batch_size",
            "Claims written per group-committed batch",
            self.batch_size.clone(),
        );
        registry.register(
            "flash_batch_seconds",
            "Latency of a batch's transaction",
            self.batch_seconds.clone(),
        );
        registry.register(
            "flash_redemption_batch_size",
            "Redemptions written per group-committed batch",
            self.redemption_batch_size.clone(),
        );
        registry.register(
            "flash_reconcile_corrections",
            "Units of stock the reconciler corrected in Redis",
            self.corrections.clone(),
        );
        registry.register(
            "flash_reconcile_resets",
            "Resets of a template's gate from Postgres",
            self.resets.clone(),
        );
    }

    pub fn gate(&self, outcome: &'static str) {
        self.gate.get_or_create(&OutcomeLabel { outcome }).inc();
    }
}
