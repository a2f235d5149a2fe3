//! An expiry reminder as a message on `coupon.notifications` (docs/design.md §10):
//! the body is [`ExpiryReminder`] (schema `schemas/ExpiryReminder.v1.json`),
//! `type` `ExpiryReminder`, and the message id is derived from (user, day,
//! type), so a touch system recognises a re-send of the same reminder.

use super::message::{Outgoing, own_message, text};
use crate::domain::reminder::{
    EXPIRY_REMINDER, ExpiryReminder, MESSAGE_TYPE, REMINDER_SCHEMA_VERSION, message_id,
};

pub fn encode(reminder: &ExpiryReminder) -> Result<Outgoing, serde_json::Error> {
    let id = message_id(&reminder.user_id, reminder.notify_day, EXPIRY_REMINDER);
    let headers = vec![
        ("user_id", text(reminder.user_id.as_str())),
        ("notify_day", text(&reminder.notify_day.to_string())),
    ];
    own_message(
        reminder,
        (MESSAGE_TYPE, REMINDER_SCHEMA_VERSION),
        id,
        headers,
    )
}

#[derive(Debug, thiserror::Error)]
#[error("not an expiry reminder: {0}")]
pub struct ReminderDecodeError(#[from] serde_json::Error);

pub fn decode(body: &[u8]) -> Result<ExpiryReminder, ReminderDecodeError> {
    Ok(serde_json::from_slice(body)?)
}
