//! A package claim run as a job, as a message on `coupon.issuance` (the
//! bulk-issuance worker's queue, beside the chunks): the body is
//! [`PackageJob`] (schema `schemas/PackageJob.v1.json`), the `type`
//! property tells it from a chunk, and the message id is the job's id, so
//! that the worker's inbox applies it once.

use super::job_kind::JobKind;
use super::message::{Outgoing, own_message, text};
use crate::domain::package_job::PackageJob;

/// The schema version of package jobs (their type: [`JobKind::PackageJob`]).
pub const PACKAGE_JOB_SCHEMA_VERSION: i16 = 1;

pub fn encode(job: &PackageJob) -> Result<Outgoing, serde_json::Error> {
    let headers = vec![("job_id", text(&job.job_id.to_string()))];
    let kind = (JobKind::PackageJob.as_str(), PACKAGE_JOB_SCHEMA_VERSION);
    own_message(job, kind, job.message_id(), headers)
}

#[derive(Debug, thiserror::Error)]
#[error("not a package job: {0}")]
pub struct PackageJobDecodeError(#[from] serde_json::Error);

pub fn decode(body: &[u8]) -> Result<PackageJob, PackageJobDecodeError> {
    Ok(serde_json::from_slice(body)?)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::events::CodeRef;

    #[test]
    fn a_package_job_message_round_trips_and_says_its_type() {
        let job = PackageJob {
            job_id: uuid::Uuid::now_v7(),
            package_sn: "PKG".into(),
            user_id: "42".into(),
            code: Some(CodeRef {
                batch_id: uuid::Uuid::now_v7(),
                serial: 7,
            }),
            channel_id: Some(crate::domain::ids::ChannelId(uuid::Uuid::now_v7())),
        };
        let message = encode(&job).unwrap();
        assert_eq!(
            JobKind::of(&message.properties).unwrap(),
            JobKind::PackageJob
        );
        let id = message.properties.message_id().as_ref().unwrap();
        assert_eq!(id.as_str(), job.job_id.to_string());
        assert_eq!(decode(&message.body).unwrap(), job);
    }

    /// A message queued before jobs carried their channel still decodes
    /// (its job's row has the channel).
    #[test]
    fn a_message_without_a_channel_decodes() {
        let id = uuid::Uuid::now_v7();
        let old = format!(r#"{{"job_id":"{id}","package_sn":"PKG","user_id":"42"}}"#);
        let job = decode(old.as_bytes()).unwrap();
        assert_eq!((job.job_id, job.channel_id, job.code), (id, None, None));
    }
}
