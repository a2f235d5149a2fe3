//! RabbitMQ (docs/design.md §5): the contract topology, the message format of every
//! event, publishing with confirms, and the JSON Schemas of `schemas/`.
//!
//! - [`topology`]: exchanges and queues, declared idempotently by every binary.
//! - [`message`]: an event as a message (body, properties, headers) and back.
//! - [`publish`]: publish a batch with confirms and `mandatory`, retrying
//!   nacks and returns.
//! - [`routes`]: the relay's destinations, each with its own cursor.
//! - [`run_message`]: consecutive events in one message, on the ledger's own queues.
//! - [`chunk_message`]: a bulk-issuance chunk as a message and back;
//!   [`package_job_message`]: a large package's claim, on the same queue;
//!   [`issuance_message`]: either, decoded once from what arrives there;
//!   [`job_kind`]: the one list of what that queue carries.
//! - [`tx_publish`]: publish a batch as one AMQP transaction (the
//!   notification sender: nothing reaches a queue before the commit).
//! - [`lazy_publisher`]: a confirmed or transactional publisher that
//!   connects on first use and after failures.
//! - [`reminder_message`], [`granted_message`]: what the notification
//!   sender publishes on `coupon.notifications`.
//! - [`backfill`]: send a queue the stored events from a position on.
//! - [`schemas`]: one JSON Schema per event type and version, from the types.
//! - [`store_guard`]: one ledger per vhost: a marker queue held by every process.

pub mod backfill;
pub mod chunk_message;
pub mod granted_message;
pub mod issuance_message;
pub mod job_kind;
pub mod lazy_publisher;
pub mod message;
pub mod package_job_message;
pub mod publish;
pub mod reminder_message;
pub mod routes;
pub mod run_message;
pub mod schemas;
pub mod store_guard;
pub mod topology;
pub mod tx_publish;

/// Opens a connection named after the process using it. `amqp_url` may
/// name several nodes of one cluster, comma-separated (docs/design.md §17):
/// each connection starts at the next node in turn, so a process's
/// connections spread over the cluster, and moves on past a node that does
/// not answer; the error is the last node's when none does.
pub async fn connect(amqp_url: &str, name: &str) -> Result<lapin::Connection, lapin::Error> {
    use std::sync::atomic::{AtomicUsize, Ordering};
    static NEXT: AtomicUsize = AtomicUsize::new(0);
    let nodes = crate::config::amqp_url::nodes(amqp_url);
    let first = NEXT.fetch_add(1, Ordering::Relaxed);
    let mut last = None;
    for i in 0..nodes.len() {
        let node = nodes[(first + i) % nodes.len()];
        let options = lapin::ConnectionProperties::default().with_connection_name(name.into());
        match lapin::Connection::connect(node, options).await {
            Ok(connection) => return Ok(connection),
            Err(e) => {
                tracing::debug!(node = %crate::logging::redact::url(node), error = %e, "rabbitmq node not reached");
                last = Some(e);
            }
        }
    }
    Err(last.expect("an AMQP URL names at least one node"))
}
