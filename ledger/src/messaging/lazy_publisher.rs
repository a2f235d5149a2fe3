//! A confirmed publisher for a long-running process that publishes now and
//! then (the API's issuance chunks): it connects on first use, and after a
//! failure drops the connection so that the next publish connects afresh
//! (a broker restart costs one failed publish, never a stuck process).

use lapin::Connection;
use tokio::sync::Mutex;

use super::message::Outgoing;
use super::publish::{PublishError, Publisher};
use crate::store::StoreCell;

pub struct LazyPublisher {
    amqp_url: String,
    name: &'static str,
    store: StoreCell,
    open: Mutex<Option<(Connection, Publisher)>>,
}

impl LazyPublisher {
    pub fn new(amqp_url: &str, name: &'static str, store: StoreCell) -> Self {
        Self {
            amqp_url: amqp_url.to_owned(),
            name,
            store,
            open: Mutex::new(None),
        }
    }

    /// Publishes `messages` with confirms (see [`Publisher::publish_all`]).
    /// Publishes are serialised: one channel, one batch at a time.
    pub async fn publish_all(
        &self,
        exchange: &str,
        routing_key: &str,
        messages: &[Outgoing],
    ) -> Result<(), PublishError> {
        let mut open = self.open.lock().await;
        if open.is_none() {
            let store = self.store.require()?;
            let connection = super::connect(&self.amqp_url, self.name).await?;
            let publisher = Publisher::open(&connection, store).await?;
            *open = Some((connection, publisher));
        }
        let (_, publisher) = open.as_ref().expect("opened above");
        let result = publisher.publish_all(exchange, routing_key, messages).await;
        if result.is_err() {
            *open = None;
        }
        result
    }
}
