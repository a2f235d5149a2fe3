//! Changing a coupon: every status change goes through the domain state
//! machine ([`coupon_state::decide`]) and is written here, row and event
//! together. Also the batch commands `expire_coupons` and the admin void.

use chrono::{DateTime, Utc};
use deadpool_postgres::Transaction;
use tokio_postgres::Row;
use tokio_postgres::types::ToSql;
use uuid::Uuid;

use super::CommandError;
use crate::domain::coupon::Coupon;
use crate::domain::coupon_state::{self, CouponCommand, CouponState, CouponStatus};
use crate::domain::events::Metadata;
use crate::domain::ids::CouponId;
use crate::domain::ledger_event::LedgerEvent;
use crate::domain::template_status::TemplateStatus;
use crate::domain::terms::{RawTerms, RefundPolicy, Terms};
use crate::domain::validity::Validity;
use crate::store;
use crate::store::NewEvent;

/// Most coupons one order may carry, and one batch of the sweepers.
pub const MAX_COUPONS_PER_ORDER: usize = 20;
pub const DEFAULT_BATCH: i64 = 500;

/// A coupon row with what its template says, locked for the transaction.
#[derive(Clone, Debug)]
pub struct CouponRow {
    pub id: Uuid,
    pub template_sn: String,
    pub user_id: String,
    pub status: CouponStatus,
    pub order_id: Option<String>,
    pub issued_at: DateTime<Utc>,
    pub effective_at: DateTime<Utc>,
    pub expires_at: DateTime<Utc>,
    pub version: i32,
    pub template_status: TemplateStatus,
    pub refund_policy: RefundPolicy,
    pub terms: RawTerms,
}

pub(crate) const SELECT: &str =
    "SELECT c.id, c.template_sn, c.user_id, c.status, c.order_id, c.issued_at,
        c.effective_at, c.expires_at, c.version, t.status, t.refund_policy, t.terms
   FROM coupons c JOIN templates t ON t.sn = c.template_sn";

impl CouponRow {
    pub(crate) fn from_row(row: &Row) -> Result<Self, CommandError> {
        let unknown = |what: &str| CommandError::Internal(anyhow::anyhow!("unknown {what}"));
        let status = CouponStatus::parse(row.get(3)).ok_or_else(|| unknown("coupon status"))?;
        let template_status =
            TemplateStatus::parse(row.get(9)).ok_or_else(|| unknown("template status"))?;
        let refund_policy = row
            .get::<_, &str>(10)
            .parse()
            .map_err(|_| unknown("refund policy"))?;
        let terms =
            serde_json::from_value(row.get(11)).map_err(|e| CommandError::Internal(e.into()))?;
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
    pub fn pricing_coupon(&self) -> Result<Coupon<Uuid>, CommandError> {
        let terms = Terms::parse(&self.terms)
            .map_err(|e| CommandError::Internal(anyhow::anyhow!("{e}")))?;
        Ok(Coupon {
            id: self.id,
            template_sn: self.template_sn.clone(),
            terms,
            validity: Validity {
                effective_at: self.effective_at,
                expires_at: self.expires_at,
            },
        })
    }
}

/// The coupons with `ids`, locked in id order (one order for every caller,
/// so concurrent orders cannot deadlock).
pub async fn lock_rows(tx: &Transaction<'_>, ids: &[Uuid]) -> Result<Vec<CouponRow>, CommandError> {
    lock_where(tx, "c.id = ANY($1)", &[&ids]).await
}

/// The coupons an order holds, locked in id order like [`lock_rows`]. The
/// order's row is read by the statement itself, so a caller can send this
/// together with its own read of the order (one round trip).
pub async fn lock_rows_of_order(
    tx: &Transaction<'_>,
    order_id: &str,
) -> Result<Vec<CouponRow>, CommandError> {
    // The cast makes ANY take the array, not the subquery's rows.
    let held = "c.id = ANY((SELECT coupon_ids FROM orders WHERE order_id = $1)::uuid[])";
    lock_where(tx, held, &[&order_id]).await
}

/// The coupons matching `condition`, locked in id order.
async fn lock_where(
    tx: &Transaction<'_>,
    condition: &str,
    params: &[&(dyn ToSql + Sync)],
) -> Result<Vec<CouponRow>, CommandError> {
    let sql = format!("{SELECT} WHERE {condition} ORDER BY c.id FOR UPDATE OF c");
    let rows = tx.query(&tx.prepare_cached(&sql).await?, params).await?;
    rows.iter().map(CouponRow::from_row).collect()
}

/// Applies `command` to the coupon through the state machine: updates the
/// row and appends the event (one statement), or refuses without touching
/// anything. Calls for different coupons may run pipelined.
pub async fn change(
    tx: &Transaction<'_>,
    coupon: &CouponRow,
    command: &CouponCommand,
    reissued_as: Option<Uuid>,
    metadata: &Metadata,
    now: DateTime<Utc>,
) -> Result<CouponState, CommandError> {
    let change = coupon_state::decide(&coupon.state(), command, now)?;
    let next = coupon_state::apply(&coupon.state(), &change);
    let event = LedgerEvent::coupon_changed(coupon.id, &change, reissued_as);
    let event = NewEvent::of(&event, metadata, now)?;
    store::append_with_row(
        tx,
        "UPDATE coupons SET status = $2, order_id = $3, version = version + 1
          WHERE id = $1 AND version = $4 RETURNING version",
        &[
            &coupon.id,
            &next.status.as_str(),
            &next.order_id,
            &coupon.version,
        ],
        &CouponId(coupon.id).stream_id(),
        coupon.version,
        &event,
    )
    .await?;
    Ok(next)
}

/// Expires unused coupons past their expiry, in one bounded batch; returns
/// how many. Concurrent sweepers skip each other's rows (SKIP LOCKED).
pub async fn expire_coupons(
    tx: &Transaction<'_>,
    now: DateTime<Utc>,
    batch: i64,
) -> Result<usize, CommandError> {
    let sql = format!(
        "{SELECT} WHERE c.status = 'unused' AND c.expires_at < $1
          ORDER BY c.expires_at LIMIT $2 FOR UPDATE OF c SKIP LOCKED"
    );
    let rows = tx
        .query(
            &tx.prepare_cached(&sql).await?,
            &[&now, &batch.clamp(1, 10_000)],
        )
        .await?;
    let metadata = system("expiry");
    let mut expired = 0;
    for row in &rows {
        let coupon = CouponRow::from_row(row)?;
        change(tx, &coupon, &CouponCommand::Expire, None, &metadata, now).await?;
        expired += 1;
    }
    Ok(expired)
}

/// Voids one unused coupon (admin).
pub async fn void(
    tx: &Transaction<'_>,
    id: Uuid,
    metadata: &Metadata,
    now: DateTime<Utc>,
) -> Result<CouponState, CommandError> {
    let coupon = lock_rows(tx, &[id])
        .await?
        .pop()
        .ok_or_else(|| CommandError::not_found("coupon", id))?;
    change(tx, &coupon, &CouponCommand::Void, None, metadata, now).await
}

/// Metadata of changes the system makes by itself.
pub fn system(worker: &str) -> Metadata {
    Metadata {
        actor: format!("system:{worker}"),
        correlation_id: Uuid::now_v7().to_string(),
        ..Default::default()
    }
}
