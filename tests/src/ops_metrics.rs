//! The metric families `/metrics` must expose (issue 18, docs/design.md §14), in
//! one place: the metrics test asserts each is present after traffic, and
//! the alerts test asserts `ops/alerts.yml` names no other.

/// Every family, as Prometheus sees it (counters with `_total`,
/// histograms with their `_bucket`/`_sum`/`_count` series).
pub const FAMILIES: &[&str] = &[
    // HTTP
    "couponledger_http_requests_total",
    "couponledger_http_request_duration_seconds",
    "couponledger_wrong_tokens_total",
    // claims
    "couponledger_claims_total",
    // bulk issuance
    "couponledger_issuance_lines_read_total",
    "couponledger_issuance_chunks_published_total",
    "couponledger_issuance_jobs",
    "couponledger_issuance_coupons_issued",
    "couponledger_issuance_chunk_duration_seconds",
    // the relay and the projections
    "couponledger_events_head_position",
    "couponledger_consumer_lag_events",
    "couponledger_consumer_lag_seconds",
    "couponledger_relay_position",
    "couponledger_relay_published_events_total",
    "couponledger_projection_position",
    // RabbitMQ
    "couponledger_rabbitmq_management_up",
    "couponledger_queue_messages",
    "couponledger_queue_messages_ready",
    "couponledger_queue_messages_unacknowledged",
    "couponledger_queue_consumers",
    "couponledger_queue_max_length",
    "couponledger_dead_letters",
    // reminders
    "couponledger_reminders",
    "couponledger_reminders_overdue",
    "couponledger_notifications",
    // webhooks (docs/design.md §21)
    "couponledger_webhook_deliveries",
    "couponledger_webhook_oldest_pending_seconds",
    "couponledger_webhook_fanout_position",
    // the sealer
    "couponledger_sealer_sealed_events",
    "couponledger_sealer_position",
    "couponledger_sealer_lag_events",
    "couponledger_sealer_last_checkpoint_timestamp_seconds",
    // the event store's partitions
    "couponledger_event_partitions_ahead",
    "couponledger_event_partitions_default_rows",
    "couponledger_event_partitions_count",
    // hot and cold coupons
    "couponledger_cold_coupons_due",
    "couponledger_cold_coupons_archived",
    "couponledger_cold_coupons_purge_horizon_timestamp_seconds",
    // the clusters' members (docs/design.md §17)
    "couponledger_cluster_member",
    "couponledger_postgres_replica_lag_ms",
    "couponledger_reads_on_replica",
    "couponledger_rabbitmq_node_running",
    "couponledger_rabbitmq_queue_leader",
];

/// The series of `/metrics` text as (name, labels, value): `labels` is the
/// text between the braces (empty when there are none).
pub fn samples(text: &str) -> Vec<(&str, &str, f64)> {
    text.lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .filter_map(|line| {
            let (series, value) = line.rsplit_once(' ')?;
            let value: f64 = value.parse().ok()?;
            Some(match series.split_once('{') {
                Some((name, labels)) => (name, labels.trim_end_matches('}'), value),
                None => (series, "", value),
            })
        })
        .collect()
}

/// The value of the series `name` whose labels include every `label="value"` of `with`.
pub fn value(text: &str, name: &str, with: &[(&str, &str)]) -> Option<f64> {
    samples(text)
        .into_iter()
        .find(|(n, labels, _)| {
            *n == name
                && with
                    .iter()
                    .all(|(k, v)| labels.split(',').any(|l| l == format!("{k}=\"{v}\"")))
        })
        .map(|(.., v)| v)
}

/// Whether the family has a series (histogram families by their `_count`).
pub fn exposed(text: &str, family: &str) -> bool {
    let count = format!("{family}_count");
    samples(text)
        .iter()
        .any(|(n, ..)| *n == family || *n == count)
}
