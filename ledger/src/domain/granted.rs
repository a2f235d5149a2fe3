//! `CouponsGranted` (docs/design.md §10, issue 49), pure: the message an
//! issuance job opened with `notify=true` sends each of its users once, on
//! `coupon.notifications`, and its id.
//!
//! The `notify_msg` row behind it is one per (job, user), made by the
//! notify projection from the job's `CouponIssued` events (`job_notify`);
//! the sender fills the body when it sends, from the coupons as they are
//! then, after the job has ended.

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use uuid::Uuid;

use crate::domain::money::Money;

/// The `type` property of the message on `coupon.notifications`.
pub const MESSAGE_TYPE: &str = "CouponsGranted";
/// The version of its body's schema (`schemas/CouponsGranted.v1.json`).
pub const GRANTED_SCHEMA_VERSION: i16 = 1;
/// The most coupon ids one message lists; `count` and `face_value_total`
/// still cover every coupon. A job gives a user as many coupons as the
/// file lists them, up to the template's per-user limit (an `i32`), so
/// without a bound one message could outgrow what a touch system reads
/// whole; 1,000 ids (~40 KB of JSON, the size of an issuance chunk) cover
/// any per-user limit a campaign sets in practice.
pub const MAX_LISTED_COUPONS: usize = 1_000;

/// Name-based ids under this namespace (RFC 9562 §5.8, SHA-256 as in its
/// appendix B.2), so that no other name this ledger derives ids from can
/// give the same id.
const ID_NAMESPACE: &[u8] = b"couponledger/CouponsGranted/v1";

/// The body of a `CouponsGranted` message: what one issuance job gave one
/// user, as it stands when the message is sent.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CouponsGranted {
    pub user_id: String,
    /// The issuance job that gave the coupons.
    pub job_id: Uuid,
    pub template_sn: String,
    /// The template's name when the message was sent.
    pub name: String,
    /// How many of the job's coupons the user holds unused when the
    /// message is sent (at least one).
    #[schemars(range(min = 1))]
    pub count: u64,
    /// The first of them in the file's line order, at most 1,000
    /// (`count` says how many there are in all).
    #[schemars(length(min = 1, max = MAX_LISTED_COUPONS))]
    pub coupon_ids: Vec<Uuid>,
    /// The face values of all `count` coupons added up.
    pub face_value_total: Money,
    pub currency: String,
}

/// The message id of the job's message to the user: the same (job, user)
/// always gives the same id, so a touch system recognises a re-send.
pub fn message_id(job_id: Uuid, user_id: &str) -> Uuid {
    let mut hash = Sha256::new();
    hash.update(ID_NAMESPACE);
    hash.update(job_id.as_bytes());
    hash.update(user_id.as_bytes());
    let digest = hash.finalize();
    let mut bytes = [0u8; 16];
    bytes.copy_from_slice(&digest[..16]);
    uuid::Builder::from_custom_bytes(bytes).into_uuid()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_message_id_depends_on_job_and_user_only() {
        let (a, b) = (Uuid::now_v7(), Uuid::now_v7());
        assert_eq!(message_id(a, "u1"), message_id(a, "u1"));
        assert_ne!(message_id(a, "u1"), message_id(a, "u2"));
        assert_ne!(message_id(a, "u1"), message_id(b, "u1"));
        assert_eq!(message_id(a, "u1").get_version_num(), 8);
    }

    #[test]
    fn a_known_pair_keeps_its_id() {
        // Touch systems may have stored ids: the derivation must not drift.
        let job = Uuid::parse_str("01890a5d-ac96-774b-bcce-b302099a8057").unwrap();
        // SHA-256 of namespace, job bytes and user, version 8 (RFC 9562 B.2).
        let id = message_id(job, "user-1");
        assert_eq!(id.to_string(), "56909624-a28b-809d-8001-57712e38ed6e");
    }
}
