//! Voiding a template voids its coupons (docs/design.md §15): every unused
//! coupon gets one `CouponVoided`, caused by the template's void event and
//! sharing its correlation id. The request voids a first batch; the
//! scanner voids the rest in bounded batches, off the request path. A
//! coupon locked in an order follows its order (`coupons::settle`).

use chrono::{DateTime, Utc};
use deadpool_postgres::Transaction;
use uuid::Uuid;

use super::CommandError;
use super::coupons;
use crate::domain::coupon_state::{CouponCommand, CouponStatus};
use crate::domain::events::Metadata;
use crate::domain::ids::TemplateSn;
use crate::domain::template_status::TemplateStatus;
use crate::write_model::coupon_row::{CouponRow, SELECT};

/// Coupons voided per transaction: one batch holds its row locks briefly.
pub const BATCH: i64 = 500;

/// The template's void event, which each coupon's void names.
#[derive(Clone, Debug, Default)]
pub struct Cause {
    pub event_id: Option<Uuid>,
    pub correlation_id: Option<String>,
}

impl Cause {
    fn metadata(&self) -> Metadata {
        let mut metadata = coupons::system("void");
        if let Some(correlation) = &self.correlation_id {
            metadata.correlation_id.clone_from(correlation);
        }
        metadata.causation_id = self.event_id.map(|id| id.to_string());
        metadata
    }
}

/// Records the void event as the cause the coupons' voids will name.
pub async fn record_cause(
    tx: &Transaction<'_>,
    sn: &TemplateSn,
    cause: &Cause,
) -> Result<(), CommandError> {
    let sql = "UPDATE templates SET void_event_id = $2, void_correlation_id = $3 WHERE sn = $1";
    tx.execute(sql, &[sn, &cause.event_id, &cause.correlation_id])
        .await?;
    Ok(())
}

/// Voids up to `limit` unused coupons of the void template `sn`; returns
/// how many. Rows another transaction holds are skipped (a lock in flight:
/// that coupon follows its order).
pub async fn void_batch(
    tx: &Transaction<'_>,
    sn: &TemplateSn,
    cause: &Cause,
    now: DateTime<Utc>,
    limit: i64,
) -> Result<usize, CommandError> {
    let sql = format!(
        "{SELECT} WHERE c.template_sn = $1 AND c.status = $3 AND t.status = $4
          ORDER BY c.id LIMIT $2 FOR UPDATE OF c SKIP LOCKED"
    );
    let (unused, void) = (CouponStatus::Unused.as_str(), TemplateStatus::Void.as_str());
    let rows = tx
        .query(
            &tx.prepare_cached(&sql).await?,
            &[sn, &limit.clamp(1, 10_000), &unused, &void],
        )
        .await?;
    let rows = rows
        .iter()
        .map(CouponRow::from_row)
        .collect::<Result<Vec<_>, _>>()?;
    coupons::change_many(tx, &rows, &CouponCommand::Void, &cause.metadata(), now).await
}

/// One batch for the scanner: the first void template that still has
/// unused coupons; 0 when none has.
pub async fn void_due(
    tx: &Transaction<'_>,
    now: DateTime<Utc>,
    limit: i64,
) -> Result<usize, CommandError> {
    let sql = "SELECT sn, void_event_id, void_correlation_id FROM templates t
                WHERE status = $1 AND EXISTS (
                      SELECT 1 FROM coupons c WHERE c.template_sn = t.sn AND c.status = $2)
                ORDER BY sn LIMIT 1";
    let (void, unused) = (TemplateStatus::Void.as_str(), CouponStatus::Unused.as_str());
    let Some(row) = tx.query_opt(sql, &[&void, &unused]).await? else {
        return Ok(0);
    };
    let sn: TemplateSn = row.get(0);
    let cause = Cause {
        event_id: row.get(1),
        correlation_id: row.get(2),
    };
    void_batch(tx, &sn, &cause, now, limit).await
}
