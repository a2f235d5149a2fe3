//! A `CouponsGranted` message on `coupon.notifications` (docs/design.md §10):
//! the body is [`CouponsGranted`] (schema `schemas/CouponsGranted.v1.json`),
//! `type` `CouponsGranted`, and the message id is derived from (job, user)
//! ([`message_id`]), so a touch system recognises a re-send.

use super::message::{Outgoing, own_message, text};
use crate::domain::granted::{CouponsGranted, GRANTED_SCHEMA_VERSION, MESSAGE_TYPE, message_id};

pub fn encode(granted: &CouponsGranted) -> Result<Outgoing, serde_json::Error> {
    let id = message_id(granted.job_id, &granted.user_id).to_string();
    let headers = vec![
        ("user_id", text(granted.user_id.as_str())),
        ("job_id", text(&granted.job_id.to_string())),
    ];
    own_message(granted, (MESSAGE_TYPE, GRANTED_SCHEMA_VERSION), id, headers)
}

#[derive(Debug, thiserror::Error)]
#[error("not a CouponsGranted message: {0}")]
pub struct GrantedDecodeError(#[from] serde_json::Error);

pub fn decode(body: &[u8]) -> Result<CouponsGranted, GrantedDecodeError> {
    Ok(serde_json::from_slice(body)?)
}
