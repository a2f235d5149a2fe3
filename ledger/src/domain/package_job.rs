//! A package claim run as a job (docs/design.md §13), the pure part: its statuses,
//! the message that asks the issuance worker to run it, and the refusal a
//! refused or failed job keeps (the answer the synchronous path gives for
//! it).

use crate::domain::ids::{ChannelId, PackageSn, UserId};
use crate::domain::names::name_list;
use serde::{Deserialize, Serialize};
use uuid::Uuid;

use crate::domain::events::CodeRef;

name_list! {
    /// Where a package job stands.
    #[derive(Serialize, Deserialize, utoipa::ToSchema)]
    #[serde(rename_all = "snake_case")]
    #[schema(as = PackageJobStatus)]
    pub enum PackageJobStatus {
        /// Recorded, and on the queue (or being published).
        Queued,
        /// The claim was written: the coupons were issued.
        Done,
        /// The claim was refused (a code's use taken meanwhile, a channel
        /// disabled, ...): nothing was written, its counts given back.
        Refused,
        /// Could not be kept: an item's template was stopped or voided after
        /// the 202, or the request could not publish it (it answered 503).
        /// Nothing was written, its counts given back.
        Failed,
    }
}

impl PackageJobStatus {
    pub const ALL: &'static [PackageJobStatus] = <Self as strum::VariantArray>::VARIANTS;

    pub const fn as_str(self) -> &'static str {
        self.into_str()
    }

    pub fn parse(s: &str) -> Option<Self> {
        s.parse().ok()
    }
}

/// The message on `coupon.issuance` that asks for one package claim. The
/// job's row is the truth; the message names it and what it claims, so a
/// dead letter can be read without the database.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PackageJob {
    pub job_id: Uuid,
    pub package_sn: PackageSn,
    #[serde(deserialize_with = "UserId::read_stored")]
    pub user_id: UserId,
    /// The redemption code that asked, for a package's code.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub code: Option<CodeRef>,
    /// The channel that asked (a claim's, or the one that redeemed the
    /// code), which the coupons record; absent for the service's code, and
    /// in messages from before packages had channels (the worker then takes
    /// the job row's).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub channel_id: Option<ChannelId>,
}

impl PackageJob {
    /// The message id: the job's id, so that the worker's inbox applies a
    /// job once however often it is delivered.
    pub fn message_id(&self) -> String {
        self.job_id.to_string()
    }
}

/// Why a job issued nothing: the HTTP status, error code and message the
/// synchronous path answers for the same refusal.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Refusal {
    pub status: u16,
    pub code: String,
    pub message: String,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn statuses_round_trip_through_their_names() {
        for &status in PackageJobStatus::ALL {
            assert_eq!(PackageJobStatus::parse(status.as_str()), Some(status));
        }
        assert_eq!(PackageJobStatus::parse("running"), None);
    }

    #[test]
    fn a_job_without_a_code_or_channel_has_no_such_field() {
        let job = PackageJob {
            job_id: Uuid::nil(),
            package_sn: "P".into(),
            user_id: "u1".into(),
            code: None,
            channel_id: None,
        };
        let text = serde_json::to_string(&job).unwrap();
        assert!(
            !text.contains("code") && !text.contains("channel"),
            "{text}"
        );
        assert_eq!(serde_json::from_str::<PackageJob>(&text).unwrap(), job);
        assert_eq!(job.message_id(), Uuid::nil().to_string());
    }
}
