//! An order's status in checkout (TCC, docs/design.md §6), and the pure decisions
//! of confirm and cancel on it.
//!
//! `locking → locked → confirmed | cancelled | released`; a cancel that
//! comes before any lock leaves `cancelled_before_lock`, which refuses the
//! late lock.

use crate::domain::names::name_list;
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

name_list! {
    #[derive(Serialize, Deserialize, ToSchema)]
    #[serde(rename_all = "snake_case")]
    pub enum OrderStatus {
        /// The row is taken by a lock still in its transaction (never committed alone).
        Locking,
        Locked,
        Confirmed,
        Cancelled,
        CancelledBeforeLock,
        /// The lock timed out and the coupons went back.
        Released,
    }
}

impl OrderStatus {
    pub const fn as_str(self) -> &'static str {
        self.into_str()
    }

    pub fn parse(s: &str) -> Option<Self> {
        s.parse().ok()
    }
}

/// What a confirm or cancel does to an order in a given status.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SettleDecision {
    /// Change the order and its coupons.
    Proceed,
    /// Already settled this way (or past it): answer with the status as is.
    AlreadyDone(OrderStatus),
    /// Refused: a stable code and why.
    Refused(&'static str, String),
}

/// Confirm: a live lock proceeds; a confirmed order answers again; a lock
/// that timed out (even if not released yet) or any other status is refused.
pub fn decide_confirm(
    status: OrderStatus,
    lock_expires_at: Option<DateTime<Utc>>,
    now: DateTime<Utc>,
) -> SettleDecision {
    match status {
        OrderStatus::Confirmed => SettleDecision::AlreadyDone(status),
        OrderStatus::Locked if lock_expires_at.is_some_and(|t| now > t) => {
            SettleDecision::Refused("lock_expired", "the order's lock timed out".into())
        }
        OrderStatus::Locked => SettleDecision::Proceed,
        other => SettleDecision::Refused(
            "order_not_locked",
            format!("the order is {other}; it cannot be confirmed"),
        ),
    }
}

/// Cancel: a lock proceeds; a confirmed order must be refunded instead;
/// anything else is already as good as cancelled and answers as it is.
pub fn decide_cancel(status: OrderStatus) -> SettleDecision {
    match status {
        OrderStatus::Locked => SettleDecision::Proceed,
        OrderStatus::Confirmed => SettleDecision::Refused(
            "order_confirmed",
            "the order is confirmed: refund it instead".into(),
        ),
        other => SettleDecision::AlreadyDone(other),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::Duration;
    use strum::VariantArray;

    #[test]
    fn text_round_trips_and_matches_serde() {
        for &s in OrderStatus::VARIANTS {
            assert_eq!(OrderStatus::parse(s.as_str()), Some(s));
            let json = serde_json::to_value(s).unwrap();
            assert_eq!(json, serde_json::json!(s.as_str()));
        }
        assert_eq!(OrderStatus::parse("Locked"), None);
    }

    #[test]
    fn confirm_needs_a_live_lock() {
        let now = Utc::now();
        let later = Some(now + Duration::seconds(1));
        let earlier = Some(now - Duration::seconds(1));
        assert_eq!(
            decide_confirm(OrderStatus::Locked, later, now),
            SettleDecision::Proceed
        );
        assert!(matches!(
            decide_confirm(OrderStatus::Locked, earlier, now),
            SettleDecision::Refused("lock_expired", _)
        ));
        assert_eq!(
            decide_confirm(OrderStatus::Confirmed, earlier, now),
            SettleDecision::AlreadyDone(OrderStatus::Confirmed)
        );
        for s in [OrderStatus::Cancelled, OrderStatus::Released] {
            assert!(matches!(
                decide_confirm(s, later, now),
                SettleDecision::Refused("order_not_locked", _)
            ));
        }
    }

    #[test]
    fn cancel_refuses_only_a_confirmed_order() {
        assert_eq!(decide_cancel(OrderStatus::Locked), SettleDecision::Proceed);
        assert!(matches!(
            decide_cancel(OrderStatus::Confirmed),
            SettleDecision::Refused("order_confirmed", _)
        ));
        for s in [OrderStatus::Cancelled, OrderStatus::Released] {
            assert_eq!(decide_cancel(s), SettleDecision::AlreadyDone(s));
        }
    }
}
