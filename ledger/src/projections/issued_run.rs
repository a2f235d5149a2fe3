//! A run of `CouponIssued` events applied set-based: what bulk issuance
//! produces (a million first versions in a row) costs three statements per
//! run instead of four round trips per event. The effect is the same as
//! [`super::coupons::apply`] event by event: a coupon the projection knows
//! already is skipped (a redelivery), every new one is counted `unused`.

use std::collections::BTreeMap;

use deadpool_postgres::Transaction;
use tokio_postgres::types::ToSql;
use uuid::Uuid;

use super::{ApplyError, decimal, record_positions};
use crate::domain::coupon_state::CouponStatus;
use crate::domain::ledger_event::EventType;
use crate::domain::projection::{CouponView, Effect, Tally, coupon_effect};
use crate::domain::stream::{Stream, StreamKind};
use crate::store::RecordedEvent;

/// Events per run at most: the arrays of one statement stay bounded.
pub const MAX_RUN: usize = 2_000;

/// Whether `event` opens a coupon stream (a run's member).
pub fn is_first_issue(event: &RecordedEvent) -> bool {
    event.stream_version == 1
        && event.event_type == EventType::CouponIssued
        && matches!(Stream::parse(&event.stream_id), Ok(Stream::Coupon(_)))
}

/// Applies a run of first `CouponIssued` events; on failure, the index (in
/// `events`) to blame.
pub async fn apply(
    tx: &Transaction<'_>,
    tally: Tally,
    events: &[RecordedEvent],
) -> Result<(), (usize, ApplyError)> {
    debug_assert!(events.len() <= MAX_RUN && events.iter().all(is_first_issue));
    let mut views = Vec::with_capacity(events.len());
    for (i, event) in events.iter().enumerate() {
        views.push(view_of(event).map_err(|e| (i, e))?);
    }
    let blame_first = |e: tokio_postgres::Error| (0, ApplyError::from(e));
    let mut new = insert_new(tx, tally, &views).await.map_err(blame_first)?;
    // `remove`: a coupon twice in one run is counted once.
    let fresh: Vec<&CouponView> = views
        .iter()
        .filter(|(id, _)| new.remove(id) || crate::planted::active(crate::planted::Bug::SkipInbox))
        .map(|(_, v)| v)
        .collect();
    count_unused(tx, tally, &fresh).await.map_err(blame_first)?;
    if tally != Tally::PerUser {
        count_issued(tx, &fresh).await.map_err(blame_first)?;
    }
    // The latest in commit order: a repeat may come last.
    let Some(last) = events.iter().max_by_key(|e| (e.tx_id, e.position)) else {
        return Ok(());
    };
    // Repeats (coupons the projection knew) are not counted as given.
    let count = i64::try_from(fresh.len()).unwrap_or(i64::MAX);
    record_positions(tx, tally.projection(), last, count)
        .await
        .map_err(blame_first)
}

fn view_of(event: &RecordedEvent) -> Result<(Uuid, CouponView), ApplyError> {
    let Ok(Stream::Coupon(id)) = Stream::parse(&event.stream_id) else {
        unreachable!("a run holds coupon streams only (is_first_issue)");
    };
    debug_assert_eq!(StreamKind::Coupon.id(id), event.stream_id);
    match coupon_effect(None, &event.decode()?, event.stream_version)? {
        Effect::Issued(view) => Ok((id, view)),
        _ => unreachable!(
            "{} at version 1 issues (coupon_effect)",
            EventType::CouponIssued
        ),
    }
}

/// Inserts the coupons the projection does not know; their ids.
async fn insert_new(
    tx: &Transaction<'_>,
    tally: Tally,
    views: &[(Uuid, CouponView)],
) -> Result<std::collections::HashSet<Uuid>, tokio_postgres::Error> {
    let ids: Vec<Uuid> = views.iter().map(|(id, _)| *id).collect();
    let users: Vec<&str> = views.iter().map(|(_, v)| v.user_id.as_str()).collect();
    let templates: Vec<&str> = views.iter().map(|(_, v)| v.template_sn.as_str()).collect();
    let faces: Vec<_> = views.iter().map(|(_, v)| decimal(v.face_value)).collect();
    let sql = "INSERT INTO projection_coupons
                 (projection, coupon_id, user_id, template_sn, face_value, status, version)
               SELECT $1, c, u, t, f, $6, 1
                 FROM unnest($2::uuid[], $3::text[], $4::text[], $5::numeric[]) AS x (c, u, t, f)
               ON CONFLICT (projection, coupon_id) DO NOTHING
               RETURNING coupon_id";
    let unused = CouponStatus::Unused.as_str();
    let params: [&(dyn ToSql + Sync); 6] = [
        &tally.projection().as_str(),
        &ids,
        &users,
        &templates,
        &faces,
        &unused,
    ];
    let rows = tx.query(&tx.prepare_cached(sql).await?, &params).await?;
    Ok(rows.iter().map(|r| r.get(0)).collect())
}

/// Adds the new coupons to their owners' `unused` buckets, one row per owner.
async fn count_unused(
    tx: &Transaction<'_>,
    tally: Tally,
    fresh: &[&CouponView],
) -> Result<(), tokio_postgres::Error> {
    // Each projection's buckets are in the table of its name.
    let table = tally.projection().as_str();
    let column = match tally {
        Tally::PerUser => "user_id",
        Tally::PerTemplate => "template_sn",
    };
    // Sorted owners: concurrent batches take the bucket rows in one order.
    let mut per_owner: BTreeMap<&str, (i64, i64)> = BTreeMap::new();
    for v in fresh {
        let owner = match tally {
            Tally::PerUser => v.user_id.as_str(),
            Tally::PerTemplate => v.template_sn.as_str(),
        };
        let entry = per_owner.entry(owner).or_default();
        entry.0 += 1;
        entry.1 += v.face_value;
    }
    if per_owner.is_empty() {
        return Ok(());
    }
    let owners: Vec<&str> = per_owner.keys().copied().collect();
    let counts: Vec<i64> = per_owner.values().map(|(n, _)| *n).collect();
    let faces: Vec<_> = per_owner.values().map(|(_, f)| decimal(*f)).collect();
    let sql = format!(
        "INSERT INTO {table} ({column}, status, count, face_value)
         SELECT o, $4, n, f FROM unnest($1::text[], $2::bigint[], $3::numeric[]) AS x (o, n, f)
         ON CONFLICT ({column}, status) DO UPDATE
           SET count = {table}.count + EXCLUDED.count,
               face_value = {table}.face_value + EXCLUDED.face_value"
    );
    let unused = CouponStatus::Unused.as_str();
    let params: [&(dyn ToSql + Sync); 4] = [&owners, &counts, &faces, &unused];
    tx.execute(&tx.prepare_cached(&sql).await?, &params).await?;
    Ok(())
}

/// Adds the new coupons to their templates' issued totals.
async fn count_issued(
    tx: &Transaction<'_>,
    fresh: &[&CouponView],
) -> Result<(), tokio_postgres::Error> {
    let mut per_template: BTreeMap<&str, i64> = BTreeMap::new();
    for v in fresh {
        *per_template.entry(v.template_sn.as_str()).or_default() += 1;
    }
    if per_template.is_empty() {
        return Ok(());
    }
    let templates: Vec<&str> = per_template.keys().copied().collect();
    let counts: Vec<i64> = per_template.values().copied().collect();
    let sql = "INSERT INTO template_totals (template_sn, issued, cost)
               SELECT t, n, 0 FROM unnest($1::text[], $2::bigint[]) AS x (t, n)
               ON CONFLICT (template_sn) DO UPDATE
                 SET issued = template_totals.issued + EXCLUDED.issued";
    tx.execute(&tx.prepare_cached(sql).await?, &[&templates, &counts])
        .await?;
    Ok(())
}
