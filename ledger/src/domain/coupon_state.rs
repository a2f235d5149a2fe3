//! A coupon's state machine (docs/design.md §6), as one pure function from
//! (state, command) to the event to append, or a refusal — and the fold that
//! replays those events. Every SQL path that changes a coupon goes through
//! [`decide`], so none can bypass it.
//!
//! `unused → locked → used`, `locked → unused` (cancel or lock timeout),
//! `used → unused | refunded` (full refund, by refund policy),
//! `unused → expired`, `unused → void`. Nothing else.

use crate::domain::money::Money;
use crate::domain::names::name_list;
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

name_list! {
    /// A coupon's status; the names are those of the contract (and the rows').
    #[derive(PartialOrd, Ord, Serialize, Deserialize, utoipa::ToSchema)]
    #[serde(rename_all = "snake_case")]
    pub enum CouponStatus {
        Unused,
        Locked,
        Used,
        Refunded,
        Expired,
        Void,
    }
}

impl CouponStatus {
    /// Every status, in a fixed order (spill files code a status by its
    /// index here): the declaration order.
    pub const ALL: &'static [CouponStatus] = <Self as strum::VariantArray>::VARIANTS;

    pub const fn as_str(self) -> &'static str {
        self.into_str()
    }

    pub fn parse(s: &str) -> Option<Self> {
        s.parse().ok()
    }
}

/// What is known of a coupon for deciding its next move.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CouponState {
    pub status: CouponStatus,
    /// The order holding or having used it.
    pub order_id: Option<String>,
    pub expires_at: DateTime<Utc>,
}

/// Why a lock was released.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum UnlockReason {
    Cancel,
    Timeout,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CouponCommand {
    Lock {
        order_id: String,
    },
    Unlock {
        order_id: String,
        reason: UnlockReason,
    },
    /// The order's confirm: `discount` is what the coupon takes off it
    /// (its lock's allocations to it), recorded on the event.
    Use {
        order_id: String,
        discount: Money,
    },
    /// Full refund, policy `restore`: the coupon goes back to its owner.
    Restore {
        order_id: String,
        refund_id: String,
    },
    /// Full refund, policy `reissue`: this coupon ends; a new one is issued.
    MarkRefunded {
        order_id: String,
        refund_id: String,
    },
    Expire,
    Void,
}

/// The coupon events after issue, as the state machine sees them (their
/// events: `LedgerEvent::coupon_changed` and `LedgerEvent::coupon_change`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CouponChange {
    Locked {
        order_id: String,
    },
    Unlocked {
        order_id: String,
        reason: UnlockReason,
    },
    /// `discount`: None when the event did not record it (`CouponUsed` v1).
    Used {
        order_id: String,
        discount: Option<Money>,
    },
    Restored {
        order_id: String,
        refund_id: String,
    },
    Refunded {
        order_id: String,
        refund_id: String,
    },
    Expired,
    Voided,
}

#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum Refusal {
    #[error("the coupon is {0}")]
    WrongState(&'static str),
    #[error("the coupon is held by another order")]
    OtherOrder,
    #[error("the coupon has expired")]
    Expired,
    #[error("the coupon has not expired yet")]
    NotDue,
}

/// Decides the change `command` makes to a coupon in `state` at `now`.
pub fn decide(
    state: &CouponState,
    command: &CouponCommand,
    now: DateTime<Utc>,
) -> Result<CouponChange, Refusal> {
    use CouponChange as E;
    use CouponCommand as C;
    use CouponStatus as S;
    let holder = |order_id: &String| {
        if state.order_id.as_ref() == Some(order_id) {
            Ok(order_id.clone())
        } else {
            Err(Refusal::OtherOrder)
        }
    };
    match (state.status, command) {
        (S::Unused, C::Lock { .. }) if now > state.expires_at => Err(Refusal::Expired),
        (S::Unused, C::Lock { order_id }) => Ok(E::Locked {
            order_id: order_id.clone(),
        }),
        (S::Locked, C::Unlock { order_id, reason }) => Ok(E::Unlocked {
            order_id: holder(order_id)?,
            reason: *reason,
        }),
        (S::Locked, C::Use { order_id, discount }) => Ok(E::Used {
            order_id: holder(order_id)?,
            discount: Some(*discount),
        }),
        (
            S::Used,
            C::Restore {
                order_id,
                refund_id,
            },
        ) => Ok(E::Restored {
            order_id: holder(order_id)?,
            refund_id: refund_id.clone(),
        }),
        (
            S::Used,
            C::MarkRefunded {
                order_id,
                refund_id,
            },
        ) => Ok(E::Refunded {
            order_id: holder(order_id)?,
            refund_id: refund_id.clone(),
        }),
        (S::Unused, C::Expire) if now > state.expires_at => Ok(E::Expired),
        (S::Unused, C::Expire) => Err(Refusal::NotDue),
        (S::Unused, C::Void) => Ok(E::Voided),
        (status, _) => Err(Refusal::WrongState(status.as_str())),
    }
}

/// The state after `change`; replaying a coupon's history is a fold of this.
pub fn apply(state: &CouponState, change: &CouponChange) -> CouponState {
    use CouponChange as E;
    let (status, order_id) = match change {
        E::Locked { order_id } => (CouponStatus::Locked, Some(order_id.clone())),
        E::Unlocked { .. } => (CouponStatus::Unused, None),
        E::Used { order_id, .. } => (CouponStatus::Used, Some(order_id.clone())),
        E::Restored { .. } => (CouponStatus::Unused, None),
        E::Refunded { order_id, .. } => (CouponStatus::Refunded, Some(order_id.clone())),
        E::Expired => (CouponStatus::Expired, None),
        E::Voided => (CouponStatus::Void, None),
    };
    CouponState {
        status,
        order_id,
        expires_at: state.expires_at,
    }
}

/// A freshly issued coupon.
pub fn issued(expires_at: DateTime<Utc>) -> CouponState {
    CouponState {
        status: CouponStatus::Unused,
        order_id: None,
        expires_at,
    }
}

/// A coupon's state after replaying its changes from issue.
pub fn replay(expires_at: DateTime<Utc>, changes: &[CouponChange]) -> CouponState {
    changes
        .iter()
        .fold(issued(expires_at), |state, change| apply(&state, change))
}

#[cfg(test)]
mod tests {
    use super::CouponCommand as C;
    use super::*;
    use chrono::TimeZone;

    fn at(h: u32) -> DateTime<Utc> {
        Utc.with_ymd_and_hms(2026, 11, 22, h, 0, 0).unwrap()
    }

    fn run(state: &CouponState, command: C, now: DateTime<Utc>) -> Result<CouponState, Refusal> {
        decide(state, &command, now).map(|change| apply(state, &change))
    }

    fn lock(o: &str) -> C {
        C::Lock { order_id: o.into() }
    }

    #[test]
    fn lock_use_refund_and_back() {
        let s = issued(at(12));
        let s = run(&s, lock("o1"), at(10)).unwrap();
        assert_eq!(
            (s.status, s.order_id.as_deref()),
            (CouponStatus::Locked, Some("o1"))
        );
        assert_eq!(
            run(
                &s,
                C::Use {
                    order_id: "o2".into(),
                    discount: Money::ZERO,
                },
                at(10)
            ),
            Err(Refusal::OtherOrder)
        );
        let s = run(
            &s,
            C::Use {
                order_id: "o1".into(),
                discount: Money::ZERO,
            },
            at(10),
        )
        .unwrap();
        assert_eq!(s.status, CouponStatus::Used);
        let restore = C::Restore {
            order_id: "o1".into(),
            refund_id: "r1".into(),
        };
        assert_eq!(
            run(&s, restore, at(11)).unwrap().status,
            CouponStatus::Unused
        );
        let refunded = C::MarkRefunded {
            order_id: "o1".into(),
            refund_id: "r1".into(),
        };
        let s = run(&s, refunded, at(11)).unwrap();
        assert_eq!(s.status, CouponStatus::Refunded);
        assert!(run(&s, lock("o3"), at(11)).is_err(), "refunded is final");
    }

    #[test]
    fn a_lock_is_released_by_its_order_only() {
        let s = run(&issued(at(12)), lock("o1"), at(10)).unwrap();
        let cancel = |o: &str| C::Unlock {
            order_id: o.into(),
            reason: UnlockReason::Cancel,
        };
        assert_eq!(run(&s, cancel("o2"), at(10)), Err(Refusal::OtherOrder));
        assert_eq!(
            run(&s, cancel("o1"), at(10)).unwrap().status,
            CouponStatus::Unused
        );
        assert_eq!(
            run(&s, lock("o2"), at(10)),
            Err(Refusal::WrongState("locked"))
        );
    }

    #[test]
    fn expiry_and_void_only_from_unused() {
        let s = issued(at(12));
        assert_eq!(run(&s, C::Expire, at(12)), Err(Refusal::NotDue));
        assert_eq!(run(&s, lock("o"), at(13)), Err(Refusal::Expired));
        assert_eq!(
            run(&s, C::Expire, at(13)).unwrap().status,
            CouponStatus::Expired
        );
        assert_eq!(run(&s, C::Void, at(1)).unwrap().status, CouponStatus::Void);
        let locked = run(&s, lock("o"), at(1)).unwrap();
        assert!(
            run(&locked, C::Expire, at(13)).is_err(),
            "a locked coupon waits for its order"
        );
        assert!(run(&locked, C::Void, at(1)).is_err());
    }

    #[test]
    fn nothing_leaves_a_final_state() {
        for status in [
            CouponStatus::Refunded,
            CouponStatus::Expired,
            CouponStatus::Void,
        ] {
            let s = CouponState {
                status,
                order_id: Some("o".into()),
                expires_at: at(12),
            };
            for c in [
                lock("o"),
                C::Use {
                    order_id: "o".into(),
                    discount: Money::ZERO,
                },
                C::Expire,
                C::Void,
                C::Unlock {
                    order_id: "o".into(),
                    reason: UnlockReason::Timeout,
                },
                C::Restore {
                    order_id: "o".into(),
                    refund_id: "r".into(),
                },
            ] {
                assert!(decide(&s, &c, at(13)).is_err(), "{status:?} {c:?}");
            }
        }
    }
}
