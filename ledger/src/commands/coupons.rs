//! Changing a coupon: every status change goes through the domain state
//! machine ([`coupon_state::decide`]) and is written here, row and event
//! together. Also the batch commands `expire_coupons` and the admin void.

use chrono::{DateTime, Utc};
use deadpool_postgres::Transaction;
use tokio_postgres::types::ToSql;
use uuid::Uuid;

use super::CommandError;
use crate::domain::coupon_state::{self, CouponCommand, CouponState, CouponStatus};
use crate::domain::events::Metadata;
use crate::domain::ids::CouponId;
use crate::domain::ledger_event::LedgerEvent;
use crate::domain::template_status::TemplateStatus;
use crate::store;
use crate::store::NewEvent;
pub use crate::write_model::coupon_row::{CouponRow, SELECT};

/// Most coupons one order may carry, and one batch of the sweepers.
pub const MAX_COUPONS_PER_ORDER: usize = 20;
pub const DEFAULT_BATCH: i64 = 500;

/// The coupons with `ids`, locked in id order (one order for every caller,
/// so concurrent orders cannot deadlock). A coupon gone cold comes back to
/// `coupons` first (docs/design.md §16): only ended coupons are archived,
/// so this costs a second read only when a refund or a refusal meets one.
pub async fn lock_rows(tx: &Transaction<'_>, ids: &[Uuid]) -> Result<Vec<CouponRow>, CommandError> {
    let rows = lock_where(tx, "c.id = ANY($1)", &[&ids]).await?;
    if rows.len() == ids.len() {
        return Ok(rows);
    }
    let missing: Vec<Uuid> = ids
        .iter()
        .filter(|id| !rows.iter().any(|r| r.id == **id))
        .copied()
        .collect();
    // The archiver may have moved a row while this waited for its lock:
    // the row then reads as gone, and is in the archive by now.
    if crate::cold::thaw::thaw(tx, &missing).await? == 0 {
        return Ok(rows);
    }
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
    let rows = rows.iter().map(CouponRow::from_row);
    Ok(rows.collect::<Result<_, _>>()?)
}

/// One coupon's move: its next state by the state machine, and the event
/// that records it. Every status change of a coupon is decided here.
struct Move {
    next: CouponState,
    event: store::StreamEvent,
}

impl Move {
    fn decide(
        coupon: &CouponRow,
        command: &CouponCommand,
        reissued_as: Option<Uuid>,
        metadata: &Metadata,
        now: DateTime<Utc>,
    ) -> Result<Self, CommandError> {
        let change = coupon_state::decide(&coupon.state(), command, now)?;
        let next = coupon_state::apply(&coupon.state(), &change);
        let event = LedgerEvent::coupon_changed(coupon.id, &change, reissued_as);
        let event = store::StreamEvent {
            stream_id: CouponId(coupon.id).stream_id(),
            stream_version: coupon.version + 1,
            event: NewEvent::of(&event, metadata, now)?,
        };
        Ok(Self { next, event })
    }
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
    let Move { next, event } = Move::decide(coupon, command, reissued_as, metadata, now)?;
    store::append_with_row(
        tx,
        "UPDATE coupons SET status = $2, order_id = $3, version = version + 1, changed_at = $5
          WHERE id = $1 AND version = $4 RETURNING version",
        &[
            &coupon.id,
            &next.status.as_str(),
            &next.order_id,
            &coupon.version,
            &now,
        ],
        &event.stream_id,
        coupon.version,
        &event.event,
    )
    .await?;
    Ok(next)
}

/// Applies `command` to many coupons the caller locked (`FOR UPDATE`), as
/// [`change`] would to each, in two statements: one UPDATE of the rows, one
/// COPY of their events. The void and expiry sweeps move tens of thousands
/// of coupons (docs/design.md §15): a statement per coupon made them crawl.
/// A coupon the command cannot apply to fails the whole batch.
pub async fn change_many(
    tx: &Transaction<'_>,
    coupons: &[CouponRow],
    command: &CouponCommand,
    metadata: &Metadata,
    now: DateTime<Utc>,
) -> Result<usize, CommandError> {
    let (mut ids, mut statuses, mut orders, mut versions, mut events) =
        (vec![], vec![], vec![], vec![], vec![]);
    for coupon in coupons {
        let Move { next, event } = Move::decide(coupon, command, None, metadata, now)?;
        events.push(event);
        ids.push(coupon.id);
        statuses.push(next.status.as_str());
        orders.push(next.order_id);
        versions.push(coupon.version);
    }
    if ids.is_empty() {
        return Ok(0);
    }
    let sql = "UPDATE coupons c SET status = x.status, order_id = x.order_id,
                      version = c.version + 1, changed_at = $5
                 FROM unnest($1::uuid[], $2::text[], $3::text[], $4::int[])
                      AS x (id, status, order_id, version)
                WHERE c.id = x.id AND c.version = x.version";
    let params: [&(dyn ToSql + Sync); 5] = [&ids, &statuses, &orders, &versions, &now];
    let moved = tx.execute(&tx.prepare_cached(sql).await?, &params).await?;
    // The rows are locked: a version that moved means a caller that did
    // not lock them, a bug to stop at rather than write past.
    if moved != ids.len() as u64 {
        return Err(store::StoreError::VersionConflict {
            stream_id: "a coupon of the batch".into(),
            expected: 0,
        }
        .into());
    }
    store::copy_events(tx, &events).await?;
    Ok(ids.len())
}

/// Expires unused coupons past their expiry, in one bounded batch; returns
/// how many. Concurrent sweepers skip each other's rows (SKIP LOCKED).
pub async fn expire_coupons(
    tx: &Transaction<'_>,
    now: DateTime<Utc>,
    batch: i64,
) -> Result<usize, CommandError> {
    // The status is written into the text, not bound, so that the partial
    // index `coupons_unused_expiry` serves the prepared statement.
    let sql = format!(
        "{SELECT} WHERE c.status = '{unused}' AND c.expires_at < $1
          ORDER BY c.expires_at LIMIT $2 FOR UPDATE OF c SKIP LOCKED",
        unused = CouponStatus::Unused.as_str()
    );
    let rows = tx
        .query(
            &tx.prepare_cached(&sql).await?,
            &[&now, &batch.clamp(1, 10_000)],
        )
        .await?;
    let coupons = rows
        .iter()
        .map(CouponRow::from_row)
        .collect::<Result<Vec<_>, _>>()?;
    change_many(tx, &coupons, &CouponCommand::Expire, &system("expiry"), now).await
}

/// Settles one coupon of an order with `command` (confirm, cancel,
/// timeout). A coupon released while its template is void is voided in
/// the same transaction instead of returned (docs/design.md §15).
pub async fn settle(
    tx: &Transaction<'_>,
    coupon: &CouponRow,
    command: &CouponCommand,
    metadata: &Metadata,
    now: DateTime<Utc>,
) -> Result<CouponState, CommandError> {
    let state = change(tx, coupon, command, None, metadata, now).await?;
    let released = matches!(command, CouponCommand::Unlock { .. });
    if !released || coupon.template_status != TemplateStatus::Void {
        return Ok(state);
    }
    let unlocked = CouponRow {
        status: state.status,
        order_id: state.order_id.clone(),
        version: coupon.version + 1,
        ..coupon.clone()
    };
    change(tx, &unlocked, &CouponCommand::Void, None, metadata, now).await
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
