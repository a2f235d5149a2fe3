//! An expiry reminder as a message on `coupon.notifications` (docs/design.md §10):
//! the body is [`ExpiryReminder`] (schema `schemas/ExpiryReminder.v1.json`),
//! `type` `ExpiryReminder`, and the message id is derived from (user, day,
//! type), so a touch system recognises a re-send of the same reminder.

use lapin::BasicProperties;
use lapin::types::{AMQPValue, FieldTable};

use super::message::{Outgoing, schema_file};
use crate::domain::reminder::{
    EXPIRY_REMINDER, ExpiryReminder, MESSAGE_TYPE, REMINDER_SCHEMA_VERSION, message_id,
};

pub fn encode(reminder: &ExpiryReminder) -> Result<Outgoing, serde_json::Error> {
    let body = serde_json::to_vec(reminder)?;
    let mut headers = FieldTable::default();
    let schema = schema_file(MESSAGE_TYPE, REMINDER_SCHEMA_VERSION);
    headers.insert(
        "schema".into(),
        AMQPValue::LongString(schema.as_str().into()),
    );
    headers.insert(
        "user_id".into(),
        AMQPValue::LongString(reminder.user_id.as_str().into()),
    );
    headers.insert(
        "notify_day".into(),
        AMQPValue::LongString(reminder.notify_day.to_string().into()),
    );
    let id = message_id(&reminder.user_id, reminder.notify_day, EXPIRY_REMINDER);
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
#[error("not an expiry reminder: {0}")]
pub struct ReminderDecodeError(#[from] serde_json::Error);

pub fn decode(body: &[u8]) -> Result<ExpiryReminder, ReminderDecodeError> {
    Ok(serde_json::from_slice(body)?)
}
