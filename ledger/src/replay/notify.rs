//! `notify_msg` from the events: the same rules as the `notify` projection
//! (`projections::notify`), folded in memory in the store's order, then
//! compared with the live rows.
//!
//! Only what the events decide is compared: a row's existence and whether
//! it is pending or cancelled. `sent` and `failed` (and `attempts`) are
//! delivery facts, so a live row in either is not compared; a replayed row
//! with no live row is fine when its time is older than the retention
//! (purged once sent or cancelled).

use std::collections::HashMap;

use chrono::{DateTime, Duration, NaiveDate, Utc};
use tokio_postgres::Transaction;
use uuid::Uuid;

use super::compare::Differences;
use super::fold::{Event, FoldError};
use super::tables::NotifyRow;
use crate::domain::ledger_event::LedgerEvent;
use crate::domain::projection::{CouponView, Effect, coupon_effect};
use crate::domain::reminder::{HolderChange, NotifyStatus, holder_change, is_live, reminders};
use crate::domain::stream::Stream;
use crate::projections::notify::NotifyClock;

pub const TABLE: &str = "notify_msg";

/// What the fold knows of one coupon.
struct Known {
    view: CouponView,
    days: Vec<NaiveDate>,
}

/// (user, template, day).
type Key = (String, String, NaiveDate);

#[derive(Clone, Copy, Debug)]
pub struct Reminder {
    pub status: NotifyStatus,
    pub at: DateTime<Utc>,
}

pub struct NotifyFold {
    clock: NotifyClock,
    coupons: HashMap<Uuid, Known>,
    holders: HashMap<(String, String), Vec<Uuid>>,
    pub rows: HashMap<Key, Reminder>,
}

impl NotifyFold {
    pub fn new(clock: NotifyClock) -> Self {
        Self {
            clock,
            coupons: HashMap::new(),
            holders: HashMap::new(),
            rows: HashMap::new(),
        }
    }

    /// Folds one event (only coupon streams matter).
    pub fn apply(&mut self, e: &Event<'_>) -> Result<(), FoldError> {
        let Stream::Coupon(id) = Stream::parse(e.stream_id)? else {
            return Ok(());
        };
        let event = LedgerEvent::decode_slice(e.event_type, e.schema_version, e.payload)?;
        let known = self.coupons.get(&id).map(|k| &k.view);
        match coupon_effect(known, &event, e.version)? {
            Effect::Issued(view) => self.issued(id, view, &event),
            Effect::Moved { from, view } => self.moved(id, from, view, e.occurred_at),
            _ => {}
        }
        Ok(())
    }

    fn issued(&mut self, id: Uuid, view: CouponView, event: &LedgerEvent) {
        let LedgerEvent::CouponIssued(issued) = event else {
            return;
        };
        let due = issued
            .remind_days_before
            .as_ref()
            .map_or_else(Vec::new, |offsets| {
                reminders(
                    issued.expires_at,
                    issued.issued_at,
                    offsets,
                    self.clock.tz,
                    self.clock.at,
                )
            });
        for r in &due {
            let key = (view.user_id.clone(), view.template_sn.clone(), r.day);
            let row = self.rows.entry(key).or_insert(Reminder {
                status: NotifyStatus::Pending,
                at: r.at,
            });
            if row.status == NotifyStatus::Cancelled && row.at > issued.issued_at {
                row.status = NotifyStatus::Pending;
            }
        }
        let holder = (view.user_id.clone(), view.template_sn.clone());
        self.holders.entry(holder).or_default().push(id);
        let days = due.iter().map(|r| r.day).collect();
        self.coupons.insert(id, Known { view, days });
    }

    fn moved(
        &mut self,
        id: Uuid,
        from: crate::domain::coupon_state::CouponStatus,
        view: CouponView,
        at: DateTime<Utc>,
    ) {
        let change = holder_change(from, view.status);
        let Some(known) = self.coupons.get_mut(&id) else {
            return;
        };
        known.view = view;
        let (user, template) = (known.view.user_id.clone(), known.view.template_sn.clone());
        let days = known.days.clone();
        for day in days {
            let key = (user.clone(), template.clone(), day);
            let shared = change == HolderChange::Left && self.held_by_another(id, &key);
            let Some(row) = self.rows.get_mut(&key) else {
                continue;
            };
            match change {
                HolderChange::Left if row.status == NotifyStatus::Pending && !shared => {
                    row.status = NotifyStatus::Cancelled;
                }
                HolderChange::Returned if row.status == NotifyStatus::Cancelled && row.at > at => {
                    row.status = NotifyStatus::Pending;
                }
                _ => {}
            }
        }
    }

    /// Whether another live coupon of the key's user and template is reminded on its day.
    fn held_by_another(&self, id: Uuid, (user, template, day): &Key) -> bool {
        let holder = (user.clone(), template.clone());
        let others = self.holders.get(&holder).map_or(&[][..], Vec::as_slice);
        others.iter().filter(|o| **o != id).any(|o| {
            self.coupons
                .get(o)
                .is_some_and(|k| is_live(k.view.status) && k.days.contains(day))
        })
    }
}

/// Compares the live `notify_msg` with the fold; `now` and `retention` say
/// which replayed rows may have been purged.
pub async fn compare(
    tx: &Transaction<'_>,
    fold: &NotifyFold,
    now: DateTime<Utc>,
    retention: Duration,
    out: &mut Differences,
) -> Result<(), tokio_postgres::Error> {
    let rows = tx
        .query(
            "SELECT user_id, template_sn, notify_day, status FROM notify_msg WHERE notify_type = 1",
            &[],
        )
        .await?;
    let mut seen = std::collections::HashSet::with_capacity(rows.len());
    for r in &rows {
        let key: Key = (r.get(0), r.get(1), r.get(2));
        let status = NotifyStatus::from_code(r.get(3));
        let replayed = fold.rows.get(&key);
        seen.insert(key.clone());
        if status.is_some_and(NotifyStatus::is_delivery_fact) && replayed.is_some() {
            continue;
        }
        let live = NotifyRow {
            status: status
                .map_or_else(|| format!("code {}", r.get::<_, i16>(3)), |s| s.to_string()),
        };
        let replayed = replayed.map(|r| NotifyRow {
            status: r.status.to_string(),
        });
        out.row(TABLE, &format!("{key:?}"), Some(&live), replayed.as_ref());
    }
    let purged_before = now - retention;
    for (key, r) in &fold.rows {
        if seen.contains(key) || r.at < purged_before {
            continue;
        }
        let replayed = NotifyRow {
            status: r.status.to_string(),
        };
        out.row(TABLE, &format!("{key:?}"), None, Some(&replayed));
    }
    Ok(())
}
