//! A publisher for a long-running process that publishes now and then (the
//! API's issuance chunks, the notification sender): it connects on first
//! use, and after a failure drops the connection so that the next publish
//! connects afresh (a broker restart costs one failed publish, never a
//! stuck process). A batch is committed by confirms ([`Commit::Confirms`],
//! `publish`) or as one AMQP transaction ([`Commit::Transaction`],
//! `tx_publish`: nothing reaches a queue before the commit).

use std::future::Future;

use lapin::Connection;
use tokio::sync::Mutex;

use super::message::Outgoing;
use super::publish::{PublishError, Publisher};
use super::tx_publish::{Mark, TxPublisher};
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
        self.publish_marked(exchange, routing_key, messages, None)
            .await
    }

    /// Publishes `messages` with `mark` in the same transaction
    /// ([`TxPublisher::publish_marked`]); with confirms, the mark is not
    /// written (a confirmed batch has no commit to tie it to).
    pub async fn publish_marked(
        &self,
        exchange: &str,
        routing_key: &str,
        messages: &[Outgoing],
        mark: Option<&Mark>,
    ) -> Result<(), PublishError> {
        let mut open = self.open.lock().await;
        let channel = self.channel(&mut open).await?;
        let result = match (channel, mark) {
            (Channel::Confirms(p), _) => p.publish_all(exchange, routing_key, messages).await,
            (Channel::Transaction(p), None) => p.publish_all(exchange, routing_key, messages).await,
            (Channel::Transaction(p), Some(mark)) => {
                p.publish_marked(exchange, routing_key, messages, mark)
                    .await
            }
        };
        if result.is_err() {
            *open = None;
        }
        result
    }

    /// Settles the published batches' marks waiting: `settle` marks their
    /// rows sent (and commits) before the marks are removed. None with
    /// confirms.
    pub async fn settle_marks<F, Fut, E>(&self, settle: F) -> Result<usize, E>
    where
        F: FnOnce(Vec<Mark>) -> Fut,
        Fut: Future<Output = Result<(), E>>,
        E: From<PublishError>,
    {
        if self.commit == Commit::Confirms {
            return Ok(0);
        }
        let mut open = self.open.lock().await;
        let Channel::Transaction(p) = self.channel(&mut open).await? else {
            return Ok(0);
        };
        let taken = match p.take_marks().await {
            Ok(taken) => taken,
            Err(e) => {
                *open = None;
                return Err(e.into());
            }
        };
        let n = taken.marks.len();
        if n > 0 {
            settle(taken.marks.clone()).await?;
        }
        if let Err(e) = p.settle_marks(taken).await {
            *open = None;
            return Err(e.into());
        }
        Ok(n)
    }

    /// The open channel, connecting first when there is none.
    async fn channel<'a>(
        &self,
        open: &'a mut Option<(Connection, Channel)>,
    ) -> Result<&'a Channel, PublishError> {
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
        Ok(&open.as_ref().expect("opened above").1)
    }
}
