//! The Prometheus registry and the request families; every other family
//! registers into it. The middleware that records each request lives with
//! the HTTP plumbing (`api/http/request_metrics.rs`).

use prometheus_client::encoding::EncodeLabelSet;
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::histogram::{Histogram, exponential_buckets};
use prometheus_client::registry::Registry;

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct RequestLabels {
    pub method: String,
    /// The route template (`/v1/templates/{sn}`), so label values stay few.
    pub route: String,
    pub status: u16,
}

pub struct Metrics {
    pub registry: Registry,
    pub issuance: crate::observability::issuance_metrics::IssuanceMetrics,
    pub lag: crate::observability::lag_metrics::LagMetrics,
    pub flash: crate::flash::metrics::FlashMetrics,
    pub claims: crate::observability::claim_metrics::ClaimMetrics,
    pub cold: crate::observability::cold_metrics::ColdMetrics,
    pub cluster: crate::observability::cluster_metrics::ClusterMetrics,
    pub pipeline: crate::observability::pipeline_metrics::PipelineMetrics,
    pub queues: crate::observability::queue_metrics::QueueMetrics,
    pub reminders: crate::observability::reminder_metrics::ReminderMetrics,
    pub sealer: crate::observability::sealer_metrics::SealerMetrics,
    pub store: crate::observability::store_metrics::StoreMetrics,
    pub tokens: crate::observability::token_metrics::TokenMetrics,
    pub webhooks: crate::observability::webhook_metrics::WebhookMetrics,
    pub requests: Family<RequestLabels, Counter>,
    pub latency: Family<RequestLabels, Histogram>,
}

impl Metrics {
    pub fn new() -> Self {
        let mut registry = Registry::with_prefix("couponledger");
        let requests = Family::<RequestLabels, Counter>::default();
        let latency = Family::<RequestLabels, Histogram>::new_with_constructor(|| {
            Histogram::new(exponential_buckets(0.0005, 2.0, 14))
        });
        registry.register("http_requests", "HTTP requests answered", requests.clone());
        registry.register(
            "http_request_duration_seconds",
            "HTTP request latency",
            latency.clone(),
        );
        let issuance = crate::observability::issuance_metrics::IssuanceMetrics::default();
        issuance.register(&mut registry);
        let lag = crate::observability::lag_metrics::LagMetrics::default();
        lag.register(&mut registry);
        let flash = crate::flash::metrics::FlashMetrics::default();
        flash.register(&mut registry);
        let claims = crate::observability::claim_metrics::ClaimMetrics::default();
        claims.register(&mut registry);
        let cold = crate::observability::cold_metrics::ColdMetrics::default();
        cold.register(&mut registry);

        let cluster = crate::observability::cluster_metrics::ClusterMetrics::default();
        cluster.register(&mut registry);
        let pipeline = crate::observability::pipeline_metrics::PipelineMetrics::default();
        pipeline.register(&mut registry);
        let queues = crate::observability::queue_metrics::QueueMetrics::default();
        queues.register(&mut registry);
        let reminders = crate::observability::reminder_metrics::ReminderMetrics::default();
        reminders.register(&mut registry);
        let sealer = crate::observability::sealer_metrics::SealerMetrics::default();
        sealer.register(&mut registry);
        let store = crate::observability::store_metrics::StoreMetrics::default();
        store.register(&mut registry);
        let tokens = crate::observability::token_metrics::TokenMetrics::default();
        tokens.register(&mut registry);
        let webhooks = crate::observability::webhook_metrics::WebhookMetrics::default();
        webhooks.register(&mut registry);
        Self {
            registry,
            issuance,
            lag,
            flash,
            claims,
            cold,
            cluster,
            pipeline,
            queues,
            reminders,
            sealer,
            store,
            tokens,
            webhooks,
            requests,
            latency,
        }
    }
}

impl Default for Metrics {
    fn default() -> Self {
        Self::new()
    }
}
