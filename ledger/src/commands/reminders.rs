//! The notification sender (docs/design.md §10): due `notify_msg` rows →
//! messages on `coupon.notifications`: ONE `ExpiryReminder` per user and
//! day, ONE `CouponsGranted` per row (per issuance job and user, once the
//! job has ended, [`super::granted`]). A batch's rows are marked sent in
//! the transaction that publishes them, and committed after the broker
//! committed the batch (the publisher given decides how the broker takes
//! it; the worker's is transactional, `messaging::tx_publish`).
//!
//! Several senders may run at once. Each claims due rows with `FOR UPDATE
//! SKIP LOCKED` in bounded batches; a user's day is then taken whole under a
//! transaction-level advisory lock on (user, day), so two senders never both
//! send a message for the same user and day: the one without the lock leaves
//! that day alone, the one with it waits for and takes every due row of it.
//! A granted row is a message of its own: its row lock is enough.
//! "Now" is a parameter: the worker passes the clock, tests pass any instant.

use std::collections::BTreeMap;

use chrono::{DateTime, Duration, NaiveDate, Utc};
use deadpool_postgres::{Pool, Transaction};
use rust_decimal::Decimal;
use tokio_postgres::types::ToSql;
use uuid::Uuid;

use super::granted::{self, DueGrant};
use crate::domain::coupon_state::CouponStatus;
use crate::domain::issuance::IssuanceJobStatus;
use crate::domain::money::Money;
use crate::domain::reminder::{
    EXPIRY_REMINDER, ExpiryReminder, NotifyStatus, NotifyType, RemindedCoupon,
};
use crate::domain::template_status::TemplateStatus;
use crate::messaging::lazy_publisher::LazyPublisher;
use crate::messaging::message::Outgoing;
use crate::messaging::publish::PublishError;
use crate::messaging::tx_publish::Mark;
use crate::messaging::{granted_message, reminder_message, topology};

/// The advisory lock class of (user, day) claims (two-key space: apart from
/// the single-key locks of the relay and migrations).
const USER_DAY_LOCK_CLASS: i32 = 0x4e4f_5449; // "NOTI"
/// The most rows one batch claims.
pub const MAX_BATCH: i64 = 5_000;

#[derive(Clone, Copy, Debug)]
pub struct SendLimits {
    /// Rows claimed per batch (1..=[`MAX_BATCH`]).
    pub batch: i64,
    /// Failed publishes of a row before it is `failed`.
    pub max_attempts: i32,
}

impl Default for SendLimits {
    fn default() -> Self {
        Self {
            batch: 500,
            max_attempts: 10,
        }
    }
}

#[derive(Debug, thiserror::Error)]
pub enum SendError {
    #[error("database: {}", pg_text(.0))]
    Db(#[from] tokio_postgres::Error),
    #[error("database pool: {0}")]
    Pool(#[from] deadpool_postgres::PoolError),
    #[error("encoding a notification: {0}")]
    Encode(#[from] serde_json::Error),
    /// The broker's marks of published batches could not be read or removed.
    #[error("settling published batches: {0}")]
    Publish(#[from] PublishError),
}

/// The server's message when there is one ("db error" alone says nothing).
fn pg_text(e: &tokio_postgres::Error) -> String {
    e.as_db_error()
        .map_or_else(|| e.to_string(), ToString::to_string)
}

/// What one run did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SendReport {
    /// Messages of either type.
    pub messages: u64,
    /// Of them, `CouponsGranted`.
    pub granted: u64,
    pub rows_sent: u64,
    /// Rows whose publish failed (left pending, or `failed` at the bound).
    pub rows_failed: u64,
    /// Publishes that failed (the broker down or refusing).
    pub publish_errors: u64,
}

/// Sends every reminder due at `now`, batch after batch, until none is left
/// that this run has not seen. Stops at the first failed publish (the
/// broker is down: the next run retries).
pub async fn send_due(
    pool: &Pool,
    publisher: &LazyPublisher,
    now: DateTime<Utc>,
    limits: SendLimits,
) -> Result<SendReport, SendError> {
    let mut report = SendReport::default();
    // The projection fills notify_msg in bulk; planned on stale statistics,
    // the lookup of a batch's user-days scanned every due row per pair.
    let client = pool.get().await?;
    crate::db::analyze_if_stale(&client, "notify_msg").await?;
    drop(client);
    // Before any row (Postgres' timestamptz starts long after MIN_UTC).
    let mut after = (DateTime::<Utc>::UNIX_EPOCH, 0_i64);
    loop {
        // Every batch the broker committed is marked sent before the next
        // is claimed (a sender killed after the broker's commit, before
        // Postgres', left its mark): none goes out twice.
        if !settled(pool, publisher, now, &mut report).await? {
            return Ok(report);
        }
        let mut client = pool.get().await?;
        let tx = client.transaction().await?;
        let Some(batch) = claim(&tx, now, after, limits.batch).await? else {
            return Ok(report);
        };
        after = batch.last;
        let outcome = send_batch(&tx, publisher, now, &batch, limits).await?;
        tx.commit().await?;
        report.messages += outcome.messages;
        report.granted += outcome.granted;
        report.rows_sent += outcome.rows_sent;
        report.rows_failed += outcome.rows_failed;
        if outcome.publish_errors > 0 {
            report.publish_errors += outcome.publish_errors;
            return Ok(report);
        }
    }
}

/// Marks sent the rows of every published batch's mark waiting
/// (`messaging::tx_publish`), then removes the marks; false when the broker
/// could not be asked (counted as a failed publish: nothing may be sent
/// before the marks are settled).
async fn settled(
    pool: &Pool,
    publisher: &LazyPublisher,
    now: DateTime<Utc>,
    report: &mut SendReport,
) -> Result<bool, SendError> {
    let settle = |marks: Vec<Mark>| async move {
        let ids: Vec<i64> = marks.iter().flat_map(|m| m.rows.iter().copied()).collect();
        let mut client = pool.get().await?;
        let tx = client.transaction().await?;
        let n = mark_sent(&tx, &ids, now).await?;
        tx.commit().await?;
        if n > 0 {
            tracing::info!(
                rows = n,
                "rows the broker had committed before a sender stopped: marked sent"
            );
        }
        Ok::<(), SendError>(())
    };
    match publisher.settle_marks(settle).await {
        Ok(_) => Ok(true),
        Err(SendError::Publish(e)) => {
            tracing::warn!(error = %e, "published batches not settled; nothing sent this run");
            report.publish_errors += 1;
            Ok(false)
        }
        Err(e) => Err(e),
    }
}

/// Due reminder rows grouped by (user, day), each day taken whole, and
/// due granted rows.
struct Claimed {
    days: BTreeMap<(String, NaiveDate), Vec<DueRow>>,
    grants: Vec<DueGrant>,
    /// Where the next batch starts (notify_time, id).
    last: (DateTime<Utc>, i64),
}

struct DueRow {
    id: i64,
    template_sn: String,
}

/// Claims the next batch: rows after `after`, then the whole of each
/// (user, day) this sender got the advisory lock of. None: nothing left.
/// A granted row is due once its job has ended (or was purged): a user
/// listed again in a later chunk then has every coupon in one message.
async fn claim(
    tx: &Transaction<'_>,
    now: DateTime<Utc>,
    after: (DateTime<Utc>, i64),
    batch: i64,
) -> Result<Option<Claimed>, tokio_postgres::Error> {
    let sql = "SELECT m.id, m.user_id, m.notify_day, m.notify_time, m.notify_type, m.job_id,
                      m.template_sn
                 FROM notify_msg m
                WHERE m.status = $1 AND m.notify_time <= $2 AND (m.notify_time, m.id) > ($3, $4)
                  AND (m.job_id IS NULL OR NOT EXISTS (
                       SELECT 1 FROM issuance_jobs j WHERE j.id = m.job_id AND j.status <> ALL($6)))
                ORDER BY m.notify_time, m.id LIMIT $5 FOR UPDATE OF m SKIP LOCKED";
    let ended = IssuanceJobStatus::final_names();
    let params: [&(dyn ToSql + Sync); 6] = [
        &NotifyStatus::Pending.code(),
        &now,
        &after.0,
        &after.1,
        &batch.clamp(1, MAX_BATCH),
        &ended,
    ];
    let rows = tx.query(&tx.prepare_cached(sql).await?, &params).await?;
    let Some(last) = rows.last() else {
        return Ok(None);
    };
    let last = (last.get::<_, DateTime<Utc>>(3), last.get::<_, i64>(0));
    let (mut users, mut days, mut grants) = (Vec::new(), Vec::new(), Vec::new());
    for r in &rows {
        match NotifyType::from_code(r.get(4)) {
            Some(NotifyType::ExpiryReminder) => {
                users.push(r.get::<_, String>(1));
                days.push(r.get::<_, NaiveDate>(2));
            }
            Some(NotifyType::CouponsGranted) => grants.push(DueGrant {
                id: r.get(0),
                user_id: r.get(1),
                job_id: r.get::<_, Option<Uuid>>(5).unwrap_or_default(),
                template_sn: r.get(6),
            }),
            // A type of a later release: left to the sender that knows it.
            None => {}
        }
    }
    let (users, days) = lock_user_days(tx, users, days).await?;
    let days = whole_days(tx, now, &users, &days).await?;
    Ok(Some(Claimed { days, grants, last }))
}

/// The (user, day) pairs whose advisory lock this transaction got.
async fn lock_user_days(
    tx: &Transaction<'_>,
    users: Vec<String>,
    days: Vec<NaiveDate>,
) -> Result<(Vec<String>, Vec<NaiveDate>), tokio_postgres::Error> {
    // Sorted and distinct, so two senders take locks in one order.
    let sql =
        "SELECT u, d FROM (SELECT DISTINCT u, d FROM unnest($1::text[], $2::date[]) AS x (u, d)
                                 ORDER BY u, d) AS p
                WHERE pg_try_advisory_xact_lock($3, hashtext(u || '|' || d::text))";
    let rows = tx
        .query(
            &tx.prepare_cached(sql).await?,
            &[&users, &days, &USER_DAY_LOCK_CLASS],
        )
        .await?;
    Ok(rows
        .iter()
        .map(|r| (r.get::<_, String>(0), r.get::<_, NaiveDate>(1)))
        .unzip())
}

/// Every due pending row of the locked (user, day) pairs, locked; rows a
/// sender that lost the advisory lock still holds are waited for.
async fn whole_days(
    tx: &Transaction<'_>,
    now: DateTime<Utc>,
    users: &[String],
    days: &[NaiveDate],
) -> Result<BTreeMap<(String, NaiveDate), Vec<DueRow>>, tokio_postgres::Error> {
    let sql = "SELECT m.id, m.user_id, m.notify_day, m.template_sn
                 FROM notify_msg m JOIN unnest($1::text[], $2::date[]) AS x (u, d)
                   ON m.user_id = x.u AND m.notify_day = x.d
                WHERE m.status = $3 AND m.notify_time <= $4 AND m.notify_type = $5
                ORDER BY m.id FOR UPDATE OF m";
    let params: [&(dyn ToSql + Sync); 5] = [
        &users,
        &days,
        &NotifyStatus::Pending.code(),
        &now,
        &EXPIRY_REMINDER.code(),
    ];
    let mut out: BTreeMap<(String, NaiveDate), Vec<DueRow>> = BTreeMap::new();
    for r in tx.query(&tx.prepare_cached(sql).await?, &params).await? {
        out.entry((r.get(1), r.get(2))).or_default().push(DueRow {
            id: r.get(0),
            template_sn: r.get(3),
        });
    }
    Ok(out)
}

#[derive(Default)]
struct BatchOutcome {
    messages: u64,
    granted: u64,
    rows_sent: u64,
    rows_failed: u64,
    publish_errors: u64,
}

/// A batch's messages and the rows each one sends.
#[derive(Default)]
struct Outbox {
    messages: Vec<Outgoing>,
    row_ids: Vec<i64>,
    granted: u64,
}

/// Publishes the batch's messages; marks their rows sent, or counts the
/// failed attempt. A day with no coupon still unused is left pending (a
/// locked coupon may come back before the day is over); so is a granted
/// row whose user holds no unused coupon of its job.
async fn send_batch(
    tx: &Transaction<'_>,
    publisher: &LazyPublisher,
    now: DateTime<Utc>,
    batch: &Claimed,
    limits: SendLimits,
) -> Result<BatchOutcome, SendError> {
    let mut out = Outbox::default();
    let days = &batch.days;
    for ((user_id, day), coupons) in unused_coupons(tx, now, days).await? {
        out.row_ids
            .extend(days[&(user_id.clone(), day)].iter().map(|r| r.id));
        let reminder = ExpiryReminder {
            user_id,
            notify_day: day,
            coupons,
        };
        out.messages.push(reminder_message::encode(&reminder)?);
    }
    for (id, message) in granted::messages(tx, now, &batch.grants).await? {
        out.row_ids.push(id);
        out.messages.push(granted_message::encode(&message)?);
        out.granted += 1;
    }
    if out.messages.is_empty() {
        return Ok(BatchOutcome::default());
    }
    publish(tx, publisher, now, &out, limits).await
}

/// Marks the rows sent, then publishes: the rows commit after the broker
/// took the batch, and a sender killed in between has marked nothing. A
/// refused publish undoes the marks and counts the attempt.
async fn publish(
    tx: &Transaction<'_>,
    publisher: &LazyPublisher,
    now: DateTime<Utc>,
    out: &Outbox,
    limits: SendLimits,
) -> Result<BatchOutcome, SendError> {
    tx.batch_execute("SAVEPOINT publishing").await?;
    mark_sent(tx, &out.row_ids, now).await?;
    let mark = Mark {
        batch: Uuid::new_v4(),
        rows: out.row_ids.clone(),
    };
    match publisher
        .publish_marked(topology::NOTIFICATIONS, "", &out.messages, Some(&mark))
        .await
    {
        Ok(()) => Ok(BatchOutcome {
            messages: out.messages.len() as u64,
            granted: out.granted,
            rows_sent: out.row_ids.len() as u64,
            ..Default::default()
        }),
        Err(e) => {
            tx.batch_execute("ROLLBACK TO SAVEPOINT publishing").await?;
            count_failure(tx, &out.row_ids, limits.max_attempts, &e).await?;
            Ok(BatchOutcome {
                rows_failed: out.row_ids.len() as u64,
                publish_errors: 1,
                ..Default::default()
            })
        }
    }
}

/// Per (user, day): the user's coupons reminded that day under the claimed
/// rows' templates that are still unused and unexpired now (the write
/// model's status: the projection may be behind it).
async fn unused_coupons(
    tx: &Transaction<'_>,
    now: DateTime<Utc>,
    days: &BTreeMap<(String, NaiveDate), Vec<DueRow>>,
) -> Result<BTreeMap<(String, NaiveDate), Vec<RemindedCoupon>>, tokio_postgres::Error> {
    let (mut users, mut dates, mut templates) = (Vec::new(), Vec::new(), Vec::new());
    for ((user, day), rows) in days {
        for r in rows {
            users.push(user.as_str());
            dates.push(*day);
            templates.push(r.template_sn.as_str());
        }
    }
    let sql = "SELECT x.u, x.d, c.id, c.template_sn, t.name, t.face_value, t.currency, c.expires_at
                 FROM unnest($1::text[], $2::date[], $3::text[]) AS x (u, d, sn)
                 JOIN notify_coupons n
                   ON n.user_id = x.u AND n.template_sn = x.sn AND x.d = ANY(n.notify_days)
                 JOIN coupons c ON c.id = n.coupon_id
                 JOIN templates t ON t.sn = c.template_sn
                WHERE c.status = $5 AND c.expires_at > $4 AND t.status <> $6
                ORDER BY x.u, x.d, c.expires_at, c.template_sn, c.id";
    let (unused, void) = (CouponStatus::Unused.as_str(), TemplateStatus::Void.as_str());
    let params: [&(dyn ToSql + Sync); 6] = [&users, &dates, &templates, &now, &unused, &void];
    let mut out: BTreeMap<(String, NaiveDate), Vec<RemindedCoupon>> = BTreeMap::new();
    for r in tx.query(&tx.prepare_cached(sql).await?, &params).await? {
        let face: Decimal = r.get(5);
        let coupon = RemindedCoupon {
            coupon_id: r.get::<_, Uuid>(2),
            template_sn: r.get(3),
            name: r.get(4),
            face_value: Money::from_cents(cents(face)),
            currency: r.get(6),
            expires_at: r.get(7),
        };
        out.entry((r.get(0), r.get(1))).or_default().push(coupon);
    }
    Ok(out)
}

fn cents(d: Decimal) -> i64 {
    (d * Decimal::ONE_HUNDRED).try_into().unwrap_or(i64::MAX)
}

/// Marks the pending rows of `ids` sent; how many it marked (a row sent
/// already, e.g. by a mark settled twice, stays as it is).
async fn mark_sent(
    tx: &Transaction<'_>,
    ids: &[i64],
    now: DateTime<Utc>,
) -> Result<u64, tokio_postgres::Error> {
    let sql = "UPDATE notify_msg SET status = $2, sent_at = $3, attempts = attempts + 1
                WHERE id = ANY($1) AND status = $4";
    let (sent, pending) = (NotifyStatus::Sent.code(), NotifyStatus::Pending.code());
    let params: [&(dyn ToSql + Sync); 4] = [&ids, &sent, &now, &pending];
    tx.execute(&tx.prepare_cached(sql).await?, &params).await
}

/// One more failed attempt; at the bound the row is `failed` for good.
async fn count_failure(
    tx: &Transaction<'_>,
    ids: &[i64],
    max_attempts: i32,
    error: &PublishError,
) -> Result<(), tokio_postgres::Error> {
    let sql = "UPDATE notify_msg
                  SET attempts = attempts + 1,
                      status = CASE WHEN attempts + 1 >= $2 THEN $3 ELSE status END
                WHERE id = ANY($1)";
    let params: [&(dyn ToSql + Sync); 3] = [&ids, &max_attempts, &NotifyStatus::Failed.code()];
    let n = tx.execute(&tx.prepare_cached(sql).await?, &params).await?;
    let error = error.to_string();
    tracing::warn!(
        rows = n,
        error,
        "publishing notifications failed; rows stay pending (failed at the bound)"
    );
    Ok(())
}

/// Deletes sent and cancelled rows whose time was more than `retention`
/// before `now` (a sent row was sent after its time), at most `limit` rows;
/// how many went. Failed rows stay for a look.
pub async fn purge(
    pool: &Pool,
    now: DateTime<Utc>,
    retention: Duration,
    limit: i64,
) -> Result<u64, SendError> {
    let client = pool.get().await?;
    let sql = "DELETE FROM notify_msg WHERE id IN (
                 SELECT id FROM notify_msg
                  WHERE status IN ($1, $2) AND notify_time < $3
                  LIMIT $4)";
    let cutoff = now - retention;
    let params: [&(dyn ToSql + Sync); 4] = [
        &NotifyStatus::Sent.code(),
        &NotifyStatus::Cancelled.code(),
        &cutoff,
        &limit,
    ];
    Ok(client
        .execute(&client.prepare_cached(sql).await?, &params)
        .await?)
}
