//! The `notify` projection (docs/design.md §10): coupon events → `notify_msg` rows,
//! in the caller's transaction: expiry reminders here, the `CouponsGranted`
//! rows of jobs that asked `notify=true` in [`super::granted`].
//!
//! `notify_coupons` remembers what the projection knows of each coupon (its
//! holder, status, version and reminder days), so a duplicate is skipped, a
//! gap is caught up from `events` (as the other projections do), and
//! "does the user hold another live coupon for this template and day" is a
//! question to this projection's own state, never to the write model (which
//! may be ahead of it, and which a replay could not reproduce).

use chrono::{DateTime, NaiveDate, Utc};

use deadpool_postgres::Transaction;
use rust_decimal::Decimal;
use tokio_postgres::types::ToSql;
use uuid::Uuid;

use super::granted::{self, Grant};
use super::{Applied, ApplyError, decimal, record_position};
use crate::db::Named;
use crate::domain::coupon_state::CouponStatus;
use crate::domain::ids::{TemplateSn, UserId};
use crate::domain::ledger_event::LedgerEvent;
use crate::domain::projection::Projection;
use crate::domain::projection::{CouponView, Effect, coupon_effect};
use crate::domain::reminder::{
    EXPIRY_REMINDER, HolderChange, NotifyStatus, Reminder, day_of, holder_change, reminders,
};
use crate::domain::stream::{Stream, StreamKind};
use crate::store::{RecordedEvent, read_stream};

pub use crate::domain::reminder::NotifyClock;

/// What the projection knows of one coupon.
#[derive(Clone, Debug)]
struct Followed {
    view: CouponView,
    days: Vec<NaiveDate>,
    /// The job whose `CouponsGranted` message lists it, if one asked.
    granted_job: Option<Uuid>,
}

/// Applies `event` (any stream: only coupon streams matter).
pub async fn apply(
    tx: &Transaction<'_>,
    clock: NotifyClock,
    event: &RecordedEvent,
) -> Result<Applied, ApplyError> {
    let stream = Stream::parse(&event.stream_id).map_err(|source| ApplyError::Stream {
        position: event.position,
        source,
    })?;
    let applied = match stream {
        Stream::Coupon(id) => apply_coupon(tx, clock, id, event).await?,
        _ => Applied::NotFollowed,
    };
    record_position(tx, Projection::Notify, event, applied).await?;
    Ok(applied)
}

/// Applies `events` in order. Runs of `CouponIssued` (the bulk of what
/// issuance produces) go in with a few set-based statements; every other
/// event one by one. On failure, the index of the event to blame.
pub async fn apply_batch(
    tx: &Transaction<'_>,
    clock: NotifyClock,
    events: &[RecordedEvent],
) -> Result<(), (usize, ApplyError)> {
    let mut i = 0;
    while i < events.len() {
        let run = events[i..]
            .iter()
            .take(super::issued_run::MAX_RUN)
            .take_while(|e| super::issued_run::is_first_issue(e))
            .count();
        if run == 0 {
            apply(tx, clock, &events[i]).await.map_err(|e| (i, e))?;
            i += 1;
        } else {
            issue_run(tx, clock, &events[i..i + run])
                .await
                .map_err(|(at, e)| (i + at, e))?;
            i += run;
        }
    }
    Ok(())
}

/// A run of `CouponIssued`: the coupons the projection does not know yet,
/// then their reminders, then the position, each one statement.
async fn issue_run(
    tx: &Transaction<'_>,
    clock: NotifyClock,
    events: &[RecordedEvent],
) -> Result<(), (usize, ApplyError)> {
    let mut issued = Vec::with_capacity(events.len());
    for (i, e) in events.iter().enumerate() {
        match e.decode().map_err(|err| (i, ApplyError::from(err)))? {
            LedgerEvent::CouponIssued(c) => issued.push(c),
            // The type name said CouponIssued: decoding cannot give another.
            _ => return Err((i, ApplyError::Projection(wrong_type(e)))),
        }
    }
    let blame_first = |err: tokio_postgres::Error| (0, ApplyError::from(err));
    let new = insert_many(tx, clock, &issued).await.map_err(blame_first)?;
    add_many(tx, &new).await.map_err(blame_first)?;
    let grants: Vec<Grant> = new
        .iter()
        .filter_map(|c| {
            let holder = (c.user_id.as_str(), c.template_sn.as_str());
            Some(c.grant.as_ref()?.row(c.coupon_id, holder, clock))
        })
        .collect();
    granted::add(tx, &grants).await.map_err(blame_first)?;
    // The latest in commit order: a repeat may come last.
    let Some(last) = events.iter().max_by_key(|e| (e.tx_id, e.position)) else {
        return Ok(());
    };
    // Repeats (coupons the projection knew) are not counted as given.
    let count = i64::try_from(new.len()).unwrap_or(i64::MAX);
    super::record_positions(tx, Projection::Notify, last, count)
        .await
        .map_err(blame_first)?;
    Ok(())
}

fn wrong_type(e: &RecordedEvent) -> crate::domain::projection::ProjectionError {
    crate::domain::projection::ProjectionError::IssuedTwice(e.stream_version)
}

/// A new coupon's reminders, for [`add_many`], and its job's message.
struct NewReminders {
    coupon_id: Uuid,
    user_id: UserId,
    template_sn: TemplateSn,
    due: Vec<Reminder>,
    grant: Option<JobGrant>,
}

/// The job a new coupon came from, when it asked `notify=true`.
struct JobGrant {
    job_id: Uuid,
    issued_at: DateTime<Utc>,
}

impl JobGrant {
    /// Of a `CouponIssued` whose job asked `notify=true`.
    fn of_issued(c: &crate::domain::events::CouponIssued) -> Option<JobGrant> {
        let job_id = c.job_id.filter(|_| c.job_notify)?;
        Some(JobGrant {
            job_id,
            issued_at: c.issued_at,
        })
    }

    /// The row of `coupon_id`, held by (user, template).
    fn row<'a>(
        &self,
        coupon_id: Uuid,
        holder: (&'a str, &'a str),
        clock: NotifyClock,
    ) -> Grant<'a> {
        Grant {
            coupon_id,
            user_id: holder.0,
            template_sn: holder.1,
            job_id: self.job_id,
            day: day_of(self.issued_at, clock.tz),
            at: self.issued_at,
        }
    }
}

/// Inserts the coupons not known yet; their reminders.
async fn insert_many(
    tx: &Transaction<'_>,
    clock: NotifyClock,
    issued: &[crate::domain::events::CouponIssued],
) -> Result<Vec<NewReminders>, tokio_postgres::Error> {
    let due: Vec<Vec<Reminder>> = issued
        .iter()
        .map(|c| match &c.remind_days_before {
            Some(offsets) => reminders(c.expires_at, c.issued_at, offsets, clock.tz, clock.at),
            None => Vec::new(),
        })
        .collect();
    let days = day_lists(&due);
    let ids: Vec<Uuid> = issued.iter().map(|c| c.coupon_id).collect();
    let users: Vec<&str> = issued.iter().map(|c| c.user_id.as_str()).collect();
    let templates: Vec<&str> = issued.iter().map(|c| c.template_sn.as_str()).collect();
    let faces: Vec<Decimal> = issued.iter().map(|c| c.face_value.as_decimal()).collect();
    let expiries: Vec<DateTime<Utc>> = issued.iter().map(|c| c.expires_at).collect();
    let jobs: Vec<Option<Uuid>> = issued
        .iter()
        .map(|c| JobGrant::of_issued(c).map(|g| g.job_id))
        .collect();
    let sql = "INSERT INTO notify_coupons
                 (coupon_id, user_id, template_sn, face_value, status, version, expires_at,
                  notify_days, granted_job)
               SELECT id, u, t, f, $6, 1, x, d::date[], j
                 FROM unnest($1::uuid[], $2::text[], $3::text[], $4::numeric[], $5::timestamptz[],
                             $7::text[], $8::uuid[])
                      AS c (id, u, t, f, x, d, j)
               ON CONFLICT (coupon_id) DO NOTHING RETURNING coupon_id";
    let params: [&(dyn ToSql + Sync); 8] = [
        &ids,
        &users,
        &templates,
        &faces,
        &expiries,
        &CouponStatus::Unused.as_str(),
        &days,
        &jobs,
    ];
    let rows = tx.query(&tx.prepare_cached(sql).await?, &params).await?;
    let mut inserted: std::collections::HashSet<Uuid> = rows.iter().map(|r| r.get(0)).collect();
    // `remove`: a coupon twice in one run (a message sent twice) is new once.
    Ok(issued
        .iter()
        .zip(due)
        .filter(|(c, _)| inserted.remove(&c.coupon_id))
        .map(|(c, due)| NewReminders {
            coupon_id: c.coupon_id,
            user_id: c.user_id.clone(),
            template_sn: c.template_sn.clone(),
            due,
            grant: JobGrant::of_issued(c),
        })
        .collect())
}

/// Each coupon's days as the text of a `date[]`: unnest would flatten a
/// 2-D array.
fn day_lists(due: &[Vec<Reminder>]) -> Vec<String> {
    due.iter()
        .map(|d| {
            let list: Vec<String> = d.iter().map(|r| r.day.to_string()).collect();
            format!("{{{}}}", list.join(","))
        })
        .collect()
}

/// The reminders of new coupons, one row per (user, template, day): the
/// first coupon names it; a cancelled row is pending again (every reminder
/// made is still to come at its coupon's issue, see [`reminders`]).
async fn add_many(tx: &Transaction<'_>, new: &[NewReminders]) -> Result<(), tokio_postgres::Error> {
    let mut seen = std::collections::HashSet::new();
    let (mut ids, mut users, mut templates, mut days, mut times) =
        (Vec::new(), Vec::new(), Vec::new(), Vec::new(), Vec::new());
    for c in new {
        for r in &c.due {
            // One statement may not touch a row twice.
            if seen.insert((c.user_id.as_str(), c.template_sn.as_str(), r.day)) {
                ids.push(c.coupon_id);
                users.push(c.user_id.as_str());
                templates.push(c.template_sn.as_str());
                days.push(r.day);
                times.push(r.at);
            }
        }
    }
    if ids.is_empty() {
        return Ok(());
    }
    let sql = "INSERT INTO notify_msg
                 (coupon_id, user_id, template_sn, notify_day, notify_type, notify_time, status)
               SELECT c, u, t, d, $6, at, $7
                 FROM unnest($1::uuid[], $2::text[], $3::text[], $4::date[], $5::timestamptz[])
                      AS r (c, u, t, d, at)
               ON CONFLICT (user_id, template_sn, notify_day, notify_type) WHERE notify_type = 1
               DO UPDATE SET status = $7 WHERE notify_msg.status = $8";
    let params: [&(dyn ToSql + Sync); 8] = [
        &ids,
        &users,
        &templates,
        &days,
        &times,
        &EXPIRY_REMINDER.code(),
        &NotifyStatus::Pending.code(),
        &NotifyStatus::Cancelled.code(),
    ];
    tx.execute(&tx.prepare_cached(sql).await?, &params).await?;
    Ok(())
}

async fn apply_coupon(
    tx: &Transaction<'_>,
    clock: NotifyClock,
    coupon_id: Uuid,
    event: &RecordedEvent,
) -> Result<Applied, ApplyError> {
    let mut known = load(tx, coupon_id).await?;
    let current = known.as_ref().map_or(0, |k| k.view.version);
    if event.stream_version <= current {
        return Ok(Applied::AlreadyApplied);
    }
    if event.stream_version > current + 1 {
        // A gap: the missing versions come from the store, in order.
        let stream = StreamKind::Coupon.id(coupon_id);
        let limit = i64::from(event.stream_version - 1 - current);
        for missing in read_stream(&**tx, &stream, current, limit).await? {
            known = step(tx, clock, coupon_id, known, &missing).await?;
        }
    }
    step(tx, clock, coupon_id, known, event).await?;
    Ok(Applied::Applied)
}

/// Applies one event that directly follows `known`; what is known after it.
async fn step(
    tx: &Transaction<'_>,
    clock: NotifyClock,
    coupon_id: Uuid,
    known: Option<Followed>,
    event: &RecordedEvent,
) -> Result<Option<Followed>, ApplyError> {
    let decoded = event.decode()?;
    let effect = coupon_effect(
        known.as_ref().map(|k| &k.view),
        &decoded,
        event.stream_version,
    )?;
    match (effect, known) {
        (Effect::Issued(view), _) => {
            let LedgerEvent::CouponIssued(issued) = &decoded else {
                return Ok(None);
            };
            let due = match &issued.remind_days_before {
                Some(offsets) => reminders(
                    issued.expires_at,
                    issued.issued_at,
                    offsets,
                    clock.tz,
                    clock.at,
                ),
                None => Vec::new(),
            };
            let grant = JobGrant::of_issued(issued);
            let followed = Followed {
                view,
                days: due.iter().map(|r| r.day).collect(),
                granted_job: grant.as_ref().map(|g| g.job_id),
            };
            insert(tx, coupon_id, &followed, issued.expires_at).await?;
            add_reminders(tx, coupon_id, &followed.view, &due).await?;
            if let Some(g) = grant {
                let v = &followed.view;
                let holder = (v.user_id.as_str(), v.template_sn.as_str());
                granted::add(tx, &[g.row(coupon_id, holder, clock)]).await?;
            }
            Ok(Some(followed))
        }
        (Effect::Moved { from, view }, Some(known)) => {
            let followed = Followed { view, ..known };
            save(tx, coupon_id, &followed.view).await?;
            let change = holder_change(from, followed.view.status);
            moved(tx, clock, coupon_id, &followed, (change, event.occurred_at)).await?;
            Ok(Some(followed))
        }
        (_, Some(mut known)) => {
            // An event that moves no status still moves the version.
            known.view.version = event.stream_version;
            save(tx, coupon_id, &known.view).await?;
            Ok(Some(known))
        }
        (_, None) => Ok(None),
    }
}

/// What a coupon's move (`change`, at `on`) does to its rows: its
/// reminders and its job's message.
async fn moved(
    tx: &Transaction<'_>,
    clock: NotifyClock,
    coupon_id: Uuid,
    f: &Followed,
    (change, on): (HolderChange, DateTime<Utc>),
) -> Result<(), tokio_postgres::Error> {
    let holder = (f.view.user_id.as_str(), f.view.template_sn.as_str());
    match (change, f.granted_job) {
        (HolderChange::Left, job) => {
            cancel(tx, coupon_id, f).await?;
            if let Some(job) = job {
                granted::cancel(tx, coupon_id, holder, job).await?;
            }
        }
        (HolderChange::Returned, job) => {
            restore(tx, f, day_of(on, clock.tz)).await?;
            if let Some(job) = job {
                granted::restore(tx, holder.0, job).await?;
            }
        }
        (HolderChange::Nothing, _) => {}
    }
    Ok(())
}

async fn load(tx: &Transaction<'_>, coupon_id: Uuid) -> Result<Option<Followed>, ApplyError> {
    let sql = "SELECT user_id, template_sn, face_value, status, version, notify_days, granted_job
                 FROM notify_coupons WHERE coupon_id = $1 FOR UPDATE";
    let row = tx
        .query_opt(&tx.prepare_cached(sql).await?, &[&coupon_id])
        .await?;
    let cents = |d: Decimal| (d * Decimal::ONE_HUNDRED).try_into().unwrap_or(i64::MAX);
    let Some(r) = row else { return Ok(None) };
    Ok(Some(Followed {
        view: CouponView {
            user_id: r.get(0),
            template_sn: r.get(1),
            face_value: cents(r.get(2)),
            // A status that is none of the list fails the event, loudly.
            status: r.try_get::<_, Named<CouponStatus>>(3)?.0,
            version: r.get(4),
            locked_discount: 0,
        },
        days: r.get(5),
        granted_job: r.get(6),
    }))
}

async fn insert(
    tx: &Transaction<'_>,
    coupon_id: Uuid,
    f: &Followed,
    expires_at: DateTime<Utc>,
) -> Result<(), tokio_postgres::Error> {
    let sql = "INSERT INTO notify_coupons
                 (coupon_id, user_id, template_sn, face_value, status, version, expires_at,
                  notify_days, granted_job)
               VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)";
    let v = &f.view;
    let params: [&(dyn ToSql + Sync); 9] = [
        &coupon_id,
        &v.user_id,
        &v.template_sn,
        &decimal(v.face_value),
        &v.status.as_str(),
        &v.version,
        &expires_at,
        &f.days,
        &f.granted_job,
    ];
    tx.execute(&tx.prepare_cached(sql).await?, &params).await?;
    Ok(())
}

async fn save(
    tx: &Transaction<'_>,
    coupon_id: Uuid,
    v: &CouponView,
) -> Result<(), tokio_postgres::Error> {
    let sql = "UPDATE notify_coupons SET status = $2, version = $3 WHERE coupon_id = $1";
    let params: [&(dyn ToSql + Sync); 3] = [&coupon_id, &v.status.as_str(), &v.version];
    tx.execute(&tx.prepare_cached(sql).await?, &params).await?;
    Ok(())
}

/// One row per reminder; an existing row (another coupon of the same user,
/// template and day) stays as it is, except that a cancelled one is pending
/// again: the user holds a live coupon for it, and its day has not passed
/// (docs/design.md §10).
async fn add_reminders(
    tx: &Transaction<'_>,
    coupon_id: Uuid,
    v: &CouponView,
    due: &[Reminder],
) -> Result<(), tokio_postgres::Error> {
    if due.is_empty() {
        return Ok(());
    }
    let sql = "INSERT INTO notify_msg
                 (coupon_id, user_id, template_sn, notify_day, notify_type, notify_time, status)
               SELECT $1, $2, $3, d, $4, t, $5 FROM unnest($6::date[], $7::timestamptz[]) AS r (d, t)
               ON CONFLICT (user_id, template_sn, notify_day, notify_type) WHERE notify_type = 1
               DO UPDATE SET status = $5 WHERE notify_msg.status = $8";
    let days: Vec<NaiveDate> = due.iter().map(|r| r.day).collect();
    let times: Vec<DateTime<Utc>> = due.iter().map(|r| r.at).collect();
    let params: [&(dyn ToSql + Sync); 8] = [
        &coupon_id,
        &v.user_id,
        &v.template_sn,
        &EXPIRY_REMINDER.code(),
        &NotifyStatus::Pending.code(),
        &days,
        &times,
        &NotifyStatus::Cancelled.code(),
    ];
    tx.execute(&tx.prepare_cached(sql).await?, &params).await?;
    Ok(())
}

/// The coupon is gone: its pending reminders are cancelled unless the user
/// holds another live coupon of the template reminded on the same day.
async fn cancel(
    tx: &Transaction<'_>,
    coupon_id: Uuid,
    f: &Followed,
) -> Result<(), tokio_postgres::Error> {
    if f.days.is_empty() {
        return Ok(());
    }
    let sql = "UPDATE notify_msg m SET status = $6
                WHERE m.user_id = $1 AND m.template_sn = $2 AND m.notify_type = $3
                  AND m.notify_day = ANY($4::date[]) AND m.status = $5
                  AND NOT EXISTS (
                      SELECT 1 FROM notify_coupons c
                       WHERE c.user_id = $1 AND c.template_sn = $2 AND c.coupon_id <> $7
                         AND c.status = ANY($8) AND m.notify_day = ANY(c.notify_days))";
    // The coupon statuses that still await their expiry.
    let live = [CouponStatus::Unused.as_str(), CouponStatus::Locked.as_str()];
    let params: [&(dyn ToSql + Sync); 8] = [
        &f.view.user_id,
        &f.view.template_sn,
        &EXPIRY_REMINDER.code(),
        &f.days,
        &NotifyStatus::Pending.code(),
        &NotifyStatus::Cancelled.code(),
        &coupon_id,
        &live.as_slice(),
    ];
    tx.execute(&tx.prepare_cached(sql).await?, &params).await?;
    Ok(())
}

/// The coupon is back: its cancelled reminders whose day has not passed
/// (`today`, the event's business day) are pending again; one whose hour
/// has passed today goes out at the sender's next run (docs/design.md §10).
async fn restore(
    tx: &Transaction<'_>,
    f: &Followed,
    today: NaiveDate,
) -> Result<(), tokio_postgres::Error> {
    if f.days.is_empty() {
        return Ok(());
    }
    let sql = "UPDATE notify_msg SET status = $5
                WHERE user_id = $1 AND template_sn = $2 AND notify_type = $3
                  AND notify_day = ANY($4::date[]) AND status = $6 AND notify_day >= $7";
    let params: [&(dyn ToSql + Sync); 7] = [
        &f.view.user_id,
        &f.view.template_sn,
        &EXPIRY_REMINDER.code(),
        &f.days,
        &NotifyStatus::Pending.code(),
        &NotifyStatus::Cancelled.code(),
        &today,
    ];
    tx.execute(&tx.prepare_cached(sql).await?, &params).await?;
    Ok(())
}
