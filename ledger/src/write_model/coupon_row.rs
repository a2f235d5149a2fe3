//! A coupon's write-model row with what its template says: read by the
//! commands that change coupons (locked) and by the quote's query.

use chrono::{DateTime, Utc};
use tokio_postgres::Row;
use uuid::Uuid;

use super::RowError;
use crate::db::Named;
use crate::domain::coupon::Coupon;
use crate::domain::coupon_state::{CouponState, CouponStatus};
use crate::domain::ids::{ChannelId, TemplateSn, UserId};
use crate::domain::template_status::TemplateStatus;
use crate::domain::terms::{RawTerms, RefundPolicy, Terms};
use crate::domain::validity::Validity;

/// A coupon row with what its template says, locked for the transaction.
#[derive(Clone, Debug)]
pub struct CouponRow {
    pub id: Uuid,
    pub template_sn: TemplateSn,
    pub user_id: UserId,
    pub status: CouponStatus,
    pub order_id: Option<String>,
    pub issued_at: DateTime<Utc>,
    pub effective_at: DateTime<Utc>,
    pub expires_at: DateTime<Utc>,
    pub version: i32,
    pub template_status: TemplateStatus,
    pub refund_policy: RefundPolicy,
    pub terms: RawTerms,
    /// The channel that gave it; a reissue keeps it (docs/design.md §15).
    pub channel_id: Option<ChannelId>,
    /// Whether its template has a budget (docs/design.md §15, "Budgets").
    pub budgeted: bool,
}

pub const SELECT: &str = "SELECT c.id, c.template_sn, c.user_id, c.status, c.order_id, c.issued_at,
        c.effective_at, c.expires_at, c.version, t.status, t.refund_policy, t.terms, c.channel_id,
        EXISTS (SELECT FROM template_budgets b WHERE b.template_sn = c.template_sn)
   FROM coupons c JOIN templates t ON t.sn = c.template_sn";

impl CouponRow {
    pub fn from_row(row: &Row) -> Result<Self, RowError> {
        let unknown = |what: &str| RowError::Unreadable(format!("unknown {what}"));
        let Named(status) = row.try_get::<_, Named<CouponStatus>>(3)?;
        let Named(template_status) = row.try_get::<_, Named<TemplateStatus>>(9)?;
        let refund_policy = row
            .get::<_, &str>(10)
            .parse()
            .map_err(|_| unknown("refund policy"))?;
        let terms =
            serde_json::from_value(row.get(11)).map_err(|e| RowError::Unreadable(e.to_string()))?;
        Ok(Self {
            id: row.get(0),
            template_sn: row.get(1),
            user_id: row.get(2),
            status,
            order_id: row.get(4),
            issued_at: row.get(5),
            effective_at: row.get(6),
            expires_at: row.get(7),
            version: row.get(8),
            template_status,
            refund_policy,
            terms,
            channel_id: row.get(12),
            budgeted: row.get(13),
        })
    }

    pub fn state(&self) -> CouponState {
        CouponState {
            status: self.status,
            order_id: self.order_id.clone(),
            expires_at: self.expires_at,
        }
    }

    /// The coupon as the pricing engine sees it.
    pub fn pricing_coupon(&self) -> Result<Coupon<Uuid>, RowError> {
        let terms = Terms::parse(&self.terms).map_err(|e| RowError::Unreadable(e.to_string()))?;
        Ok(Coupon {
            id: self.id,
            template_sn: self.template_sn.to_string(),
            terms,
            validity: Validity {
                effective_at: self.effective_at,
                expires_at: self.expires_at,
            },
        })
    }
}
