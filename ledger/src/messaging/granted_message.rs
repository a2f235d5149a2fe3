//! A `CouponsGranted` message on `coupon.notifications` (docs/design.md §10):
//! the body is [`CouponsGranted`] (schema `schemas/CouponsGranted.v1.json`),
//! `type` `CouponsGranted`, and the message id is derived from (job, user)
//! ([`message_id`]), so a touch system recognises a re-send.

use lapin::BasicProperties;
use lapin::types::{AMQPValue, FieldTable};

use super::message::{Outgoing, schema_file};
use crate::domain::granted::{CouponsGranted, GRANTED_SCHEMA_VERSION, MESSAGE_TYPE, message_id};

pub fn encode(granted: &CouponsGranted) -> Result<Outgoing, serde_json::Error> {
    let body = serde_json::to_vec(granted)?;
    let mut headers = FieldTable::default();
    let schema = schema_file(MESSAGE_TYPE, GRANTED_SCHEMA_VERSION);
    headers.insert(
        "schema".into(),
        AMQPValue::LongString(schema.as_str().into()),
    );
    headers.insert(
        "user_id".into(),
        AMQPValue::LongString(granted.user_id.as_str().into()),
    );
    headers.insert(
        "job_id".into(),
        AMQPValue::LongString(granted.job_id.to_string().into()),
    );
    let id = message_id(granted.job_id, &granted.user_id).to_string();
    let properties = BasicProperties::default()
        .with_message_id(id.into())
        .with_type(MESSAGE_TYPE.into())
        .with_content_type("application/json".into())
        .with_delivery_mode(2)
        .with_app_id("couponledger".into())
        .with_headers(headers);
    Ok(Outgoing { body, properties })
}

#[derive(Debug, thiserror::Error)]
#[error("not a CouponsGranted message: {0}")]
pub struct GrantedDecodeError(#[from] serde_json::Error);

pub fn decode(body: &[u8]) -> Result<CouponsGranted, GrantedDecodeError> {
    Ok(serde_json::from_slice(body)?)
}
