//! The notify projection's `CouponsGranted` rows (docs/design.md §10): one
//! `notify_msg` row per (issuance job, user) for the coupons of a job that
//! asked `notify=true`, in the caller's transaction.
//!
//! A row is pending while it is unsent and its user holds a live coupon
//! (unused or locked) of its job, cancelled while they hold none: the first
//! coupon of the job makes it, a later one (another line, another chunk)
//! keeps it or makes it pending again, the last one to leave cancels it,
//! one coming back makes it pending again. Sent and failed rows are the
//! sender's and stay as they are. Whether a user holds another live coupon
//! of the job is asked of `notify_coupons.granted_job`, the projection's
//! own state, never of the write model (see `notify`).

use chrono::{DateTime, NaiveDate, Utc};
use deadpool_postgres::Transaction;
use tokio_postgres::types::ToSql;
use uuid::Uuid;

use crate::domain::coupon_state::CouponStatus;
use crate::domain::reminder::{NotifyStatus, NotifyType};

const GRANTED: NotifyType = NotifyType::CouponsGranted;

/// A new coupon of a job that asked `notify=true`.
pub struct Grant<'a> {
    pub coupon_id: Uuid,
    pub user_id: &'a str,
    pub template_sn: &'a str,
    pub job_id: Uuid,
    /// Its business day and instant of issue: the row's `notify_day` and
    /// `notify_time` (due at once; the sender waits for the job's end).
    pub day: NaiveDate,
    pub at: DateTime<Utc>,
}

/// Makes the rows of new coupons, one per (job, user); an existing row is
/// kept, a cancelled one is pending again (the user holds a live coupon of
/// the job once more).
pub async fn add(tx: &Transaction<'_>, grants: &[Grant<'_>]) -> Result<(), tokio_postgres::Error> {
    let mut seen = std::collections::HashSet::new();
    // One statement may not touch a row twice.
    let grants: Vec<&Grant> = grants
        .iter()
        .filter(|g| seen.insert((g.job_id, g.user_id)))
        .collect();
    if grants.is_empty() {
        return Ok(());
    }
    let ids: Vec<Uuid> = grants.iter().map(|g| g.coupon_id).collect();
    let users: Vec<&str> = grants.iter().map(|g| g.user_id).collect();
    let templates: Vec<&str> = grants.iter().map(|g| g.template_sn).collect();
    let jobs: Vec<Uuid> = grants.iter().map(|g| g.job_id).collect();
    let days: Vec<NaiveDate> = grants.iter().map(|g| g.day).collect();
    let times: Vec<DateTime<Utc>> = grants.iter().map(|g| g.at).collect();
    let sql = "INSERT INTO notify_msg
                 (coupon_id, user_id, template_sn, notify_day, notify_type, notify_time, status, job_id)
               SELECT c, u, t, d, $7, at, $8, j
                 FROM unnest($1::uuid[], $2::text[], $3::text[], $4::date[], $5::timestamptz[],
                             $6::uuid[]) AS r (c, u, t, d, at, j)
               ON CONFLICT (job_id, user_id) WHERE notify_type = 2 DO UPDATE
                 SET status = $8 WHERE notify_msg.status = $9";
    let params: [&(dyn ToSql + Sync); 9] = [
        &ids,
        &users,
        &templates,
        &days,
        &times,
        &jobs,
        &GRANTED.code(),
        &NotifyStatus::Pending.code(),
        &NotifyStatus::Cancelled.code(),
    ];
    tx.execute(&tx.prepare_cached(sql).await?, &params).await?;
    Ok(())
}

/// A coupon of `job_id` left its user: the pending row is cancelled unless
/// they hold another live coupon of the job (the coupon's own state is
/// already saved).
pub async fn cancel(
    tx: &Transaction<'_>,
    coupon_id: Uuid,
    (user_id, template_sn): (&str, &str),
    job_id: Uuid,
) -> Result<(), tokio_postgres::Error> {
    let sql = "UPDATE notify_msg m SET status = $6
                WHERE m.notify_type = $3 AND m.job_id = $4 AND m.user_id = $1 AND m.status = $5
                  AND NOT EXISTS (
                      SELECT 1 FROM notify_coupons c
                       WHERE c.user_id = $1 AND c.template_sn = $2 AND c.granted_job = $4
                         AND c.coupon_id <> $7 AND c.status = ANY($8))";
    // The coupon statuses a user still holds.
    let live = [CouponStatus::Unused.as_str(), CouponStatus::Locked.as_str()];
    let params: [&(dyn ToSql + Sync); 8] = [
        &user_id,
        &template_sn,
        &GRANTED.code(),
        &job_id,
        &NotifyStatus::Pending.code(),
        &NotifyStatus::Cancelled.code(),
        &coupon_id,
        &live.as_slice(),
    ];
    tx.execute(&tx.prepare_cached(sql).await?, &params).await?;
    Ok(())
}

/// A coupon of `job_id` came back to its user: a cancelled row is pending again.
pub async fn restore(
    tx: &Transaction<'_>,
    user_id: &str,
    job_id: Uuid,
) -> Result<(), tokio_postgres::Error> {
    let sql = "UPDATE notify_msg SET status = $4
                WHERE notify_type = $1 AND job_id = $2 AND user_id = $3 AND status = $5";
    let params: [&(dyn ToSql + Sync); 5] = [
        &GRANTED.code(),
        &job_id,
        &user_id,
        &NotifyStatus::Pending.code(),
        &NotifyStatus::Cancelled.code(),
    ];
    tx.execute(&tx.prepare_cached(sql).await?, &params).await?;
    Ok(())
}
