//! The payloads of the ledger's events. Which type name and schema version
//! each payload is stored under is listed once, in
//! [`crate::domain::ledger_event`]. A payload's shape only ever grows
//! compatibly within a schema version.

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use uuid::Uuid;

use crate::domain::channel::ChannelStatus;
use crate::domain::coupon_state::UnlockReason;
use crate::domain::eligibility::Eligibility;
use crate::domain::ids::{ChannelId, PackageSn, ShopId, TemplateSn, UserId};
use crate::domain::money::Money;
use crate::domain::package::PackageStatus;
use crate::domain::patch_field::present;
use crate::domain::rate_limit::RateLimit;
use crate::domain::reminder::RemindDays;
use crate::domain::template_status::TemplateStatus;
use crate::domain::terms::{RawTerms, RefundPolicy};
use crate::domain::validity::RawValidity;

/// Who did it and in answer to what (docs/design.md §4 `metadata`).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Metadata {
    /// `admin`, `service`, `channel:<id>`, `system:<worker>`.
    pub actor: String,
    /// The operator (a name of `LEDGER_ADMIN_TOKENS`, or `admin`) whose
    /// request it answers: on every event of an admin route, and on the
    /// coupons of an issuance job an operator uploaded (docs/design.md §7
    /// "Operators"). Absent elsewhere and in events written before.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub operator: Option<String>,
    /// The operator's role, beside `operator` on the events of a request
    /// (docs/design.md §19). Absent in events written before roles.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub role: Option<crate::domain::role::Role>,
    /// The app key whose request it answers (`LEDGER_SERVICE_TOKEN` is the
    /// key `service`). Absent elsewhere and in events written before keys.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub api_key: Option<KeyRef>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub channel_id: Option<ChannelId>,
    pub correlation_id: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub causation_id: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub idempotency_key: Option<String>,
    /// The redemption code that asked for it: its batch and serial.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub code: Option<CodeRef>,
}

/// An app key as events name it: its id (`service` for the service token)
/// and its name.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct KeyRef {
    pub id: String,
    pub name: String,
}

/// A redemption code by what it encodes (docs/design.md §13).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct CodeRef {
    pub batch_id: Uuid,
    pub serial: i64,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct IssueWindow {
    pub begin: DateTime<Utc>,
    pub end: DateTime<Utc>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct TemplateCreated {
    pub sn: TemplateSn,
    pub name: String,
    /// What the campaign is, in the operator's words, as apps show it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    pub terms: RawTerms,
    pub issue_window: IssueWindow,
    pub total: i64,
    pub per_user_limit: i32,
    pub refund_policy: RefundPolicy,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub remind_days_before: Option<RemindDays>,
    /// Claim rate limits (docs/design.md §12); absent: none (and in every event
    /// written before templates had them).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rate_limit: Option<RateLimit>,
    /// Who may claim (docs/design.md §15); absent: anyone a listed channel
    /// names (and in every event written before templates had it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub eligibility: Option<Eligibility>,
    /// The shop the template belongs to: its coupons apply to that shop's
    /// order lines only (docs/design.md §15); absent: the platform's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shop_id: Option<ShopId>,
    /// What its coupons may cost (docs/design.md §15, "Budgets"); absent:
    /// no cap (and in every event written before templates had budgets).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub budget: Option<crate::domain::budget::Budget>,
}

/// A template's status moved (`TemplateActivated`, `TemplateStopped`, `TemplateVoided`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct TemplateStatusChanged {
    pub sn: TemplateSn,
    pub from: TemplateStatus,
    pub to: TemplateStatus,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct TemplateQuotaRaised {
    pub sn: TemplateSn,
    pub from: i64,
    pub total: i64,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct TemplateChannelAllowed {
    pub sn: TemplateSn,
    pub channel_id: ChannelId,
}

/// A channel may no longer issue the template (the undoing of
/// `TemplateChannelAllowed`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct TemplateChannelRemoved {
    pub sn: TemplateSn,
    pub channel_id: ChannelId,
}

/// Users added to (`TemplateAllowListAdded`) or removed from
/// (`TemplateAllowListRemoved`) a template's allow-list by one part of an
/// uploaded file (docs/design.md §15). Only the ids whose membership it
/// changed: an added id was not on the list before, a removed one was, so
/// the events are the list's exact history and replay can add them up.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct AllowListChanged {
    pub template_sn: TemplateSn,
    /// The uploaded file this part came from.
    pub file_id: Uuid,
    #[serde(deserialize_with = "UserId::read_stored_list")]
    pub user_ids: Vec<UserId>,
}

/// A batch of redemption codes: serials `[first_serial, first_serial +
/// count)` under key `key_id`, each code good for `uses_per_code` uses (once
/// per user), a user redeeming at most `per_user` codes of the batch.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct CodeBatchCreated {
    pub batch_id: Uuid,
    /// The template whose coupon a code gives, or (`package_sn`) the package.
    pub template_sn: Option<TemplateSn>,
    pub package_sn: Option<PackageSn>,
    pub key_id: String,
    pub first_serial: i64,
    pub count: i64,
    pub uses_per_code: i32,
    pub per_user: i32,
    pub expires_at: Option<DateTime<Utc>>,
    /// A passphrase batch's one code as the operator typed it (matched as
    /// `codes::passphrase::key_of` reads it); absent for generated codes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub passphrase: Option<String>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct CodeBatchStopped {
    pub batch_id: Uuid,
}

/// One use of a code (its stream's version is the code's use count).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct CodeRedeemed {
    pub batch_id: Uuid,
    pub serial: i64,
    #[serde(deserialize_with = "UserId::read_stored")]
    pub user_id: UserId,
    /// The template's coupon, or the package's coupons.
    pub coupon_ids: Vec<Uuid>,
}

/// One item of a package: `count` coupons of a template.
#[derive(
    Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema, utoipa::ToSchema,
)]
#[serde(deny_unknown_fields)]
pub struct PackageItem {
    #[schema(value_type = crate::domain::ids::TemplateSn)]
    pub template_sn: TemplateSn,
    #[schema(minimum = 1)]
    pub count: i32,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct PackageCreated {
    pub sn: PackageSn,
    pub name: String,
    pub items: Vec<PackageItem>,
    pub total: i64,
    pub per_user_limit: i32,
    pub issue_window: IssueWindow,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct PackageStatusChanged {
    pub sn: PackageSn,
    pub from: PackageStatus,
    pub to: PackageStatus,
}

/// A user got a package's coupons (online by its sn, or by a code: the
/// metadata's `code`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct PackageClaimed {
    pub sn: PackageSn,
    #[serde(deserialize_with = "UserId::read_stored")]
    pub user_id: UserId,
    pub coupon_ids: Vec<Uuid>,
}

/// A large package's claim was accepted (202) and its counts taken: the
/// package's counter and the user's count of it, in the request, before
/// the job that writes its coupons runs (docs/design.md §13, "Large
/// packages keep their promise"). The job's `PackageClaimed` then counts
/// nothing more; a `PackageClaimReleased` gives the counts back.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct PackageClaimReserved {
    pub sn: PackageSn,
    #[serde(deserialize_with = "UserId::read_stored")]
    pub user_id: UserId,
    /// The package job that writes the claim's coupons.
    pub job_id: Uuid,
}

/// A reserved claim's job could not keep it (a template in the package was
/// stopped or voided since its 202, or the job could not be queued): the
/// package's counter and the user's count are given back.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct PackageClaimReleased {
    pub sn: PackageSn,
    #[serde(deserialize_with = "UserId::read_stored")]
    pub user_id: UserId,
    pub job_id: Uuid,
    /// Why: the error code the job's read shows (`template_not_active`, ...).
    pub reason: String,
}

/// A channel may give the package out (claims signed by it; docs/design.md §13),
/// as `TemplateChannelAllowed` for a template.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct PackageChannelAllowed {
    pub sn: PackageSn,
    pub channel_id: ChannelId,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct ChannelCreated {
    pub channel_id: ChannelId,
    pub name: String,
}

/// A channel was disabled (`ChannelDisabled`) or enabled again
/// (`ChannelEnabled`): its signed requests are refused or served
/// (docs/design.md §15).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct ChannelStatusChanged {
    pub channel_id: ChannelId,
    pub from: ChannelStatus,
    pub to: ChannelStatus,
}

/// A channel's signing secret was replaced. Only the times: a secret never
/// enters the event log. The replaced secret verifies until
/// `previous_valid_until` (`rotated_at` plus the overlap asked for).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct ChannelSecretRotated {
    pub channel_id: ChannelId,
    pub rotated_at: DateTime<Utc>,
    pub previous_valid_until: DateTime<Utc>,
}

/// An app key was made (docs/design.md §19). The log keeps the SHA-256 of
/// the key, never the key: 256 random bits cannot be found from it, and the
/// replay rebuilds what the API compares requests with.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct ApiKeyCreated {
    pub key_id: Uuid,
    pub name: String,
    pub scopes: Vec<crate::domain::key_scope::KeyScope>,
    /// Hex SHA-256 of the key.
    pub digest: String,
    /// The key's own request rate; absent: none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rate_limit: Option<crate::domain::rate_limit::Bucket>,
}

/// An app key was given a new secret; the old one still opens until
/// `previous_valid_until` (the overlap asked for; the rotation's instant
/// for none).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct ApiKeyRotated {
    pub key_id: Uuid,
    pub digest: String,
    pub previous_valid_until: DateTime<Utc>,
}

/// An app key was revoked: every request with it is 401 `key_revoked`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct ApiKeyRevoked {
    pub key_id: Uuid,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct CouponIssued {
    pub coupon_id: Uuid,
    pub template_sn: TemplateSn,
    #[serde(deserialize_with = "UserId::read_stored")]
    pub user_id: UserId,
    pub issued_at: DateTime<Utc>,
    pub effective_at: DateTime<Utc>,
    pub expires_at: DateTime<Utc>,
    pub face_value: Money,
    pub currency: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub channel_id: Option<ChannelId>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub refund_from: Option<Uuid>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub job_id: Option<Uuid>,
    /// The line of the job's file this coupon answers (bulk issuance).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub job_line: Option<u64>,
    /// The template's reminder offsets when the coupon was issued (a PATCH
    /// applies to coupons issued afterwards); absent: no reminder.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub remind_days_before: Option<RemindDays>,
    /// The issuance job asked `notify=true`: the notify projection makes its
    /// user's `CouponsGranted` row (docs/design.md §10). Absent (false) in
    /// events stored before it existed, which read as they always did.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub job_notify: bool,
}

/// The payload of every coupon event after `CouponIssued`; which fields are
/// set depends on the event type (see `LedgerEvent::coupon_change`).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct CouponChanged {
    pub coupon_id: Uuid,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub order_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub refund_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<UnlockReason>,
    /// For `CouponRefunded` under the `reissue` policy: the new coupon.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reissued_as: Option<Uuid>,
}

/// `CouponUsed` v2: a locked coupon's order was confirmed. Beside the
/// order, what the coupon took off it (its lock's allocations to it,
/// summed), so a reader of the coupon's own stream needs no join to the
/// order's `OrderLocked`. A v1 event (the `CouponChanged` of v1, without
/// `discount`) is sent as stored, under `CouponUsed.v1.json`; the
/// ledger's own readers upcast it with no discount (it was not recorded).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct CouponUsed {
    pub coupon_id: Uuid,
    pub order_id: String,
    /// The coupon's share of the order's discount (in every v2 event;
    /// inside the ledger, `None` for an event stored as v1).
    #[schemars(required)]
    pub discount: Option<Money>,
}

/// An order's lock (TCC Try): its coupons, what they take off, and where.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct OrderLocked {
    pub order_id: String,
    #[serde(deserialize_with = "UserId::read_stored")]
    pub user_id: UserId,
    pub order: crate::domain::order::RawOrder,
    pub coupon_ids: Vec<Uuid>,
    pub discount: Money,
    pub payable: Money,
    pub allocations: Vec<crate::domain::allocation::Allocation<Uuid>>,
    pub lock_expires_at: DateTime<Utc>,
    /// What the lock charged to its coupons' templates' budgets; absent:
    /// none of them has one (and in every event written before budgets).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub budget: Option<crate::domain::budget::BudgetCharges>,
}

/// Confirm (`OrderConfirmed`), cancel (`OrderCancelled`, also before any
/// lock: an empty rollback) and lock timeout (`OrderReleased`) of an order.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct OrderSettled {
    pub order_id: String,
    pub coupon_ids: Vec<Uuid>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct OrderRefunded {
    pub order_id: String,
    pub refund_id: String,
    pub refund: crate::domain::refund::Refund<Uuid>,
}

/// The attributes of a template that are no part of its terms changed:
/// name, reminder, rate limit, description, eligibility.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct TemplateUpdated {
    pub sn: TemplateSn,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// Some(None) clears the reminder.
    #[serde(
        default,
        deserialize_with = "present",
        skip_serializing_if = "Option::is_none"
    )]
    pub remind_days_before: Option<Option<RemindDays>>,
    /// Some(None) removes the claim rate limits; None leaves them.
    #[serde(
        default,
        deserialize_with = "present",
        skip_serializing_if = "Option::is_none"
    )]
    pub rate_limit: Option<Option<RateLimit>>,
    /// Some(None) removes the description; None leaves it (and in every
    /// event written before templates had one).
    #[serde(
        default,
        deserialize_with = "present",
        skip_serializing_if = "Option::is_none"
    )]
    pub description: Option<Option<String>>,
    /// The eligibility that replaces the template's whole (docs/design.md
    /// §15); Some(None) lets anyone a listed channel names claim again.
    #[serde(
        default,
        deserialize_with = "present",
        skip_serializing_if = "Option::is_none"
    )]
    pub eligibility: Option<Option<Eligibility>>,
}

/// A template's issue window moved (docs/design.md §15, "Adjustable
/// campaigns"): claims are open in `issue_window` from then on; `from` is
/// the window it replaced.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct TemplateIssueWindowChanged {
    pub sn: TemplateSn,
    pub from: IssueWindow,
    pub issue_window: IssueWindow,
}

/// A template's per-user limit was raised (it never falls): every user may
/// hold `per_user_limit` of its coupons from then on.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct TemplatePerUserLimitRaised {
    pub sn: TemplateSn,
    pub from: i32,
    pub per_user_limit: i32,
}

/// A template's budget raised (docs/design.md §15, "Budgets"): `from` as
/// it was, `budget` as it is now.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct TemplateBudgetRaised {
    pub sn: TemplateSn,
    pub from: crate::domain::budget::Budget,
    pub budget: crate::domain::budget::Budget,
}

/// The validity of the coupons a template issues from then on changed;
/// coupons already issued keep the instants fixed on them at issue.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct TemplateValidityChanged {
    pub sn: TemplateSn,
    pub from: RawValidity,
    pub validity: RawValidity,
}
