//! A package claim run as a job, as a message on `coupon.issuance` (the
//! bulk-issuance worker's queue, beside the chunks): the body is
//! [`PackageJob`] (schema `schemas/PackageJob.v1.json`), the `type`
//! property tells it from a chunk, and the message id is the job's id, so
//! that the worker's inbox applies it once.

use lapin::BasicProperties;
use lapin::types::{AMQPValue, FieldTable};

use super::job_kind::JobKind;
use super::message::{Outgoing, schema_file};
use crate::domain::package_job::PackageJob;

/// The schema version of package jobs (their type: [`JobKind::PackageJob`]).
pub const PACKAGE_JOB_SCHEMA_VERSION: i16 = 1;

pub fn encode(job: &PackageJob) -> Result<Outgoing, serde_json::Error> {
    let body = serde_json::to_vec(job)?;
    let mut headers = FieldTable::default();
    let schema = schema_file(JobKind::PackageJob.as_str(), PACKAGE_JOB_SCHEMA_VERSION);
    headers.insert(
        "schema".into(),
        AMQPValue::LongString(schema.as_str().into()),
    );
    headers.insert(
        "job_id".into(),
        AMQPValue::LongString(job.job_id.to_string().into()),
    );
    let properties = BasicProperties::default()
        .with_message_id(job.message_id().into())
        .with_type(JobKind::PackageJob.as_str().into())
        .with_content_type("application/json".into())
        .with_delivery_mode(2)
        .with_app_id("couponledger".into())
        .with_headers(headers);
    Ok(Outgoing { body, properties })
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
