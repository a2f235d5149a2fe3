//! A bulk-issuance chunk as a message on `coupon.issuance` (docs/design.md §9): the
//! body is [`IssuanceChunk`] (schema `schemas/IssuanceChunk.v1.json`), the
//! message id is derived from (job, chunk number), so publishing a chunk
//! twice can never issue twice: the worker's inbox takes it once.

use lapin::BasicProperties;
use lapin::types::{AMQPValue, FieldTable};

use super::job_kind::JobKind;
use super::message::{Outgoing, schema_file};
use crate::domain::issuance::IssuanceChunk;

/// The schema version of chunks (their type: [`JobKind::IssuanceChunk`]).
pub const CHUNK_SCHEMA_VERSION: i16 = 1;

pub fn encode(chunk: &IssuanceChunk) -> Result<Outgoing, serde_json::Error> {
    let body = serde_json::to_vec(chunk)?;
    let mut headers = FieldTable::default();
    let schema = schema_file(JobKind::IssuanceChunk.as_str(), CHUNK_SCHEMA_VERSION);
    headers.insert(
        "schema".into(),
        AMQPValue::LongString(schema.as_str().into()),
    );
    headers.insert(
        "job_id".into(),
        AMQPValue::LongString(chunk.job_id.to_string().into()),
    );
    headers.insert("chunk_no".into(), AMQPValue::LongInt(chunk.chunk_no));
    let message_id = IssuanceChunk::message_id(chunk.job_id, chunk.chunk_no);
    let properties = BasicProperties::default()
        .with_message_id(message_id.into())
        .with_type(JobKind::IssuanceChunk.as_str().into())
        .with_content_type("application/json".into())
        .with_delivery_mode(2)
        .with_app_id("couponledger".into())
        .with_headers(headers);
    Ok(Outgoing { body, properties })
}

#[derive(Debug, thiserror::Error)]
#[error("not an issuance chunk: {0}")]
pub struct ChunkDecodeError(#[from] serde_json::Error);

pub fn decode(body: &[u8]) -> Result<IssuanceChunk, ChunkDecodeError> {
    Ok(serde_json::from_slice(body)?)
}
