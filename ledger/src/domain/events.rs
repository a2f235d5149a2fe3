//! The events of the ledger: their payloads, type names and schema versions.
//!
//! Type names are contract (subscribers match on them). A payload's shape only
//! ever grows compatibly within a schema version.

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use uuid::Uuid;

use crate::domain::money::Money;
use crate::domain::terms::RawTerms;
use crate::store::NewEvent;

/// A payload that can be appended as an event.
pub trait DomainEvent: Serialize {
    const TYPE: &'static str;
    const SCHEMA_VERSION: i16 = 1;

    /// The event, ready to append, with a fresh id.
    fn to_new_event(&self, metadata: &Metadata, occurred_at: DateTime<Utc>) -> NewEvent {
        NewEvent {
            event_id: Uuid::now_v7(),
            event_type: Self::TYPE.to_owned(),
            schema_version: Self::SCHEMA_VERSION,
            payload: serde_json::to_value(self).expect("event payloads serialize"),
            metadata: serde_json::to_value(metadata).expect("metadata serializes"),
            occurred_at,
        }
    }
}

/// Who did it and in answer to what (DESIGN §4 `metadata`).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Metadata {
    /// `admin`, `service`, `channel:<id>`, `system:<worker>`.
    pub actor: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub channel_id: Option<Uuid>,
    pub correlation_id: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub causation_id: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub idempotency_key: Option<String>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct IssueWindow {
    pub begin: DateTime<Utc>,
    pub end: DateTime<Utc>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct TemplateCreated {
    pub sn: String,
    pub name: String,
    pub terms: RawTerms,
    pub issue_window: IssueWindow,
    pub total: i64,
    pub per_user_limit: i32,
    pub refund_policy: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub remind_days_before: Option<i32>,
}

/// A template's status moved (`TemplateActivated`, `TemplateStopped`, `TemplateVoided`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct TemplateStatusChanged {
    pub sn: String,
    pub from: String,
    pub to: String,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct TemplateQuotaRaised {
    pub sn: String,
    pub from: i64,
    pub total: i64,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct TemplateChannelAllowed {
    pub sn: String,
    pub channel_id: Uuid,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct ChannelCreated {
    pub channel_id: Uuid,
    pub name: String,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct CouponIssued {
    pub coupon_id: Uuid,
    pub template_sn: String,
    pub user_id: String,
    pub issued_at: DateTime<Utc>,
    pub effective_at: DateTime<Utc>,
    pub expires_at: DateTime<Utc>,
    pub face_value: Money,
    pub currency: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub channel_id: Option<Uuid>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub refund_from: Option<Uuid>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub job_id: Option<Uuid>,
}

impl DomainEvent for TemplateCreated {
    const TYPE: &'static str = "TemplateCreated";
}
impl DomainEvent for TemplateQuotaRaised {
    const TYPE: &'static str = "TemplateQuotaRaised";
}
impl DomainEvent for TemplateChannelAllowed {
    const TYPE: &'static str = "TemplateChannelAllowed";
}
impl DomainEvent for ChannelCreated {
    const TYPE: &'static str = "ChannelCreated";
}
impl DomainEvent for CouponIssued {
    const TYPE: &'static str = "CouponIssued";
}

/// Status changes carry their own type name per target status.
pub fn status_changed_type(to: &str) -> &'static str {
    match to {
        "active" => "TemplateActivated",
        "stopped" => "TemplateStopped",
        _ => "TemplateVoided",
    }
}

/// Builds a status-change event (its type depends on the target status).
pub fn status_changed_event(
    change: &TemplateStatusChanged,
    metadata: &Metadata,
    occurred_at: DateTime<Utc>,
) -> NewEvent {
    event_of(
        status_changed_type(&change.to),
        change,
        metadata,
        occurred_at,
    )
}

/// The payload of every coupon event after `CouponIssued`; which fields are
/// set depends on the event type (see `coupon_state::CouponChange`).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct CouponChanged {
    pub coupon_id: Uuid,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub order_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub refund_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<crate::domain::coupon_state::UnlockReason>,
    /// For `CouponRefunded` under the `reissue` policy: the new coupon.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reissued_as: Option<Uuid>,
}

/// An order's lock (TCC Try): its coupons, what they take off, and where.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct OrderLocked {
    pub order_id: String,
    pub user_id: String,
    pub order: crate::domain::order::RawOrder,
    pub coupon_ids: Vec<Uuid>,
    pub discount: Money,
    pub payable: Money,
    pub allocations: Vec<crate::domain::allocation::Allocation<Uuid>>,
    pub lock_expires_at: DateTime<Utc>,
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

impl DomainEvent for OrderLocked {
    const TYPE: &'static str = "OrderLocked";
}
impl DomainEvent for OrderRefunded {
    const TYPE: &'static str = "OrderRefunded";
}

/// Builds an event whose type is chosen at run time (coupon changes,
/// order settlements), with a fresh id.
pub fn event_of(
    event_type: &str,
    payload: &impl Serialize,
    metadata: &Metadata,
    occurred_at: DateTime<Utc>,
) -> NewEvent {
    NewEvent {
        event_id: Uuid::now_v7(),
        event_type: event_type.to_owned(),
        schema_version: 1,
        payload: serde_json::to_value(payload).unwrap_or(Value::Null),
        metadata: serde_json::to_value(metadata).unwrap_or(Value::Null),
        occurred_at,
    }
}

/// The mutable attributes of a template changed (terms never do).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct TemplateUpdated {
    pub sn: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// Some(None) clears the reminder.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub remind_days_before: Option<Option<i32>>,
}

impl DomainEvent for TemplateUpdated {
    const TYPE: &'static str = "TemplateUpdated";
}
