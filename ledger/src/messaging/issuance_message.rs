//! What arrives on `coupon.issuance`, decoded once: a bulk-issuance chunk
//! ([`chunk_message`]) or a package claim run as a job
//! ([`package_job_message`]), told apart by the message's `type` property
//! ([`JobKind`]; a message without one is a chunk, as before package jobs).

use lapin::BasicProperties;

use super::chunk_message::{self, ChunkDecodeError};
use super::job_kind::{JobKind, UnknownJobKind};
use super::package_job_message::{self, PackageJobDecodeError};
use crate::domain::issuance::IssuanceChunk;
use crate::domain::package_job::PackageJob;

/// One message of the issuance queue.
pub enum IssuanceMessage {
    Chunk(IssuanceChunk),
    PackageJob(PackageJob),
}

#[derive(Debug, thiserror::Error)]
pub enum IssuanceDecodeError {
    #[error(transparent)]
    Chunk(#[from] ChunkDecodeError),
    #[error(transparent)]
    PackageJob(#[from] PackageJobDecodeError),
    #[error(transparent)]
    Unknown(#[from] UnknownJobKind),
}

/// The message `properties` and `body` carry.
pub fn decode(
    properties: &BasicProperties,
    body: &[u8],
) -> Result<IssuanceMessage, IssuanceDecodeError> {
    Ok(match JobKind::of(properties)? {
        JobKind::IssuanceChunk => IssuanceMessage::Chunk(chunk_message::decode(body)?),
        JobKind::PackageJob => IssuanceMessage::PackageJob(package_job_message::decode(body)?),
    })
}
