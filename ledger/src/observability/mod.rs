//! What operators watch: the Prometheus registry ([`metrics`]) and the
//! families each part fills (claims, issuance, lag, the pipeline, queues,
//! reminders, the sealer, the event store's partitions, cold coupons,
//! the clusters' members, tokens, webhooks), refreshed in the background
//! ([`refresh`]); RabbitMQ's management API (queue depths, dead letters).
//! The SQL they run lives in `queries/`.

pub(crate) mod claim_metrics;
pub(crate) mod cluster_metrics;
pub(crate) mod cluster_view;
pub(crate) mod cold_metrics;
pub(crate) mod dead_letters;
pub(crate) mod issuance_metrics;
pub(crate) mod lag_metrics;
pub mod metrics;
pub(crate) mod pipeline_metrics;
pub mod queue_metrics;
pub mod refresh;
pub(crate) mod reminder_metrics;
pub(crate) mod sealer_metrics;
pub(crate) mod store_metrics;
pub(crate) mod token_metrics;
pub(crate) mod webhook_metrics;
