//! The answers stored with an order (its lock's) and with each refund, so
//! that a repeated request is answered again and the order's record
//! (`queries/order_record.rs`) shows them as they were given.

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;
use uuid::Uuid;

use crate::domain::allocation::Allocation;
use crate::domain::money::Money;

/// The answer to a lock: what the order pays and how each coupon's
/// discount is split. Stored with the order, so a repeated lock gets it again.
#[derive(Clone, Debug, Serialize, Deserialize, ToSchema)]
pub struct LockAnswer {
    pub order_id: String,
    pub discount: Money,
    pub payable: Money,
    pub allocations: Vec<AllocationView>,
}

/// One part of one coupon's discount; `line_id` is null for the shipping fee.
#[derive(Clone, Debug, Serialize, Deserialize, ToSchema)]
pub struct AllocationView {
    pub coupon_id: Uuid,
    pub line_id: Option<String>,
    pub amount: Money,
}

impl From<&Allocation<Uuid>> for AllocationView {
    fn from(a: &Allocation<Uuid>) -> Self {
        Self {
            coupon_id: a.coupon_id,
            line_id: a.line_id.clone(),
            amount: a.amount,
        }
    }
}

/// The answer to a refund. Stored with it, so the same refund asked again
/// gets the same answer.
#[derive(Clone, Debug, Serialize, Deserialize, ToSchema)]
pub struct RefundAnswer {
    pub refund_id: String,
    /// Returned to the customer: lines plus shipping.
    pub amount: Money,
    pub lines: Vec<RefundedLineView>,
    /// Set when this refund completes the order's and returns its shipping fee.
    pub shipping_amount: Option<Money>,
    pub coupon_cost_reversed: Money,
    /// Coupons given back under the `restore` policy or reissued.
    pub coupons_returned: Vec<Uuid>,
    pub coupons_reissued: Vec<Reissued>,
    /// Coupons of the `reissue` policy that expired before the refund: they
    /// are refunded and nothing replaces them.
    #[serde(default)]
    pub coupons_not_reissued: Vec<NotReissued>,
}

#[derive(Clone, Debug, Serialize, Deserialize, ToSchema)]
pub struct RefundedLineView {
    pub line_id: String,
    pub quantity: u32,
    pub amount: Money,
}

/// A `reissue` coupon the refund did not replace, and why.
#[derive(Clone, Debug, Serialize, Deserialize, ToSchema)]
pub struct NotReissued {
    pub coupon_id: Uuid,
    /// `expired`: its validity ended before the refund.
    pub reason: String,
}

/// A coupon refunded under the `reissue` policy and the new one replacing it.
#[derive(Clone, Debug, Serialize, Deserialize, ToSchema)]
pub struct Reissued {
    pub from: Uuid,
    pub to: Uuid,
}
