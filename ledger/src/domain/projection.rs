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

use crate::domain::ids::{TemplateSn, UserId};
use crate::domain::names::name_list;
use uuid::Uuid;

use crate::domain::coupon_state::{CouponChange, CouponState, CouponStatus, apply};
use crate::domain::ledger_event::{EventType, LedgerEvent};
use crate::domain::stream::StreamKind;

name_list! {
    /// Every projection: the one list its name, queue and tables come
    /// from. Workers, cursors, lag, metrics and `replay` loop over it, so
    /// a new projection is one variant here and the compiler names each
    /// place that must learn of it (docs/design.md §6).
    pub enum Projection {
        Balances,
        TemplateStats,
        /// The reminders' `notify_msg` (docs/design.md §7).
        Notify,
    }
}

impl Projection {
    /// Its name: its worker's, its cursor's and its inbox's.
    pub const fn as_str(self) -> &'static str {
        self.into_str()
    }

    /// The queue the relay feeds it (contract names, docs/design.md §5).
    pub const fn queue(self) -> &'static str {
        match self {
            Self::Balances => "coupon.events.balances",
            Self::TemplateStats => "coupon.events.template_stats",
            Self::Notify => "coupon.events.notify",
        }
    }

    /// The table it is named after (and serves from).
    pub const fn table(self) -> &'static str {
        self.tables()[0]
    }

    /// The tables it writes, its own [`table`](Self::table) first: `replay`
    /// counts their differences as lag while it is behind.
    pub const fn tables(self) -> &'static [&'static str] {
        match self {
            Self::Balances => &["balances"],
            Self::TemplateStats => &["template_stats", "template_totals"],
            Self::Notify => &["notify_msg"],
        }
    }

    /// What it counts coupons by, for the two that fold [`Effect`]s.
    pub const fn tally(self) -> Option<Tally> {
        match self {
            Self::Balances => Some(Tally::PerUser),
            Self::TemplateStats => Some(Tally::PerTemplate),
            Self::Notify => None,
        }
    }

    /// Whether a deployment may leave it out: the reminder worker is
    /// optional, and one that never ran is not behind.
    pub const fn optional(self) -> bool {
        matches!(self, Self::Notify)
    }
}

/// What a counting projection buckets coupons by: `balances` per user,
/// `template_stats` per template. Only these fold [`Effect`]s.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Tally {
    PerUser,
    PerTemplate,
}

impl Tally {
    /// The projection that keeps this tally.
    pub const fn projection(self) -> Projection {
        match self {
            Self::PerUser => Projection::Balances,
            Self::PerTemplate => Projection::TemplateStats,
        }
    }
}

/// What a projection knows of one coupon.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CouponView {
    pub user_id: UserId,
    pub template_sn: TemplateSn,
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
    #[error(
        "{event_type} for coupon at version {version}, which the projection has not seen issued"
    )]
    UnknownCoupon {
        event_type: &'static str,
        version: i32,
    },
    #[error(
        "{issued} at version {0}: a coupon is issued at version 1",
        issued = EventType::CouponIssued
    )]
    IssuedTwice(i32),
}

/// The effect of `event` at `version` of a coupon stream whose current view
/// is `view`.
pub fn coupon_effect(
    view: Option<&CouponView>,
    event: &LedgerEvent,
    version: i32,
) -> Result<Effect, ProjectionError> {
    if let LedgerEvent::CouponIssued(issued) = event {
        if view.is_some() || version != 1 {
            return Err(ProjectionError::IssuedTwice(version));
        }
        return Ok(Effect::Issued(CouponView {
            user_id: issued.user_id.clone(),
            template_sn: issued.template_sn.clone(),
            face_value: issued.face_value.cents(),
            status: CouponStatus::Unused,
            version,
            locked_discount: 0,
        }));
    }
    let Some(change) = event.coupon_change() else {
        return Ok(Effect::Nothing);
    };
    let view = view.ok_or_else(|| ProjectionError::UnknownCoupon {
        event_type: event.event_type().as_str(),
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
pub fn order_effect(event: &LedgerEvent) -> Effect {
    match event {
        LedgerEvent::OrderLocked(locked) => {
            let mut per_coupon: Vec<(Uuid, i64)> =
                locked.coupon_ids.iter().map(|id| (*id, 0)).collect();
            for a in &locked.allocations {
                if let Some(entry) = per_coupon.iter_mut().find(|(id, _)| *id == a.coupon_id) {
                    entry.1 += a.amount.cents();
                }
            }
            Effect::Discounts(per_coupon)
        }
        LedgerEvent::OrderConfirmed(settled) => Effect::Confirmed(settled.coupon_ids.clone()),
        LedgerEvent::OrderRefunded(refunded) => {
            let reversals = refunded.refund.coupons.iter();
            Effect::Reversals(
                reversals
                    .map(|c| (c.coupon_id, c.reversed.cents()))
                    .collect(),
            )
        }
        _ => Effect::Nothing,
    }
}

/// The status a change leads to, by the coupon state machine's own fold.
pub fn status_after(status: CouponStatus, change: &CouponChange) -> CouponStatus {
    let state = CouponState {
        status,
        order_id: None,
        expires_at: chrono::DateTime::<chrono::Utc>::MIN_UTC,
    };
    apply(&state, change).status
}

/// Whether the tally follows streams of this kind.
pub fn follows(tally: Tally, kind: StreamKind) -> bool {
    match kind {
        StreamKind::Coupon => true,
        StreamKind::Order => tally == Tally::PerTemplate,
        StreamKind::Template
        | StreamKind::Channel
        | StreamKind::CodeBatch
        | StreamKind::Code
        | StreamKind::Package
        | StreamKind::AllowList
        | StreamKind::ApiKey => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::{Value, json};

    fn event(event_type: EventType, payload: Value) -> LedgerEvent {
        LedgerEvent::decode(event_type.as_str(), 1, &payload).unwrap()
    }

    fn issued_payload() -> Value {
        json!({
            "coupon_id": Uuid::nil(), "template_sn": "T1", "user_id": "u1",
            "issued_at": "2026-11-01T00:00:00Z", "effective_at": "2026-11-01T00:00:00Z",
            "expires_at": "2026-11-08T00:00:00Z", "face_value": "20.00", "currency": "CNY"
        })
    }

    fn issued() -> CouponView {
        let payload = issued_payload();
        match coupon_effect(None, &event(EventType::CouponIssued, payload), 1).unwrap() {
            Effect::Issued(view) => view,
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn issue_then_lock_moves_the_coupon() {
        let view = issued();
        assert_eq!((view.face_value, view.status), (2000, CouponStatus::Unused));
        let lock = json!({"coupon_id": Uuid::nil(), "order_id": "o1"});
        let effect = coupon_effect(Some(&view), &event(EventType::CouponLocked, lock), 2).unwrap();
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
        let err = coupon_effect(None, &event(EventType::CouponLocked, lock), 2).unwrap_err();
        assert!(matches!(
            err,
            ProjectionError::UnknownCoupon { version: 2, .. }
        ));
    }

    #[test]
    fn a_second_issue_is_an_error() {
        let view = issued();
        let LedgerEvent::CouponIssued(mut again) = event(EventType::CouponIssued, issued_payload())
        else {
            unreachable!()
        };
        again.user_id = UserId::parse("u2").unwrap();
        let again = LedgerEvent::CouponIssued(again);
        assert_eq!(
            coupon_effect(Some(&view), &again, 2),
            Err(ProjectionError::IssuedTwice(2))
        );
    }

    #[test]
    fn tallies_follow_their_stream_kinds() {
        use Tally::{PerTemplate, PerUser};
        assert!(follows(PerUser, StreamKind::Coupon));
        assert!(!follows(PerUser, StreamKind::Order));
        assert!(follows(PerTemplate, StreamKind::Order));
        assert!(!follows(PerTemplate, StreamKind::Template));
    }

    #[test]
    fn every_projection_has_a_queue_and_tables_and_the_tallies_are_theirs() {
        use strum::VariantArray;
        for p in Projection::VARIANTS {
            assert_eq!(p.queue(), format!("coupon.events.{}", p.as_str()));
            assert!(!p.tables().is_empty(), "{p}");
            if let Some(tally) = p.tally() {
                assert_eq!(tally.projection(), *p);
            }
        }
    }
}
