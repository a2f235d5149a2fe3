//! The store's identity: a UUID made at the first migration of a database
//! (V18) and never changed. Every message the ledger publishes carries it
//! in the `store_id` header, so that two ledgers sharing a RabbitMQ vhost
//! can neither apply each other's messages nor run at once
//! (`messaging::store_guard`, docs/event-pipeline.md "One ledger per vhost").

use std::fmt;

use lapin::types::{AMQPValue, FieldTable};
use tokio_postgres::GenericClient;
use uuid::Uuid;

/// The header every published message carries (docs/design.md §5).
pub const HEADER: &str = "store_id";

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct StoreId(pub Uuid);

impl fmt::Display for StoreId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}

/// A store id a process may learn after it started (`serve` answers while
/// Postgres is down, and reads the id once it can): what publishes waits
/// on it, and a publish before it is known fails as Postgres being down would.
#[derive(Clone, Debug, Default)]
pub struct StoreCell(std::sync::Arc<std::sync::OnceLock<StoreId>>);

impl StoreCell {
    pub fn known(id: StoreId) -> Self {
        let cell = Self::default();
        cell.set(id);
        cell
    }

    pub fn set(&self, id: StoreId) {
        // The id never changes, so a second set (a reconnect) is the same.
        let _ = self.0.set(id);
    }

    pub fn get(&self) -> Option<StoreId> {
        self.0.get().copied()
    }

    /// The id, or the error of a process that could not read it yet.
    pub fn require(&self) -> Result<StoreId, UnknownStore> {
        self.get().ok_or(UnknownStore)
    }
}

#[derive(Debug, thiserror::Error)]
#[error("the store's id is not known yet (Postgres unreachable since the start)")]
pub struct UnknownStore;

/// What a message's `store_id` header says about where it comes from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Origin {
    /// This store published it.
    Ours,
    /// No header: published by a release before store identities (V18), by
    /// this store, since two stores could not share a vhost knowingly then.
    Unstamped,
    /// Another store published it, or the header is not a store id.
    Foreign(String),
}

impl StoreId {
    /// The identity of the store `client` is connected to.
    pub async fn load(client: &impl GenericClient) -> Result<Self, tokio_postgres::Error> {
        let row = client
            .query_one("SELECT store_id FROM store_identity", &[])
            .await?;
        Ok(Self(row.get(0)))
    }

    /// `headers` with this store's id added, unless they already name one
    /// (a dead letter keeps the id of the store that published it).
    pub fn stamp(&self, headers: Option<&FieldTable>) -> FieldTable {
        let mut headers = headers.cloned().unwrap_or_default();
        if !headers.inner().contains_key(HEADER) {
            headers.insert(
                HEADER.into(),
                AMQPValue::LongString(self.0.to_string().into()),
            );
        }
        headers
    }

    /// `properties` with this store's id in their headers, cloned once: as
    /// they are when they already name a store.
    pub fn stamped(&self, properties: &lapin::BasicProperties) -> lapin::BasicProperties {
        let headers = properties.headers().as_ref();
        if headers.is_some_and(|h| h.inner().contains_key(HEADER)) {
            return properties.clone();
        }
        properties.clone().with_headers(self.stamp(headers))
    }

    /// Where a message with these headers comes from.
    pub fn origin(&self, headers: Option<&FieldTable>) -> Origin {
        let value = headers.and_then(|h| h.inner().get(HEADER));
        let text = match value {
            None => return Origin::Unstamped,
            Some(AMQPValue::LongString(s)) => s.to_string(),
            Some(AMQPValue::ShortString(s)) => s.to_string(),
            Some(other) => return Origin::Foreign(format!("{other:?}")),
        };
        match Uuid::parse_str(&text) {
            Ok(id) if id == self.0 => Origin::Ours,
            _ => Origin::Foreign(text),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_stamp_is_recognised_and_never_overwrites_another_stores() {
        let (ours, theirs) = (StoreId(Uuid::new_v4()), StoreId(Uuid::new_v4()));
        let stamped = ours.stamp(None);
        assert_eq!(ours.origin(Some(&stamped)), Origin::Ours);
        assert_eq!(
            theirs.origin(Some(&stamped)),
            Origin::Foreign(ours.to_string())
        );
        let restamped = theirs.stamp(Some(&stamped));
        assert_eq!(ours.origin(Some(&restamped)), Origin::Ours);
        assert_eq!(ours.origin(None), Origin::Unstamped);
    }
}
