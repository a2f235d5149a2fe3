//! A bulk-issuance chunk as a message on `coupon.issuance` (docs/design.md §9): the
//! body is [`IssuanceChunk`] (schema `schemas/IssuanceChunk.v1.json`), the
//! message id is derived from (job, chunk number), so publishing a chunk
//! twice can never issue twice: the worker's inbox takes it once.

use lapin::types::AMQPValue;

use super::job_kind::JobKind;
use super::message::{Outgoing, own_message, text};
use crate::domain::issuance::IssuanceChunk;

/// The schema version of chunks (their type: [`JobKind::IssuanceChunk`]).
pub const CHUNK_SCHEMA_VERSION: i16 = 1;

pub fn encode(chunk: &IssuanceChunk) -> Result<Outgoing, serde_json::Error> {
    let id = IssuanceChunk::message_id(chunk.job_id, chunk.chunk_no);
    let headers = vec![
        ("job_id", text(&chunk.job_id.to_string())),
        ("chunk_no", AMQPValue::LongInt(chunk.chunk_no)),
    ];
    let kind = (JobKind::IssuanceChunk.as_str(), CHUNK_SCHEMA_VERSION);
    own_message(chunk, kind, id, headers)
}

#[derive(Debug, thiserror::Error)]
#[error("not an issuance chunk: {0}")]
pub struct ChunkDecodeError(#[from] serde_json::Error);

pub fn decode(body: &[u8]) -> Result<IssuanceChunk, ChunkDecodeError> {
    Ok(serde_json::from_slice(body)?)
}
