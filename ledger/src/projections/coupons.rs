//! Coupon streams: each event moves a coupon from one status bucket to another.

use deadpool_postgres::Transaction;
use rust_decimal::Decimal;
use uuid::Uuid;

use super::{Applied, ApplyError, decimal};
use crate::db::Named;
use crate::domain::coupon_state::CouponStatus;
use crate::domain::projection::{CouponView, Effect, Tally, coupon_effect};
use crate::domain::stream::StreamKind;
use crate::store::{RecordedEvent, read_stream};

/// Applies a coupon stream's event, after any versions missing before it.
pub async fn apply(
    tx: &Transaction<'_>,
    tally: Tally,
    coupon_id: Uuid,
    event: &RecordedEvent,
) -> Result<Applied, ApplyError> {
    let mut view = load(tx, tally, coupon_id).await?;
    let current = view.as_ref().map_or(0, |v| v.version);
    let seen = event.stream_version <= current;
    if seen && !crate::planted::active(crate::planted::Bug::SkipInbox) {
        return Ok(Applied::AlreadyApplied);
    }
    if event.stream_version > current + 1 {
        view = catch_up(tx, tally, coupon_id, view, event.stream_version - 1).await?;
    }
    step(tx, tally, coupon_id, view.as_ref(), event).await?;
    Ok(Applied::Applied)
}

/// Applies the stored versions after the view's, up to `until`; the view after.
pub async fn catch_up(
    tx: &Transaction<'_>,
    tally: Tally,
    coupon_id: Uuid,
    mut view: Option<CouponView>,
    until: i32,
) -> Result<Option<CouponView>, ApplyError> {
    let stream = StreamKind::Coupon.id(coupon_id);
    let current = view.as_ref().map_or(0, |v| v.version);
    let limit = i64::from(until.saturating_sub(current));
    for missing in read_stream(&**tx, &stream, current, limit).await? {
        view = step(tx, tally, coupon_id, view.as_ref(), &missing).await?;
    }
    Ok(view)
}

/// Applies one event that directly follows `view`; the view after it.
async fn step(
    tx: &Transaction<'_>,
    tally: Tally,
    coupon_id: Uuid,
    view: Option<&CouponView>,
    event: &RecordedEvent,
) -> Result<Option<CouponView>, ApplyError> {
    debug_assert_eq!(event.stream_version, view.map_or(0, |v| v.version) + 1);
    let effect = coupon_effect(view, &event.decode()?, event.stream_version)?;
    match &effect {
        Effect::Issued(new) => {
            insert(tx, tally, coupon_id, new).await?;
            move_bucket(tx, tally, new, None).await?;
            if tally != Tally::PerUser {
                count_issued(tx, new.template_sn.as_str()).await?;
            }
            Ok(Some(new.clone()))
        }
        Effect::Moved { from, view: new } => {
            update(tx, tally, coupon_id, new).await?;
            move_bucket(tx, tally, new, Some(*from)).await?;
            Ok(Some(new.clone()))
        }
        _ => Ok(view.cloned()),
    }
}

/// A coupon's view, locked: the lookup each of its events starts with.
pub const LOAD_SQL: &str = "SELECT user_id, template_sn, face_value, status, version, \
     locked_discount FROM projection_coupons WHERE projection = $1 AND coupon_id = $2 FOR UPDATE";

pub async fn load(
    tx: &Transaction<'_>,
    tally: Tally,
    coupon_id: Uuid,
) -> Result<Option<CouponView>, tokio_postgres::Error> {
    let row = tx
        .query_opt(
            &tx.prepare_cached(LOAD_SQL).await?,
            &[&tally.projection().as_str(), &coupon_id],
        )
        .await?;
    let cents = |d: Decimal| (d * Decimal::ONE_HUNDRED).try_into().unwrap_or(i64::MAX);
    let Some(r) = row else { return Ok(None) };
    Ok(Some(CouponView {
        user_id: r.get(0),
        template_sn: r.get(1),
        face_value: cents(r.get(2)),
        // A status that is none of the list fails the event, loudly.
        status: r.try_get::<_, Named<CouponStatus>>(3)?.0,
        version: r.get(4),
        locked_discount: cents(r.get(5)),
    }))
}

async fn insert(
    tx: &Transaction<'_>,
    tally: Tally,
    coupon_id: Uuid,
    v: &CouponView,
) -> Result<(), tokio_postgres::Error> {
    let sql = "INSERT INTO projection_coupons
                 (projection, coupon_id, user_id, template_sn, face_value, status, version)
               VALUES ($1, $2, $3, $4, $5, $6, $7)";
    let params: [&(dyn tokio_postgres::types::ToSql + Sync); 7] = [
        &tally.projection().as_str(),
        &coupon_id,
        &v.user_id,
        &v.template_sn,
        &decimal(v.face_value),
        &v.status.as_str(),
        &v.version,
    ];
    tx.execute(&tx.prepare_cached(sql).await?, &params).await?;
    Ok(())
}

async fn update(
    tx: &Transaction<'_>,
    tally: Tally,
    coupon_id: Uuid,
    v: &CouponView,
) -> Result<(), tokio_postgres::Error> {
    let sql = "UPDATE projection_coupons SET status = $3, version = $4
                WHERE projection = $1 AND coupon_id = $2";
    let params: [&(dyn tokio_postgres::types::ToSql + Sync); 4] = [
        &tally.projection().as_str(),
        &coupon_id,
        &v.status.as_str(),
        &v.version,
    ];
    tx.execute(&tx.prepare_cached(sql).await?, &params).await?;
    Ok(())
}

/// Counts the coupon in its new status and, when it had one, out of `from`.
async fn move_bucket(
    tx: &Transaction<'_>,
    tally: Tally,
    v: &CouponView,
    from: Option<CouponStatus>,
) -> Result<(), tokio_postgres::Error> {
    if from == Some(v.status) {
        return Ok(());
    }
    // One statement for both buckets: they are different rows (from != to).
    // Each projection's buckets are in the table of its name.
    let table = tally.projection().as_str();
    let (owner_column, owner) = match tally {
        Tally::PerUser => ("user_id", v.user_id.as_str()),
        Tally::PerTemplate => ("template_sn", v.template_sn.as_str()),
    };
    let sql = format!(
        "INSERT INTO {table} ({owner_column}, status, count, face_value)
         SELECT $1::text, s, c, c * $2::numeric FROM unnest($3::text[], $4::bigint[]) AS d (s, c)
         ON CONFLICT ({owner_column}, status) DO UPDATE
           SET count = {table}.count + EXCLUDED.count,
               face_value = {table}.face_value + EXCLUDED.face_value"
    );
    let mut statuses = vec![v.status.as_str()];
    let mut counts = vec![1_i64];
    if let Some(from) = from {
        statuses.push(from.as_str());
        counts.push(-1);
    }
    let params: [&(dyn tokio_postgres::types::ToSql + Sync); 4] =
        [&owner, &decimal(v.face_value), &statuses, &counts];
    tx.execute(&tx.prepare_cached(&sql).await?, &params).await?;
    Ok(())
}

async fn count_issued(
    tx: &Transaction<'_>,
    template_sn: &str,
) -> Result<(), tokio_postgres::Error> {
    let sql = "INSERT INTO template_totals (template_sn, issued, cost) VALUES ($1, 1, 0)
               ON CONFLICT (template_sn) DO UPDATE SET issued = template_totals.issued + 1";
    tx.execute(&tx.prepare_cached(sql).await?, &[&template_sn])
        .await?;
    Ok(())
}
