//! What one event does to the projections (`balances`, `template_stats`), as
//! a pure function the live workers fold events through. `ledger replay`
//! checks them against their definition instead (each coupon's final status
//! by the state machine, added up), and shares only [`order_effect`] for
//! costs.
//!
//! - Coupon streams move a coupon between status buckets (per user for
//!   `balances`, per template for `template_stats`).
//! - Order streams carry the cost: `OrderLocked` says what each coupon takes
//!   off, `OrderConfirmed` makes that a cost of the coupon's template, and
//!   `OrderRefunded` reverses part of it. Orders keep their own stream
//!   order, so the lock is always known before the confirm.

use serde::de::DeserializeOwned;
use serde_json::Value;
use uuid::Uuid;

use crate::domain::coupon_state::{CouponChange, CouponState, CouponStatus, apply};
use crate::domain::events::{
    CouponChanged, CouponIssued, OrderLocked, OrderRefunded, OrderSettled,
};

/// The projections, by the names their workers, cursors and inbox use.
pub const BALANCES: &str = "balances";
pub const TEMPLATE_STATS: &str = "template_stats";
pub const PROJECTIONS: [&str; 2] = [BALANCES, TEMPLATE_STATS];

/// What a projection knows of one coupon.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CouponView {
    pub user_id: String,
    pub template_sn: String,
    /// Face value in cents.
    pub face_value: i64,
    pub status: CouponStatus,
    pub version: i32,
    /// What the coupon takes off the order holding it, in cents.
    pub locked_discount: i64,
}

/// The effect of one event on the projections.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Effect {
    /// A new coupon, counted as issued and `unused`.
    Issued(CouponView),
    /// A coupon left status `from`; `view` is where it is now.
    Moved {
        from: CouponStatus,
        view: CouponView,
    },
    /// An order locked coupons: what each takes off, in cents.
    Discounts(Vec<(Uuid, i64)>),
    /// An order was confirmed: its coupons' discounts become cost.
    Confirmed(Vec<Uuid>),
    /// A refund reversed this much (cents) of each coupon's cost.
    Reversals(Vec<(Uuid, i64)>),
    /// Nothing the projections count.
    Nothing,
}

#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum ProjectionError {
    #[error("{event_type} payload does not parse: {message}")]
    Payload { event_type: String, message: String },
    #[error(
        "{event_type} for coupon at version {version}, which the projection has not seen issued"
    )]
    UnknownCoupon { event_type: String, version: i32 },
    #[error("CouponIssued at version {0}: a coupon is issued at version 1")]
    IssuedTwice(i32),
}

/// The effect of the event (`event_type`, `payload`) at `version` of a coupon
/// stream whose current view is `view`.
pub fn coupon_effect(
    view: Option<&CouponView>,
    event_type: &str,
    version: i32,
    payload: &Value,
) -> Result<Effect, ProjectionError> {
    if event_type == "CouponIssued" {
        let issued: CouponIssued = parse(event_type, payload)?;
        if view.is_some() || version != 1 {
            return Err(ProjectionError::IssuedTwice(version));
        }
        return Ok(Effect::Issued(CouponView {
            user_id: issued.user_id,
            template_sn: issued.template_sn,
            face_value: issued.face_value.cents(),
            status: CouponStatus::Unused,
            version,
            locked_discount: 0,
        }));
    }
    let changed: CouponChanged = parse(event_type, payload)?;
    let Some(change) = CouponChange::from_event(event_type, &changed) else {
        return Ok(Effect::Nothing);
    };
    let view = view.ok_or_else(|| ProjectionError::UnknownCoupon {
        event_type: event_type.to_owned(),
        version,
    })?;
    Ok(Effect::Moved {
        from: view.status,
        view: CouponView {
            status: status_after(view.status, &change),
            version,
            ..view.clone()
        },
    })
}

/// The effect of an order stream's event.
pub fn order_effect(event_type: &str, payload: &Value) -> Result<Effect, ProjectionError> {
    Ok(match event_type {
        "OrderLocked" => {
            let locked: OrderLocked = parse(event_type, payload)?;
            let mut per_coupon: Vec<(Uuid, i64)> =
                locked.coupon_ids.iter().map(|id| (*id, 0)).collect();
            for a in &locked.allocations {
                if let Some(entry) = per_coupon.iter_mut().find(|(id, _)| *id == a.coupon_id) {
                    entry.1 += a.amount.cents();
                }
            }
            Effect::Discounts(per_coupon)
        }
        "OrderConfirmed" => {
            let settled: OrderSettled = parse(event_type, payload)?;
            Effect::Confirmed(settled.coupon_ids)
        }
        "OrderRefunded" => {
            let refunded: OrderRefunded = parse(event_type, payload)?;
            let reversals = refunded.refund.coupons.iter();
            Effect::Reversals(
                reversals
                    .map(|c| (c.coupon_id, c.reversed.cents()))
                    .collect(),
            )
        }
        _ => Effect::Nothing,
    })
}

/// The status a change leads to, by the coupon state machine's own fold.
fn status_after(status: CouponStatus, change: &CouponChange) -> CouponStatus {
    let state = CouponState {
        status,
        order_id: None,
        expires_at: chrono::DateTime::<chrono::Utc>::MIN_UTC,
    };
    apply(&state, change).status
}

/// The payload as `T`, its error naming the event type.
pub(crate) fn parse<T: DeserializeOwned>(
    event_type: &str,
    payload: &Value,
) -> Result<T, ProjectionError> {
    T::deserialize(payload).map_err(|e| ProjectionError::Payload {
        event_type: event_type.to_owned(),
        message: e.to_string(),
    })
}

/// The kind of stream an event belongs to, by its id's prefix.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StreamKind {
    Coupon(Uuid),
    Order,
    Other,
}

pub fn stream_kind(stream_id: &str) -> StreamKind {
    if let Some(id) = stream_id.strip_prefix("coupon-") {
        return Uuid::parse_str(id).map_or(StreamKind::Other, StreamKind::Coupon);
    }
    if stream_id.starts_with("order-") {
        return StreamKind::Order;
    }
    StreamKind::Other
}

/// Whether `projection` follows streams of this kind.
pub fn follows(projection: &str, kind: StreamKind) -> bool {
    match kind {
        StreamKind::Coupon(_) => true,
        StreamKind::Order => projection == TEMPLATE_STATS,
        StreamKind::Other => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn issued() -> CouponView {
        let payload = json!({
            "coupon_id": Uuid::nil(), "template_sn": "T1", "user_id": "u1",
            "issued_at": "2026-11-01T00:00:00Z", "effective_at": "2026-11-01T00:00:00Z",
            "expires_at": "2026-11-08T00:00:00Z", "face_value": "20.00", "currency": "CNY"
        });
        match coupon_effect(None, "CouponIssued", 1, &payload).unwrap() {
            Effect::Issued(view) => view,
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn issue_then_lock_moves_the_coupon() {
        let view = issued();
        assert_eq!((view.face_value, view.status), (2000, CouponStatus::Unused));
        let lock = json!({"coupon_id": Uuid::nil(), "order_id": "o1"});
        let effect = coupon_effect(Some(&view), "CouponLocked", 2, &lock).unwrap();
        let Effect::Moved { from, view } = effect else {
            panic!("{effect:?}")
        };
        assert_eq!(
            (from, view.status, view.version),
            (CouponStatus::Unused, CouponStatus::Locked, 2)
        );
    }

    #[test]
    fn a_change_before_the_issue_is_an_error() {
        let lock = json!({"coupon_id": Uuid::nil(), "order_id": "o1"});
        let err = coupon_effect(None, "CouponLocked", 2, &lock).unwrap_err();
        assert!(matches!(
            err,
            ProjectionError::UnknownCoupon { version: 2, .. }
        ));
    }

    #[test]
    fn a_second_issue_is_an_error() {
        let view = issued();
        let payload = json!({"coupon_id": Uuid::nil()});
        assert!(coupon_effect(Some(&view), "CouponIssued", 2, &payload).is_err());
    }

    #[test]
    fn streams_are_told_apart() {
        let id = Uuid::now_v7();
        assert_eq!(stream_kind(&format!("coupon-{id}")), StreamKind::Coupon(id));
        assert_eq!(stream_kind("order-42"), StreamKind::Order);
        assert_eq!(stream_kind("template-T1"), StreamKind::Other);
        assert!(!follows(BALANCES, StreamKind::Order));
        assert!(follows(TEMPLATE_STATS, StreamKind::Order));
    }
}
