//! A publisher for a long-running process that publishes now and then (the
//! API's issuance chunks, the notification sender): it connects on first
//! use, and after a failure drops the connection so that the next publish
//! connects afresh (a broker restart costs one failed publish, never a
//! stuck process). A batch is committed by confirms ([`Commit::Confirms`],
//! `publish`) or as one AMQP transaction ([`Commit::Transaction`],
//! `tx_publish`: nothing reaches a queue before the commit).

use lapin::Connection;
use tokio::sync::Mutex;

use super::message::Outgoing;
use super::publish::{PublishError, Publisher};
use super::tx_publish::TxPublisher;
use crate::store::StoreCell;

/// How the broker takes a batch.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Commit {
    /// Publisher confirms: each message is in its queues as soon as it
    /// arrives; nacks and returns are sent again.
    Confirms,
    /// One AMQP transaction per batch: in the queues at its commit, or not
    /// at all.
    Transaction,
}

enum Channel {
    Confirms(Publisher),
    Transaction(TxPublisher),
}

pub struct LazyPublisher {
    amqp_url: String,
    name: &'static str,
    store: StoreCell,
    commit: Commit,
    open: Mutex<Option<(Connection, Channel)>>,
}

impl LazyPublisher {
    /// A publisher with confirms.
    pub fn new(amqp_url: &str, name: &'static str, store: StoreCell) -> Self {
        Self::committing(amqp_url, name, store, Commit::Confirms)
    }

    pub fn committing(
        amqp_url: &str,
        name: &'static str,
        store: StoreCell,
        commit: Commit,
    ) -> Self {
        Self {
            amqp_url: amqp_url.to_owned(),
            name,
            store,
            commit,
            open: Mutex::new(None),
        }
    }

    /// Publishes `messages` (see [`Publisher::publish_all`] and
    /// [`TxPublisher::publish_all`]). Publishes are serialised: one
    /// channel, one batch at a time.
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
            let channel = match self.commit {
                Commit::Confirms => Channel::Confirms(Publisher::open(&connection, store).await?),
                Commit::Transaction => {
                    Channel::Transaction(TxPublisher::open(&connection, store).await?)
                }
            };
            *open = Some((connection, channel));
        }
        let (_, channel) = open.as_ref().expect("opened above");
        let result = match channel {
            Channel::Confirms(p) => p.publish_all(exchange, routing_key, messages).await,
            Channel::Transaction(p) => p.publish_all(exchange, routing_key, messages).await,
        };
        if result.is_err() {
            *open = None;
        }
        result
    }
}
