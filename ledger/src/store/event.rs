use chrono::{DateTime, Utc};
use serde_json::Value;
use tokio_postgres::Row;
use uuid::Uuid;

use crate::domain::events::Metadata;
use crate::domain::ledger_event::{DecodeError, EventType, LedgerEvent};

/// An event about to be appended. Its stream and version are given by the append.
#[derive(Clone, Debug, PartialEq)]
pub struct NewEvent {
    pub event_id: Uuid,
    pub event_type: EventType,
    pub schema_version: i16,
    pub payload: Value,
    /// actor, channel, correlation, causation, idempotency key.
    pub metadata: Value,
    pub occurred_at: DateTime<Utc>,
}

/// An event's payload or metadata could not be turned into JSON: an error,
/// never a stored `null`.
#[derive(Debug, thiserror::Error)]
#[error("{event_type} does not serialize: {source}")]
pub struct EncodeError {
    pub event_type: &'static str,
    pub source: serde_json::Error,
}

impl NewEvent {
    /// `event`, ready to append: a fresh id, its type's name and version.
    pub fn of(
        event: &LedgerEvent,
        metadata: &Metadata,
        occurred_at: DateTime<Utc>,
    ) -> Result<Self, EncodeError> {
        let event_type = event.event_type();
        let error = |source| EncodeError {
            event_type: event_type.as_str(),
            source,
        };
        Ok(Self {
            event_id: Uuid::now_v7(),
            event_type,
            schema_version: event_type.schema_version(),
            payload: event.payload_json().map_err(error)?,
            metadata: serde_json::to_value(metadata).map_err(error)?,
            occurred_at,
        })
    }
}

/// A stored event this build cannot decode, and where it is.
#[derive(Debug, PartialEq, Eq, thiserror::Error)]
#[error("event at position {position} ({stream_id} v{stream_version}): {source}")]
pub struct StoredEventError {
    pub position: i64,
    pub stream_id: String,
    pub stream_version: i32,
    pub source: DecodeError,
}

/// An event with its place, for batch appends of many streams at once.
#[derive(Clone, Debug, PartialEq)]
pub struct StreamEvent {
    pub stream_id: String,
    pub stream_version: i32,
    pub event: NewEvent,
}

/// A stored event's type: one of [`EventType`], or a name this build does
/// not know (written by a newer build, or by hand). The unknown name is
/// kept, so that such an event is still read, relayed and shown, and fails
/// only where it is decoded, naming itself and its position.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum StoredType {
    Known(EventType),
    Unknown(String),
}

impl StoredType {
    /// The type stored under `name`.
    pub fn parse(name: &str) -> Self {
        EventType::parse(name).map_or_else(|| Self::Unknown(name.to_owned()), Self::Known)
    }

    /// The stored name.
    pub fn as_str(&self) -> &str {
        match self {
            Self::Known(t) => t.as_str(),
            Self::Unknown(name) => name,
        }
    }

    /// The type, if this build knows it.
    pub fn known(&self) -> Option<EventType> {
        match self {
            Self::Known(t) => Some(*t),
            Self::Unknown(_) => None,
        }
    }
}

impl From<EventType> for StoredType {
    fn from(t: EventType) -> Self {
        Self::Known(t)
    }
}

impl std::fmt::Display for StoredType {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.pad(self.as_str())
    }
}

impl PartialEq<EventType> for StoredType {
    fn eq(&self, other: &EventType) -> bool {
        self.known() == Some(*other)
    }
}

impl PartialEq<str> for StoredType {
    fn eq(&self, name: &str) -> bool {
        self.as_str() == name
    }
}

impl PartialEq<&str> for StoredType {
    fn eq(&self, name: &&str) -> bool {
        self.as_str() == *name
    }
}

/// An event as stored.
#[derive(Clone, Debug, PartialEq)]
pub struct RecordedEvent {
    pub position: i64,
    pub event_id: Uuid,
    pub stream_id: String,
    pub stream_version: i32,
    pub event_type: StoredType,
    pub schema_version: i16,
    pub payload: Value,
    pub metadata: Value,
    pub occurred_at: DateTime<Utc>,
    pub recorded_at: DateTime<Utc>,
    pub tx_id: i64,
}

/// The columns [`RecordedEvent::from_row`] expects, in order.
pub(crate) const COLUMNS: &str = "position, event_id, stream_id, stream_version, event_type, \
     schema_version, payload, metadata, occurred_at, recorded_at, tx_id";

impl RecordedEvent {
    pub(crate) fn from_row(row: &Row) -> Result<Self, tokio_postgres::Error> {
        Self::from_row_at(row, 0)
    }

    /// [`RecordedEvent::from_row`] for [`COLUMNS`] starting at column `at`.
    pub(crate) fn from_row_at(row: &Row, at: usize) -> Result<Self, tokio_postgres::Error> {
        Ok(Self {
            position: row.try_get(at)?,
            event_id: row.try_get(at + 1)?,
            stream_id: row.try_get(at + 2)?,
            stream_version: row.try_get(at + 3)?,
            event_type: StoredType::parse(row.try_get(at + 4)?),
            schema_version: row.try_get(at + 5)?,
            payload: row.try_get(at + 6)?,
            metadata: row.try_get(at + 7)?,
            occurred_at: row.try_get(at + 8)?,
            recorded_at: row.try_get(at + 9)?,
            tx_id: row.try_get(at + 10)?,
        })
    }

    /// The event, decoded once; an unknown type or version names the position.
    pub fn decode(&self) -> Result<LedgerEvent, StoredEventError> {
        LedgerEvent::decode(self.event_type.as_str(), self.schema_version, &self.payload).map_err(
            |source| StoredEventError {
                position: self.position,
                stream_id: self.stream_id.clone(),
                stream_version: self.stream_version,
                source,
            },
        )
    }

    pub fn cursor(&self) -> GlobalCursor {
        GlobalCursor {
            tx_id: self.tx_id,
            position: self.position,
        }
    }
}

/// Where a reader of all events stands: the last (transaction, position) it read.
///
/// Positions commit out of order, so a reader cannot resume from a position
/// alone; ordering by the writing transaction first makes "everything after the
/// cursor" stable once every older transaction has finished.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord)]
pub struct GlobalCursor {
    pub tx_id: i64,
    pub position: i64,
}

impl GlobalCursor {
    pub const START: GlobalCursor = GlobalCursor {
        tx_id: 0,
        position: 0,
    };
}
