//! Every event the ledger appends, in ONE list (the `ledger_events!` call
//! below): its contract type name, its schema version and its payload type.
//! From that list come [`EventType`] (the names, parsed once), [`LedgerEvent`]
//! (a stored event decoded once from `(event_type, schema_version, payload)`;
//! `store::NewEvent::of` is the one conversion back; the store turns the type
//! into its name only at the SQL edge). Adding an event type is one line
//! here; the projections, the replay, the state machines and the schema
//! generator match on these enums, so the compiler finds what else must know.

use serde::{Deserialize, Serialize};
use serde_json::Value;
use uuid::Uuid;

use crate::domain::coupon_state::CouponChange;
use crate::domain::events::{
    AllowListChanged, ApiKeyCreated, ApiKeyRevoked, ApiKeyRotated, ChannelCreated,
    ChannelSecretRotated, ChannelStatusChanged, CodeBatchCreated, CodeBatchStopped, CodeRedeemed,
    CouponChanged, CouponIssued, CouponUsed, OrderLocked, OrderRefunded, OrderSettled,
    PackageChannelAllowed, PackageClaimReleased, PackageClaimReserved, PackageClaimed,
    PackageCreated, PackageStatusChanged, TemplateBudgetRaised, TemplateChannelAllowed,
    TemplateChannelRemoved, TemplateCreated, TemplateIssueWindowChanged,
    TemplatePerUserLimitRaised, TemplateQuotaRaised, TemplateStatusChanged, TemplateUpdated,
    TemplateValidityChanged,
};
use crate::domain::stream::StreamKind;
use crate::domain::template_status::TemplateStatus;
use crate::domain::upcast;

/// Generic code over every payload type (the schema generator's way in).
pub trait PayloadVisitor {
    type Output;
    fn visit<P>(self, event_type: EventType) -> Self::Output
    where
        P: Serialize + for<'de> Deserialize<'de> + schemars::JsonSchema;
}

macro_rules! ledger_events {
    ($( $name:ident ( $payload:ty, $version:literal, $stream:ident ) ),+ $(,)?) => {
        /// The type of an event, by its contract name.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        pub enum EventType { $($name),+ }

        impl EventType {
            pub const ALL: &'static [EventType] = &[$(Self::$name),+];

            /// The contract name stored in `events.event_type`.
            pub const fn as_str(self) -> &'static str {
                match self { $(Self::$name => stringify!($name)),+ }
            }

            /// The version of the payload this build writes.
            pub const fn schema_version(self) -> i16 {
                match self { $(Self::$name => $version),+ }
            }

            /// The kind of stream events of this type belong to.
            pub const fn stream_kind(self) -> StreamKind {
                match self { $(Self::$name => StreamKind::$stream),+ }
            }

            pub fn parse(name: &str) -> Option<Self> {
                match name { $(stringify!($name) => Some(Self::$name),)+ _ => None }
            }

            /// Calls `visitor` with this type's payload type.
            pub fn visit_payload<V: PayloadVisitor>(self, visitor: V) -> V::Output {
                match self { $(Self::$name => visitor.visit::<$payload>(self)),+ }
            }
        }

        // What strum derives for the other name lists (`domain::names`).
        impl strum::VariantArray for EventType {
            const VARIANTS: &'static [Self] = Self::ALL;
        }

        impl std::str::FromStr for EventType {
            type Err = strum::ParseError;
            fn from_str(name: &str) -> Result<Self, Self::Err> {
                Self::parse(name).ok_or(strum::ParseError::VariantNotFound)
            }
        }

        impl From<EventType> for &'static str {
            fn from(t: EventType) -> Self {
                t.as_str()
            }
        }

        impl AsRef<str> for EventType {
            fn as_ref(&self) -> &str {
                self.as_str()
            }
        }

        impl std::fmt::Display for EventType {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.pad(self.as_str())
            }
        }

        /// A stored or new event, decoded: one variant per event type.
        #[derive(Clone, Debug, PartialEq)]
        pub enum LedgerEvent { $($name($payload)),+ }

        impl LedgerEvent {
            pub fn event_type(&self) -> EventType {
                match self { $(Self::$name(_) => EventType::$name),+ }
            }

            /// The payload as stored in `events.payload`.
            pub fn payload_json(&self) -> Result<Value, serde_json::Error> {
                match self { $(Self::$name(p) => serde_json::to_value(p)),+ }
            }

            fn from_payload<'de, D>(t: EventType, payload: D) -> Result<Self, D::Error>
            where
                D: serde::Deserializer<'de>,
            {
                match t { $(EventType::$name => <$payload>::deserialize(payload).map(Self::$name)),+ }
            }
        }
    };
}

// Name (payload type, schema version written, stream kind). A payload
// change is a new version here, its upcast from the version before in
// `domain::upcast`, and its schema file beside the older ones (`schemas/`,
// docs/design.md "Event versions").
ledger_events! {
    TemplateCreated(Box<TemplateCreated>, 1, Template),
    TemplateActivated(TemplateStatusChanged, 1, Template),
    TemplateStopped(TemplateStatusChanged, 1, Template),
    TemplateVoided(TemplateStatusChanged, 1, Template),
    TemplateQuotaRaised(TemplateQuotaRaised, 1, Template),
    TemplateChannelAllowed(TemplateChannelAllowed, 1, Template),
    TemplateUpdated(TemplateUpdated, 1, Template),
    ChannelCreated(ChannelCreated, 1, Channel),
    CouponIssued(CouponIssued, 1, Coupon),
    CouponLocked(CouponChanged, 1, Coupon),
    CouponUnlocked(CouponChanged, 1, Coupon),
    CouponUsed(CouponUsed, 2, Coupon),
    CouponRestored(CouponChanged, 1, Coupon),
    CouponRefunded(CouponChanged, 1, Coupon),
    CouponExpired(CouponChanged, 1, Coupon),
    CouponVoided(CouponChanged, 1, Coupon),
    OrderLocked(OrderLocked, 1, Order),
    OrderConfirmed(OrderSettled, 1, Order),
    OrderCancelled(OrderSettled, 1, Order),
    OrderReleased(OrderSettled, 1, Order),
    OrderRefunded(OrderRefunded, 1, Order),
    CodeBatchCreated(CodeBatchCreated, 1, CodeBatch),
    CodeBatchStopped(CodeBatchStopped, 1, CodeBatch),
    CodeRedeemed(CodeRedeemed, 1, Code),
    PackageCreated(PackageCreated, 1, Package),
    PackageActivated(PackageStatusChanged, 1, Package),
    PackageStopped(PackageStatusChanged, 1, Package),
    PackageClaimed(PackageClaimed, 1, Package),
    PackageChannelAllowed(PackageChannelAllowed, 1, Package),
    ChannelDisabled(ChannelStatusChanged, 1, Channel),
    ChannelEnabled(ChannelStatusChanged, 1, Channel),
    ChannelSecretRotated(ChannelSecretRotated, 1, Channel),
    TemplateChannelRemoved(TemplateChannelRemoved, 1, Template),
    TemplateAllowListAdded(AllowListChanged, 1, AllowList),
    TemplateAllowListRemoved(AllowListChanged, 1, AllowList),
    TemplateIssueWindowChanged(TemplateIssueWindowChanged, 1, Template),
    TemplatePerUserLimitRaised(TemplatePerUserLimitRaised, 1, Template),
    TemplateValidityChanged(TemplateValidityChanged, 1, Template),
    ApiKeyCreated(ApiKeyCreated, 1, ApiKey),
    ApiKeyRotated(ApiKeyRotated, 1, ApiKey),
    ApiKeyRevoked(ApiKeyRevoked, 1, ApiKey),
    PackageClaimReserved(PackageClaimReserved, 1, Package),
    PackageClaimReleased(PackageClaimReleased, 1, Package),
    TemplateBudgetRaised(TemplateBudgetRaised, 1, Template),
}

/// Why a stored event could not be decoded.
#[derive(Debug, PartialEq, Eq, thiserror::Error)]
pub enum DecodeError {
    #[error("unknown event type {0:?}")]
    UnknownType(String),
    #[error("{event_type} schema version {version} is unknown (this build reads {known})")]
    UnknownVersion {
        event_type: &'static str,
        version: i16,
        /// The versions read, as `v1, v2`.
        known: String,
    },
    #[error("{event_type} payload does not parse: {message}")]
    Payload {
        event_type: &'static str,
        message: String,
    },
}

/// The type of a stored `(event_type, schema_version)`, or why it is unknown.
pub fn check_type(event_type: &str, schema_version: i16) -> Result<EventType, DecodeError> {
    let t = EventType::parse(event_type)
        .ok_or_else(|| DecodeError::UnknownType(event_type.to_owned()))?;
    // The current version, or an older one that upcasts to it.
    if !upcast::readable(t, schema_version) {
        return Err(DecodeError::UnknownVersion {
            event_type: t.as_str(),
            version: schema_version,
            known: upcast::readable_versions(t)
                .map(|v| format!("v{v}"))
                .collect::<Vec<_>>()
                .join(", "),
        });
    }
    Ok(t)
}

impl LedgerEvent {
    /// Decodes a stored event from its JSON payload, upcast to its type's
    /// current version (`domain::upcast`) when it was stored at an older one.
    pub fn decode(
        event_type: &str,
        schema_version: i16,
        payload: &Value,
    ) -> Result<Self, DecodeError> {
        let t = check_type(event_type, schema_version)?;
        let payload =
            upcast::to_current(t, schema_version, payload).map_err(|e| payload_error(t, e))?;
        Self::from_payload(t, &*payload)
            .map_err(|e| payload_error(t, e))?
            .checked()
    }

    /// Decodes a stored event from its payload's JSON text, upcast as
    /// [`LedgerEvent::decode`] does.
    pub fn decode_slice(
        event_type: &str,
        schema_version: i16,
        payload: &[u8],
    ) -> Result<Self, DecodeError> {
        let t = check_type(event_type, schema_version)?;
        let payload = upcast::bytes_to_current(t, schema_version, payload)
            .map_err(|e| payload_error(t, e))?;
        let mut de = serde_json::Deserializer::from_slice(&payload);
        Self::from_payload(t, &mut de)
            .and_then(|event| de.end().map(|()| event))
            .map_err(|e| payload_error(t, e))?
            .checked()
    }

    /// A template's status change, under the type its target status names.
    pub fn template_status_changed(change: TemplateStatusChanged, to: TemplateStatus) -> Self {
        match to {
            TemplateStatus::Active => Self::TemplateActivated(change),
            TemplateStatus::Stopped => Self::TemplateStopped(change),
            // A template never moves back to draft (template_status::apply).
            TemplateStatus::Void | TemplateStatus::Draft => Self::TemplateVoided(change),
        }
    }

    /// The event of a state-machine change to `coupon_id`.
    pub fn coupon_changed(
        coupon_id: Uuid,
        change: &CouponChange,
        reissued_as: Option<Uuid>,
    ) -> Self {
        use CouponChange as C;
        let mut p = CouponChanged {
            coupon_id,
            reissued_as,
            ..Default::default()
        };
        let (order, refund, reason) = match change {
            C::Locked { order_id } => (Some(order_id), None, None),
            C::Unlocked { order_id, reason } => (Some(order_id), None, Some(*reason)),
            C::Restored {
                order_id,
                refund_id,
            }
            | C::Refunded {
                order_id,
                refund_id,
            } => (Some(order_id), Some(refund_id), None),
            C::Used { .. } | C::Expired | C::Voided => (None, None, None),
        };
        p.order_id = order.cloned();
        p.refund_id = refund.cloned();
        p.reason = reason;
        match change {
            C::Locked { .. } => Self::CouponLocked(p),
            C::Unlocked { .. } => Self::CouponUnlocked(p),
            C::Used { order_id, discount } => Self::CouponUsed(CouponUsed {
                coupon_id,
                order_id: order_id.clone(),
                discount: *discount,
            }),
            C::Restored { .. } => Self::CouponRestored(p),
            C::Refunded { .. } => Self::CouponRefunded(p),
            C::Expired => Self::CouponExpired(p),
            C::Voided => Self::CouponVoided(p),
        }
    }

    /// The state-machine change a coupon event after its issue records
    /// (None for every other event, and for one missing a field it needs).
    pub fn coupon_change(&self) -> Option<CouponChange> {
        use CouponChange as C;
        let order = |p: &CouponChanged| p.order_id.clone();
        let refund = |p: &CouponChanged| p.refund_id.clone();
        Some(match self {
            Self::CouponLocked(p) => C::Locked {
                order_id: order(p)?,
            },
            Self::CouponUnlocked(p) => C::Unlocked {
                order_id: order(p)?,
                reason: p.reason?,
            },
            Self::CouponUsed(p) => C::Used {
                order_id: p.order_id.clone(),
                discount: p.discount,
            },
            Self::CouponRestored(p) => C::Restored {
                order_id: order(p)?,
                refund_id: refund(p)?,
            },
            Self::CouponRefunded(p) => C::Refunded {
                order_id: order(p)?,
                refund_id: refund(p)?,
            },
            Self::CouponExpired(_) => C::Expired,
            Self::CouponVoided(_) => C::Voided,
            _ => return None,
        })
    }

    /// The payload of a coupon event after its issue (`CouponUsed` has
    /// its own: it names its order and discount).
    pub fn coupon_changed_payload(&self) -> Option<&CouponChanged> {
        match self {
            Self::CouponLocked(p)
            | Self::CouponUnlocked(p)
            | Self::CouponRestored(p)
            | Self::CouponRefunded(p)
            | Self::CouponExpired(p)
            | Self::CouponVoided(p) => Some(p),
            _ => None,
        }
    }

    /// A coupon change missing the fields its type needs does not decode.
    fn checked(self) -> Result<Self, DecodeError> {
        if self.coupon_changed_payload().is_some() && self.coupon_change().is_none() {
            return Err(DecodeError::Payload {
                event_type: self.event_type().as_str(),
                message: "missing order_id, refund_id or reason".into(),
            });
        }
        Ok(self)
    }
}

fn payload_error(t: EventType, e: impl std::fmt::Display) -> DecodeError {
    DecodeError::Payload {
        event_type: t.as_str(),
        message: e.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn every_type_name_round_trips() {
        for t in EventType::ALL {
            assert_eq!(EventType::parse(t.as_str()), Some(*t));
        }
        assert_eq!(EventType::parse("CouponTeleported"), None);
    }

    #[test]
    fn unknown_types_and_versions_are_clear_errors() {
        let payload = json!({"coupon_id": Uuid::nil()});
        assert_eq!(
            LedgerEvent::decode("CouponTeleported", 1, &payload),
            Err(DecodeError::UnknownType("CouponTeleported".into()))
        );
        let err = LedgerEvent::decode("CouponVoided", 7, &payload).unwrap_err();
        assert_eq!(
            err.to_string(),
            "CouponVoided schema version 7 is unknown (this build reads v1)"
        );
    }

    #[test]
    fn a_change_missing_its_order_does_not_decode() {
        let payload = json!({"coupon_id": Uuid::nil()});
        assert!(matches!(
            LedgerEvent::decode("CouponLocked", 1, &payload),
            Err(DecodeError::Payload {
                event_type: "CouponLocked",
                ..
            })
        ));
        assert!(LedgerEvent::decode("CouponExpired", 1, &payload).is_ok());
    }

    #[test]
    fn coupon_changes_round_trip_through_their_events() {
        let id = Uuid::now_v7();
        let change = CouponChange::Restored {
            order_id: "o1".into(),
            refund_id: "r1".into(),
        };
        let event = LedgerEvent::coupon_changed(id, &change, None);
        let t = event.event_type();
        assert_eq!((t.as_str(), t.schema_version()), ("CouponRestored", 1));
        let payload = event.payload_json().unwrap();
        let decoded = LedgerEvent::decode(t.as_str(), 1, &payload).unwrap();
        assert_eq!(decoded.coupon_change(), Some(change));
        let text = serde_json::to_vec(&payload).unwrap();
        assert_eq!(
            LedgerEvent::decode_slice(t.as_str(), 1, &text).unwrap(),
            decoded
        );
    }

    /// A use stored at v1 (before `discount`) decodes as v2 with none; a
    /// v2 use round-trips its discount. Both are the same state change.
    #[test]
    fn a_coupon_used_reads_at_either_version() {
        use crate::domain::money::Money;
        let id = Uuid::now_v7();
        let v1 = json!({"coupon_id": id, "order_id": "o1"});
        let old = LedgerEvent::decode("CouponUsed", 1, &v1).unwrap();
        let text = serde_json::to_vec(&v1).unwrap();
        assert_eq!(
            LedgerEvent::decode_slice("CouponUsed", 1, &text).unwrap(),
            old
        );
        let used = |discount| CouponChange::Used {
            order_id: "o1".into(),
            discount,
        };
        assert_eq!(old.coupon_change(), Some(used(None)));
        let twenty = Money::parse("20.00").unwrap();
        let new = LedgerEvent::coupon_changed(id, &used(Some(twenty)), None);
        assert_eq!(new.event_type().schema_version(), 2);
        let payload = new.payload_json().unwrap();
        assert_eq!(payload["discount"], "20.00");
        let decoded = LedgerEvent::decode("CouponUsed", 2, &payload).unwrap();
        assert_eq!(decoded.coupon_change(), Some(used(Some(twenty))));
        // v1 without its order never decoded, and still does not.
        let orphan = json!({"coupon_id": id});
        assert!(LedgerEvent::decode("CouponUsed", 1, &orphan).is_err());
        assert!(LedgerEvent::decode("CouponUsed", 3, &payload).is_err());
    }

    /// `null` in a `TemplateUpdated` clears the field: it must not decode as
    /// "unchanged" (serde's default for `Option<Option<_>>`), or a replay
    /// would keep what the live row dropped.
    #[test]
    fn template_updates_round_trip_including_a_clear() {
        use crate::domain::events::TemplateUpdated;
        use crate::domain::rate_limit::{Bucket, RateLimit};
        let limit = RateLimit {
            per_channel: None,
            per_user: Some(Bucket {
                per_second: 1,
                burst: 2,
            }),
        };
        let some_text = Some(Some("A campaign".to_owned()));
        for (remind_days_before, rate_limit, description) in [
            (Some(None), Some(None), Some(None)),
            (None, Some(Some(limit)), some_text),
            (None, None, None),
        ] {
            let eligibility = description.clone().map(|_| None);
            let event = LedgerEvent::TemplateUpdated(TemplateUpdated {
                sn: "T1".into(),
                name: None,
                remind_days_before,
                rate_limit,
                description,
                eligibility,
            });
            let payload = event.payload_json().unwrap();
            let decoded = LedgerEvent::decode("TemplateUpdated", 1, &payload).unwrap();
            assert_eq!(decoded, event, "{payload}");
            let text = serde_json::to_vec(&payload).unwrap();
            let sliced = LedgerEvent::decode_slice("TemplateUpdated", 1, &text).unwrap();
            assert_eq!(sliced, event, "{payload}");
        }
    }

    /// A `TemplateUpdated` written before templates had a description or an
    /// eligibility still decodes: both absent, so unchanged.
    #[test]
    fn an_older_template_update_decodes_with_nothing_else_changed() {
        use crate::domain::events::TemplateUpdated;
        let old = serde_json::json!({"sn": "T1", "name": "renamed"});
        let decoded = LedgerEvent::decode("TemplateUpdated", 1, &old).unwrap();
        let LedgerEvent::TemplateUpdated(TemplateUpdated {
            name,
            description,
            eligibility,
            ..
        }) = decoded
        else {
            panic!("not a TemplateUpdated: {decoded:?}");
        };
        assert_eq!(name.as_deref(), Some("renamed"));
        assert_eq!((description, eligibility), (None, None));
    }
}
