//! What operators watch: the Prometheus registry ([`metrics`]) and the
//! families each part fills (claims, issuance, lag, the pipeline, queues,
//! reminders, the sealer, the event store's partitions, cold coupons,
//! the clusters' members, tokens), refreshed in the background
//! ([`refresh`]); RabbitMQ's management API (queue depths, dead letters).
//! The SQL they run lives in `queries/`.

pub mod claim_metrics;
pub mod cluster_metrics;
pub mod cluster_view;
pub mod cold_metrics;
pub mod dead_letters;
pub mod issuance_metrics;
pub mod lag_metrics;
pub mod metrics;
pub mod pipeline_metrics;
pub mod queue_metrics;
pub mod refresh;
pub mod reminder_metrics;
pub mod sealer_metrics;
pub mod store_metrics;
pub mod token_metrics;
