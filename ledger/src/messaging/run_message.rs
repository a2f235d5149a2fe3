//! A run: consecutive events of one relay route in one message, on the
//! ledger's own projection queues only (docs/design.md §5, "Runs").
//! `coupon.events` keeps one message per event for outsiders.
//!
//! The body is a JSON array of the events' envelopes, exactly as each
//! would be published alone (`schemas/EventRun.v1.json`; each element is
//! also valid against its own type's schema). Headers: `run_first` and
//! `run_last` (the first and last event's position, in the run's order),
//! `run_events` (how many) and `schema`. The message id names the run;
//! consumers record each event in the inbox by its event id, so a run sent
//! again, or cut differently after a relay restart, applies nothing twice.

use lapin::BasicProperties;
use lapin::types::{AMQPValue, FieldTable};
use serde_json::Value;

use super::message::{self, DecodeError, Envelope, Outgoing, schema_file};
use crate::store::RecordedEvent;

/// The `type` property of a run.
pub const RUN_TYPE: &str = "EventRun";
pub const RUN_SCHEMA_VERSION: i16 = 1;
/// The most events one run carries (the owner's bound, §5): about 1 MB of
/// body, and one consumer transaction's worth of work.
pub const MAX_RUN: usize = 1_000;

/// The runs that carry `events`, in order, at most [`MAX_RUN`] each;
/// `singles` are the same events already encoded one per message, whose
/// bodies are joined rather than serialized again.
pub fn runs(events: &[RecordedEvent], singles: &[Outgoing]) -> Vec<Outgoing> {
    assert_eq!(events.len(), singles.len(), "one message per event");
    events
        .chunks(MAX_RUN)
        .zip(singles.chunks(MAX_RUN))
        .map(|(events, singles)| run(events, singles))
        .collect()
}

fn run(events: &[RecordedEvent], singles: &[Outgoing]) -> Outgoing {
    let size = singles.iter().map(|m| m.body.len() + 1).sum::<usize>() + 1;
    let mut body = Vec::with_capacity(size);
    body.push(b'[');
    for (i, single) in singles.iter().enumerate() {
        if i > 0 {
            body.push(b',');
        }
        body.extend_from_slice(&single.body);
    }
    body.push(b']');
    let (first, last) = (events[0].position, events[events.len() - 1].position);
    let count = i64::try_from(events.len()).expect("a run is short");
    let mut headers = FieldTable::default();
    let schema = schema_file(RUN_TYPE, RUN_SCHEMA_VERSION);
    for (key, value) in [
        ("run_first", AMQPValue::LongLongInt(first)),
        ("run_last", AMQPValue::LongLongInt(last)),
        ("run_events", AMQPValue::LongLongInt(count)),
        ("schema", AMQPValue::LongString(schema.as_str().into())),
    ] {
        headers.insert(key.into(), value);
    }
    let properties = BasicProperties::default()
        .with_message_id(format!("run-{first}-{last}-{count}").into())
        .with_type(RUN_TYPE.into())
        .with_content_type("application/json".into())
        .with_delivery_mode(2)
        .with_app_id("couponledger".into())
        .with_headers(headers);
    Outgoing { body, properties }
}

/// Whether a message with these properties is a run.
pub fn is_run(properties: &BasicProperties) -> bool {
    properties
        .kind()
        .as_ref()
        .is_some_and(|t| t.as_str() == RUN_TYPE)
}

#[derive(Debug, thiserror::Error)]
pub enum RunError {
    #[error(transparent)]
    Decode(#[from] DecodeError),
    #[error("not an event run: {0}")]
    Json(#[from] serde_json::Error),
    #[error("a run of {0} events: runs carry 1 to {MAX_RUN}")]
    Size(usize),
}

/// The events a message carries: a run's, or the one of an event message.
pub fn events(properties: &BasicProperties, body: &[u8]) -> Result<Vec<RecordedEvent>, RunError> {
    if !is_run(properties) {
        return Ok(vec![message::decode(body)?]);
    }
    let envelopes: Vec<Envelope<Value, Value>> = serde_json::from_slice(body)?;
    if envelopes.is_empty() || envelopes.len() > MAX_RUN {
        return Err(RunError::Size(envelopes.len()));
    }
    Ok(envelopes.into_iter().map(message::from_envelope).collect())
}
