//! `notify_msg` from the events: the same rules as the `notify` projection
//! (`projections::notify`), folded in memory in the store's order, then
//! compared with the live rows.
//!
//! The fold follows each coupon by the state machine and records a [`Step`]
//! whenever a coupon with reminders, or of a job that asked `notify=true`,
//! is issued, leaves (used, expired, voided, refunded) or comes back (a
//! lock released, a refund restoring it). A row is keyed by its user, so
//! the steps of one bucket of users, in the store's order, rebuild that
//! bucket's rows here ([`NotifyRows`]): reminders by (user, template, day),
//! `CouponsGranted` rows by (user, job), each by the projection's rules.
//!
//! Only what the events decide is compared: a row's existence and whether
//! it is pending or cancelled. `sent` and `failed` (and `attempts`) are
//! delivery facts, so a live row in either is not compared; a replayed row
//! with no live row is fine when its time is older than the retention
//! (purged once sent or cancelled).

use std::io::{self, Write};

use chrono::{DateTime, Duration, NaiveDate, Utc};
use futures_util::{TryStreamExt, pin_mut};
use tokio_postgres::Transaction;
use tokio_postgres::binary_copy::BinaryCopyOutStream;
use tokio_postgres::types::Type;
use uuid::Uuid;

use super::compare::Differences;
use super::notify_steps::{Grant, Step, StepChange};
use super::spill::{Reader, Record, put};
use super::tables::{Map, Names, NamesOver, NotifyRow, Sym};
use crate::domain::projection::Projection;
use crate::domain::reminder::{NotifyStatus, NotifyType, Reminder};

const TABLE: &str = Projection::Notify.table();

impl Record for Step {
    fn write(&self, w: &mut impl Write) -> io::Result<()> {
        w.write_all(&self.order.0.to_le_bytes())?;
        w.write_all(&self.order.1.to_le_bytes())?;
        w.write_all(self.coupon.as_bytes())?;
        match &self.change {
            StepChange::Issued {
                user,
                template,
                due,
                grant,
            } => {
                w.write_all(&[0])?;
                put::str(w, user)?;
                put::str(w, template)?;
                let n = u32::try_from(due.len()).map_err(io::Error::other)?;
                w.write_all(&n.to_le_bytes())?;
                due.iter().try_for_each(|r| {
                    put::date(w, r.day)?;
                    put::time(w, r.at)
                })?;
                match grant {
                    None => w.write_all(&[0]),
                    Some(g) => {
                        w.write_all(&[1])?;
                        w.write_all(g.job.as_bytes())?;
                        put::time(w, g.at)
                    }
                }
            }
            StepChange::Left => w.write_all(&[1]),
            StepChange::Returned { on } => {
                w.write_all(&[2])?;
                put::date(w, *on)
            }
        }
    }

    fn read(r: &mut Reader) -> io::Result<Self> {
        let order = (r.i64()?, r.i64()?);
        let coupon = r.uuid()?;
        let change = match r.u8()? {
            0 => {
                let (user, template) = (r.string()?, r.string()?);
                let due = (0..r.u32()?)
                    .map(|_| {
                        Ok(Reminder {
                            day: r.date()?,
                            at: r.time()?,
                        })
                    })
                    .collect::<io::Result<_>>()?;
                let grant = match r.u8()? {
                    0 => None,
                    _ => Some(Grant {
                        job: r.uuid()?,
                        at: r.time()?,
                    }),
                };
                StepChange::Issued {
                    user,
                    template,
                    due,
                    grant,
                }
            }
            1 => StepChange::Left,
            2 => StepChange::Returned { on: r.date()? },
            _ => return Err(io::Error::new(io::ErrorKind::InvalidData, "spilled step")),
        };
        Ok(Step {
            order,
            coupon,
            change,
        })
    }
}

/// A replayed row: its status, and when it is due.
#[derive(Clone, Copy, Debug)]
pub struct Row {
    pub status: NotifyStatus,
    pub at: DateTime<Utc>,
}

/// (user, template, day).
type Key = (Sym, Sym, NaiveDate);

/// A granted row's key: (user, job).
type GrantKey = (Sym, Uuid);

/// What the rows know of one coupon.
struct Held {
    /// (user, template).
    holder: (Sym, Sym),
    live: bool,
    days: Vec<NaiveDate>,
    /// The job whose granted row it belongs to.
    job: Option<Uuid>,
}

/// The rows of a bucket of users, as its steps leave them; user ids and
/// template sns kept once, by symbol.
pub struct NotifyRows<'a> {
    names: NamesOver<'a>,
    coupons: Map<Uuid, Held>,
    holders: Map<(Sym, Sym), Vec<Uuid>>,
    rows: Map<Key, Row>,
    grants: Map<GrantKey, Row>,
}

impl<'a> NotifyRows<'a> {
    /// No rows yet; names are those of `base` (the last pass's) and more.
    pub fn new(base: &'a Names) -> Self {
        NotifyRows {
            names: NamesOver::new(base),
            coupons: Map::default(),
            holders: Map::default(),
            rows: Map::default(),
            grants: Map::default(),
        }
    }

    /// Applies one step (steps must come in the store's order).
    pub fn apply(&mut self, step: Step) {
        match step.change {
            StepChange::Issued {
                user,
                template,
                due,
                grant,
            } => {
                let holder = (self.names.intern(&user), self.names.intern(&template));
                self.issued(step.coupon, holder, &due);
                if let Some(grant) = grant {
                    self.granted(step.coupon, holder.0, grant);
                }
            }
            StepChange::Left => self.left(step.coupon),
            StepChange::Returned { on } => self.returned(step.coupon, on),
        }
    }

    fn issued(&mut self, id: Uuid, holder: (Sym, Sym), due: &[Reminder]) {
        for r in due {
            let row = self.rows.entry((holder.0, holder.1, r.day)).or_insert(Row {
                status: NotifyStatus::Pending,
                at: r.at,
            });
            if row.status == NotifyStatus::Cancelled {
                row.status = NotifyStatus::Pending;
            }
        }
        self.holders.entry(holder).or_default().push(id);
        let days = due.iter().map(|r| r.day).collect();
        let held = Held {
            holder,
            live: true,
            days,
            job: None,
        };
        self.coupons.insert(id, held);
    }

    /// The user's row of the job: made by their first coupon of it, pending
    /// again if it was cancelled (they hold a live coupon of it once more).
    fn granted(&mut self, id: Uuid, user: Sym, grant: Grant) {
        let row = self.grants.entry((user, grant.job)).or_insert(Row {
            status: NotifyStatus::Pending,
            at: grant.at,
        });
        if row.status == NotifyStatus::Cancelled {
            row.status = NotifyStatus::Pending;
        }
        if let Some(held) = self.coupons.get_mut(&id) {
            held.job = Some(grant.job);
        }
    }

    fn left(&mut self, id: Uuid) {
        let Some(held) = self.coupons.get_mut(&id) else {
            return;
        };
        held.live = false;
        let ((user, template), days, job) = (held.holder, held.days.clone(), held.job);
        if let Some(job) = job {
            self.grant_left(id, (user, template), job);
        }
        for day in days {
            let key = (user, template, day);
            let shared = self.held_by_another(id, &key);
            if let Some(row) = self.rows.get_mut(&key)
                && row.status == NotifyStatus::Pending
                && !shared
            {
                row.status = NotifyStatus::Cancelled;
            }
        }
    }

    fn returned(&mut self, id: Uuid, on: NaiveDate) {
        let Some(held) = self.coupons.get_mut(&id) else {
            return;
        };
        held.live = true;
        let (user, template) = held.holder;
        if let Some(row) = held.job.and_then(|job| self.grants.get_mut(&(user, job)))
            && row.status == NotifyStatus::Cancelled
        {
            row.status = NotifyStatus::Pending;
        }
        for day in &held.days {
            if let Some(row) = self.rows.get_mut(&(user, template, *day))
                && row.status == NotifyStatus::Cancelled
                && *day >= on
            {
                row.status = NotifyStatus::Pending;
            }
        }
    }

    /// A coupon of `job` left: the user's pending row of the job is
    /// cancelled unless they hold another live coupon of it.
    fn grant_left(&mut self, id: Uuid, holder: (Sym, Sym), job: Uuid) {
        let others = self.holders.get(&holder).map_or(&[][..], Vec::as_slice);
        let shared = others.iter().filter(|o| **o != id).any(|o| {
            self.coupons
                .get(o)
                .is_some_and(|h| h.live && h.job == Some(job))
        });
        if let Some(row) = self.grants.get_mut(&(holder.0, job))
            && row.status == NotifyStatus::Pending
            && !shared
        {
            row.status = NotifyStatus::Cancelled;
        }
    }

    /// Whether another live coupon of the key's user and template is reminded on its day.
    fn held_by_another(&self, id: Uuid, &(user, template, day): &Key) -> bool {
        let others = self.holders.get(&(user, template));
        let others = others.map_or(&[][..], Vec::as_slice);
        others.iter().filter(|o| **o != id).any(|o| {
            self.coupons
                .get(o)
                .is_some_and(|h| h.live && h.days.contains(&day))
        })
    }

    /// A key as the live row reads: `("user", "template", day)`.
    fn show(&self, &(user, template, day): &Key) -> String {
        format!(
            "{:?}",
            (self.names.name(user), self.names.name(template), day)
        )
    }
}

/// Compares the live `notify_msg` rows that `filter` (SQL, none: all) keeps
/// with the replayed ones, streamed past them; `now` and `retention` say
/// which replayed rows may have been purged.
pub async fn compare(
    tx: &Transaction<'_>,
    mut replayed: NotifyRows<'_>,
    filter: Option<&str>,
    (now, retention): (DateTime<Utc>, Duration),
    out: &mut Differences,
) -> Result<(), tokio_postgres::Error> {
    let filter = filter.map_or_else(String::new, |f| format!(" AND {f}"));
    let purged_before = now - retention;
    compare_reminders(tx, &mut replayed, &filter, purged_before, out).await?;
    compare_granted(tx, &mut replayed, &filter, purged_before, out).await
}

/// What a live row in `code` says against the replayed `row`: None when
/// they agree (a delivery fact, sent or failed, stands for a replayed row).
fn differs(code: i16, row: Option<Row>) -> Option<(NotifyRow, Option<NotifyRow>)> {
    let status = NotifyStatus::from_code(code);
    if status.is_some_and(NotifyStatus::is_delivery_fact) && row.is_some() {
        return None;
    }
    let live = NotifyRow {
        status: status.map_or_else(|| format!("code {code}"), |s| s.to_string()),
    };
    let row = row.map(|r| NotifyRow {
        status: r.status.to_string(),
    });
    Some((live, row))
}

async fn compare_reminders(
    tx: &Transaction<'_>,
    replayed: &mut NotifyRows<'_>,
    filter: &str,
    purged_before: DateTime<Utc>,
    out: &mut Differences,
) -> Result<(), tokio_postgres::Error> {
    let copy = format!(
        "COPY (SELECT user_id, template_sn, notify_day, status FROM notify_msg
                WHERE notify_type = {}{filter}) TO STDOUT (FORMAT binary)",
        NotifyType::ExpiryReminder.code()
    );
    let types = [Type::TEXT, Type::TEXT, Type::DATE, Type::INT2];
    let rows = BinaryCopyOutStream::new(tx.copy_out(&copy).await?, &types);
    pin_mut!(rows);
    while let Some(r) = rows.try_next().await? {
        let (user, template, day): (&str, &str, NaiveDate) =
            (r.try_get(0)?, r.try_get(1)?, r.try_get(2)?);
        let names = &replayed.names;
        let key = names.get(user).zip(names.get(template));
        let row = key.and_then(|(u, t)| replayed.rows.remove(&(u, t, day)));
        if let Some((live, row)) = differs(r.try_get(3)?, row) {
            let key = format!("{:?}", (user, template, day));
            out.row(TABLE, &key, Some(&live), row.as_ref());
        }
    }
    let left = replayed.rows.drain().collect();
    report_left_over(left, purged_before, |key| replayed.show(key), out);
    Ok(())
}

/// The rows replayed and not live, in key order: differences unless
/// retention purged them.
fn report_left_over<K: Ord + Copy>(
    mut left: Vec<(K, Row)>,
    purged_before: DateTime<Utc>,
    show: impl Fn(&K) -> String,
    out: &mut Differences,
) {
    left.retain(|(_, r)| r.at >= purged_before);
    left.sort_by_key(|(key, _)| *key);
    for (key, r) in left {
        let row = NotifyRow {
            status: r.status.to_string(),
        };
        out.row(TABLE, &show(&key), None, Some(&row));
    }
}

/// The `CouponsGranted` rows, keyed `("user", job)`.
async fn compare_granted(
    tx: &Transaction<'_>,
    replayed: &mut NotifyRows<'_>,
    filter: &str,
    purged_before: DateTime<Utc>,
    out: &mut Differences,
) -> Result<(), tokio_postgres::Error> {
    let copy = format!(
        "COPY (SELECT user_id, job_id, status FROM notify_msg
                WHERE notify_type = {}{filter}) TO STDOUT (FORMAT binary)",
        NotifyType::CouponsGranted.code()
    );
    let types = [Type::TEXT, Type::UUID, Type::INT2];
    let rows = BinaryCopyOutStream::new(tx.copy_out(&copy).await?, &types);
    pin_mut!(rows);
    while let Some(r) = rows.try_next().await? {
        let (user, job): (&str, Uuid) = (r.try_get(0)?, r.try_get(1)?);
        let key = replayed.names.get(user).map(|u| (u, job));
        let row = key.and_then(|k| replayed.grants.remove(&k));
        if let Some((live, row)) = differs(r.try_get(2)?, row) {
            out.row(
                TABLE,
                &format!("{:?}", (user, job)),
                Some(&live),
                row.as_ref(),
            );
        }
    }
    let left = replayed.grants.drain().collect();
    let names = &replayed.names;
    let show = |(user, job): &GrantKey| format!("{:?}", (names.name(*user), job));
    report_left_over(left, purged_before, show, out);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::super::spill::Spill;
    use super::*;

    /// docs/design.md §10: a coupon that comes back revives its cancelled
    /// reminder while the reminder's day has not passed, even past its hour;
    /// once the day is over, it stays cancelled.
    #[test]
    fn a_returned_coupon_revives_reminders_of_today_not_of_past_days() {
        let names = Names::default();
        let day = NaiveDate::from_ymd_opt(2027, 1, 15).unwrap();
        let at = DateTime::from_timestamp(1_800_000_000, 0).unwrap();
        let status_after = |returned_on: NaiveDate| {
            let mut rows = NotifyRows::new(&names);
            let coupon = Uuid::now_v7();
            let step = |change| Step {
                order: (1, 1),
                coupon,
                change,
            };
            rows.apply(step(StepChange::Issued {
                user: "u".into(),
                template: "T".into(),
                due: vec![Reminder { day, at }],
                grant: None,
            }));
            rows.apply(step(StepChange::Left));
            rows.apply(step(StepChange::Returned { on: returned_on }));
            rows.rows.values().next().unwrap().status
        };
        assert_eq!(status_after(day), NotifyStatus::Pending);
        assert_eq!(status_after(day.pred_opt().unwrap()), NotifyStatus::Pending);
        assert_eq!(
            status_after(day.succ_opt().unwrap()),
            NotifyStatus::Cancelled
        );
    }

    /// docs/design.md §10: a user's granted row of a job is pending while
    /// they hold a live coupon of the job, whichever coupon made it.
    #[test]
    fn a_granted_row_is_cancelled_by_the_last_coupon_of_its_job_to_leave() {
        let names = Names::default();
        let at = DateTime::from_timestamp(1_800_000_000, 0).unwrap();
        let (job, other_job) = (Uuid::now_v7(), Uuid::now_v7());
        let mut rows = NotifyRows::new(&names);
        let issue = |rows: &mut NotifyRows, coupon, job| {
            rows.apply(Step {
                order: (1, 1),
                coupon,
                change: StepChange::Issued {
                    user: "u".into(),
                    template: "T".into(),
                    due: Vec::new(),
                    grant: Some(Grant { job, at }),
                },
            })
        };
        let change = |rows: &mut NotifyRows, coupon, change| {
            rows.apply(Step {
                order: (2, 2),
                coupon,
                change,
            })
        };
        let (a, b, c) = (Uuid::now_v7(), Uuid::now_v7(), Uuid::now_v7());
        issue(&mut rows, a, job);
        issue(&mut rows, b, job);
        issue(&mut rows, c, other_job);
        let status = |rows: &NotifyRows, job| {
            let user = rows.names.get("u").unwrap();
            rows.grants[&(user, job)].status
        };
        assert_eq!(rows.grants.len(), 2, "one row per job");
        change(&mut rows, a, StepChange::Left);
        assert_eq!(status(&rows, job), NotifyStatus::Pending, "b is live");
        change(&mut rows, c, StepChange::Left);
        assert_eq!(status(&rows, other_job), NotifyStatus::Cancelled);
        change(&mut rows, b, StepChange::Left);
        assert_eq!(status(&rows, job), NotifyStatus::Cancelled);
        let on = NaiveDate::from_ymd_opt(2030, 1, 1).unwrap();
        change(&mut rows, a, StepChange::Returned { on });
        assert_eq!(status(&rows, job), NotifyStatus::Pending);
    }

    #[test]
    fn steps_read_back_from_the_spill_as_written() {
        let at = |h: i64| DateTime::from_timestamp(1_800_000_000 + h * 3600, 0).unwrap();
        let day = NaiveDate::from_ymd_opt(2027, 1, 15).unwrap();
        let coupon = Uuid::now_v7();
        let steps = [
            Step {
                order: (7, 40),
                coupon,
                change: StepChange::Issued {
                    user: "u-1".into(),
                    template: "T1".into(),
                    due: vec![Reminder { day, at: at(5) }],
                    grant: Some(Grant {
                        job: Uuid::now_v7(),
                        at: at(1),
                    }),
                },
            },
            Step {
                order: (9, 41),
                coupon,
                change: StepChange::Left,
            },
            Step {
                order: (9, 43),
                coupon,
                change: StepChange::Returned { on: day },
            },
        ];
        let spill = Spill::new(1).unwrap();
        let mut w = spill.steps_writers(0).unwrap();
        for s in &steps {
            s.write(w.bucket(0)).unwrap();
        }
        w.finish().unwrap();
        let mut r = spill.steps(1, 0).unwrap().remove(0);
        for s in &steps {
            assert_eq!(r.record::<Step>().unwrap().as_ref(), Some(s));
        }
        assert!(r.record::<Step>().unwrap().is_none());
    }
}
