//! An event as a message (docs/design.md §5): the body is the envelope below, valid
//! against `schemas/<type>.v<version>.json`; `message_id` is the event id,
//! `type` the event type; headers `stream_id`, `stream_version`, `position`,
//! `schema` and `schema_version` let a subscriber route without parsing the
//! body. The payload is the one stored, at the version it was stored with
//! (docs/design.md "Event versions"): never upcast on its way out.

use chrono::{DateTime, Utc};
use lapin::BasicProperties;
use lapin::types::{AMQPValue, FieldTable};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use uuid::Uuid;

use crate::store::{RecordedEvent, StoredType};

/// The body of every event message. `P` is the payload type and `M` the
/// metadata (raw JSON when relayed; typed when generating schemas).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Envelope<P, M> {
    pub event_id: Uuid,
    pub event_type: String,
    pub schema_version: i16,
    pub stream_id: String,
    pub stream_version: i32,
    /// The event's global position in the store (not its delivery order).
    pub position: i64,
    pub occurred_at: DateTime<Utc>,
    pub recorded_at: DateTime<Utc>,
    pub metadata: M,
    pub payload: P,
}

/// A message ready to publish.
#[derive(Clone, Debug)]
pub struct Outgoing {
    pub body: Vec<u8>,
    pub properties: BasicProperties,
}

/// The schema file that describes messages of this type and version.
pub fn schema_file(event_type: &str, schema_version: i16) -> String {
    format!("{event_type}.v{schema_version}.json")
}

/// A message of the ledger's own (a job, a notification): `body` as JSON,
/// `kind` its `type`, its schema file in the `schema` header beside
/// `headers`, persistent, with `message_id` (each kind derives its own, so
/// a message sent again is recognised).
pub fn own_message<T: Serialize>(
    body: &T,
    (kind, schema_version): (&str, i16),
    message_id: String,
    headers: Vec<(&str, AMQPValue)>,
) -> Result<Outgoing, serde_json::Error> {
    let body = serde_json::to_vec(body)?;
    let mut table = FieldTable::default();
    let schema = schema_file(kind, schema_version);
    table.insert(
        "schema".into(),
        AMQPValue::LongString(schema.as_str().into()),
    );
    for (key, value) in headers {
        table.insert(key.into(), value);
    }
    let properties = BasicProperties::default()
        .with_message_id(message_id.into())
        .with_type(kind.into())
        .with_content_type("application/json".into())
        .with_delivery_mode(2)
        .with_app_id("couponledger".into())
        .with_headers(table);
    Ok(Outgoing { body, properties })
}

/// A text header.
pub fn text(value: &str) -> AMQPValue {
    AMQPValue::LongString(value.into())
}

/// The message of a stored event: its stored payload and version.
pub fn encode(event: &RecordedEvent) -> Outgoing {
    let envelope = Envelope {
        event_id: event.event_id,
        event_type: event.event_type.as_str().to_owned(),
        schema_version: event.schema_version,
        stream_id: event.stream_id.clone(),
        stream_version: event.stream_version,
        position: event.position,
        occurred_at: event.occurred_at,
        recorded_at: event.recorded_at,
        metadata: &event.metadata,
        payload: &event.payload,
    };
    let body = serde_json::to_vec(&envelope).expect("JSON values serialize");
    let mut headers = FieldTable::default();
    let schema = schema_file(event.event_type.as_str(), event.schema_version);
    for (key, value) in [
        (
            "stream_id",
            AMQPValue::LongString(event.stream_id.as_str().into()),
        ),
        ("stream_version", AMQPValue::LongInt(event.stream_version)),
        ("position", AMQPValue::LongLongInt(event.position)),
        ("schema", AMQPValue::LongString(schema.as_str().into())),
        ("schema_version", AMQPValue::ShortInt(event.schema_version)),
    ] {
        headers.insert(key.into(), value);
    }
    let properties = BasicProperties::default()
        .with_message_id(event.event_id.to_string().into())
        .with_type(event.event_type.as_str().into())
        .with_content_type("application/json".into())
        .with_delivery_mode(2)
        .with_timestamp(u64::try_from(event.recorded_at.timestamp()).unwrap_or(0))
        .with_app_id("couponledger".into())
        .with_headers(headers);
    Outgoing { body, properties }
}

#[derive(Debug, thiserror::Error)]
#[error("not an event message: {0}")]
pub struct DecodeError(#[from] serde_json::Error);

/// The event a message carries (its `tx_id` is not published: 0).
pub fn decode(body: &[u8]) -> Result<RecordedEvent, DecodeError> {
    let e: Envelope<Value, Value> = serde_json::from_slice(body)?;
    Ok(from_envelope(e))
}

/// The event an envelope describes (its `tx_id` is not published: 0).
pub fn from_envelope(e: Envelope<Value, Value>) -> RecordedEvent {
    RecordedEvent {
        position: e.position,
        event_id: e.event_id,
        stream_id: e.stream_id,
        stream_version: e.stream_version,
        event_type: StoredType::parse(&e.event_type),
        schema_version: e.schema_version,
        payload: e.payload,
        metadata: e.metadata,
        occurred_at: e.occurred_at,
        recorded_at: e.recorded_at,
        tx_id: 0,
    }
}
