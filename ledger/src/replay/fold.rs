//! Rebuilding the tables from the events, in memory and without I/O: each
//! coupon by the coupon state machine (`coupon_state::apply`), the
//! projections from the coupons as the log leaves them (`template_stats`
//! here, the per-user tables through [`super::holdings`]), costs through
//! the pure order fold the live workers use
//! (`domain::projection::order_effect`), the other tables by their streams'
//! events.
//!
//! A replay runs in passes (see [`super::partition`]): what is per coupon
//! or per order is the pass's ([`Pass`]), what is per template or channel
//! is added up over every pass ([`Tables`]). Each event is folded in one
//! pass, except an order's, which also reaches the passes of the coupons it
//! touches: there it moves their discounts and costs, and only its own pass
//! builds its rows.

use std::borrow::Cow;
use std::collections::hash_map::Entry;

use chrono::{DateTime, Utc};
use serde::Deserialize;
use serde_json::Value;
use uuid::Uuid;

use super::event::Event;
use super::notify_steps::{Grant, Step, StepChange};
use super::tables::{
    BucketRow, Map, Names, OrderRow, OrderRows, RefundRow, ReplayedCoupon, Sym, Tables, by_name,
};
use super::template_fold::json_field;
use super::{budgets_fold, codes_fold, keys_fold, template_fold};
use crate::domain::coupon_state::{self, CouponStatus};
use crate::domain::events::CouponIssued;
use crate::domain::ledger_event::{DecodeError, EventType, LedgerEvent, check_type};
use crate::domain::money::Money;
use crate::domain::order_status::OrderStatus;
use crate::domain::projection::{Effect, ProjectionError, order_effect};
use crate::domain::reminder::NotifyClock;
use crate::domain::reminder::{HolderChange, Reminder, day_of, holder_change, reminders};
use crate::domain::stream::{Stream, StreamKind, UnknownStream};
use crate::domain::upcast;

/// Why an event could not be folded.
#[derive(Debug, thiserror::Error)]
pub enum FoldError {
    #[error(transparent)]
    Decode(#[from] DecodeError),
    #[error(transparent)]
    Stream(#[from] UnknownStream),
    #[error(transparent)]
    Projection(#[from] ProjectionError),
    #[error("{event_type} on a {stream:?} stream")]
    WrongStream {
        event_type: &'static str,
        stream: StreamKind,
    },
    #[error("a created template's terms do not parse: {0}")]
    Terms(String),
    /// The ledger writes `coupon-<uuid>` in lower case; the passes are
    /// told apart by that text (and the live coupons by `'coupon-' || id`).
    #[error("coupon stream id {0:?} is not as the ledger writes it (coupon-<lower-case uuid>)")]
    NotCanonical(String),
}

/// Adds the coupons of a pass to the per-template status buckets (the
/// `template_stats` projection's definition: every coupon counted by its
/// final status, apart from the workers' event-by-event fold).
pub fn add_template_stats(pass: &Pass, stats: &mut Map<(String, CouponStatus), BucketRow>) {
    let mut by_sym: Map<(Sym, CouponStatus), BucketRow> = Map::default();
    for c in pass.coupons.values() {
        let bucket = by_sym.entry((c.template, c.state.status)).or_default();
        bucket.count += 1;
        bucket.face_value.0 += c.face_value;
    }
    for ((template, status), add) in by_sym {
        let key = (pass.names.name(template).to_owned(), status);
        let bucket = stats.entry(key).or_default();
        bucket.count += add.count;
        bucket.face_value.0 += add.face_value.0;
    }
}

/// `CouponIssued` as the replay needs it, its strings borrowed from the
/// payload's text where they can be (a million issues, no copies).
#[derive(Deserialize)]
struct Issued<'a> {
    #[serde(borrow)]
    template_sn: Cow<'a, str>,
    #[serde(borrow)]
    user_id: Cow<'a, str>,
    issued_at: DateTime<Utc>,
    effective_at: DateTime<Utc>,
    expires_at: DateTime<Utc>,
    face_value: Money,
    channel_id: Option<Uuid>,
    refund_from: Option<Uuid>,
    job_id: Option<Uuid>,
    job_line: Option<u64>,
}

/// The state of a replay after the events folded so far: the tables added
/// up over the passes, and the current pass.
#[derive(Default)]
pub struct Replay {
    pub tables: Tables,
    pub pass: Pass,
    /// When `notify_msg` is checked, the clock reminders are due by.
    notify: Option<NotifyClock>,
    /// The reminder steps folded since the caller last took them, each
    /// with its user's bucket.
    pub steps: Vec<(u32, Step)>,
}

/// What one pass folds: its coupons and the names they refer to, its
/// orders' rows.
#[derive(Default)]
pub struct Pass {
    /// The user ids and template sns the coupons refer to.
    pub names: Names,
    pub coupons: Map<Uuid, ReplayedCoupon>,
    pub orders: OrderRows,
}

/// The most coupons a pass sizes its map for up front (50 million).
pub const MAX_PRESIZE: usize = 50_000_000;

impl Replay {
    /// A replay that also folds the reminders when `notify` is given.
    pub fn new(notify: Option<NotifyClock>) -> Self {
        Replay {
            notify,
            ..Replay::default()
        }
    }

    /// Starts a pass whose coupon map holds `coupons` entries without
    /// regrowing (the pass before it was taken, see `pass::finish`).
    pub fn start_pass(&mut self, coupons: usize) {
        let mut pass = Pass::default();
        pass.coupons.reserve(coupons);
        self.pass = pass;
    }

    /// Whether the reminders are folded too.
    pub fn notifies(&self) -> bool {
        self.notify.is_some()
    }

    /// Folds one event (events must come in each stream's version order).
    /// A payload stored at an older version is read as its upcast to the
    /// current one (`domain::upcast`), text and all.
    pub fn apply(&mut self, stored: &Event<'_>) -> Result<(), FoldError> {
        let event_type = check_type(stored.event_type, stored.schema_version)?;
        let payload = upcast::bytes_to_current(event_type, stored.schema_version, stored.payload)
            .map_err(|message| DecodeError::Payload {
            event_type: event_type.as_str(),
            message,
        })?;
        let e = &Event {
            payload: &payload,
            schema_version: event_type.schema_version(),
            ..*stored
        };
        let stream = Stream::parse(e.stream_id)?;
        if event_type.stream_kind() != stream.kind() {
            return Err(FoldError::WrongStream {
                event_type: event_type.as_str(),
                stream: stream.kind(),
            });
        }
        match stream {
            Stream::Coupon(id) if !is_canonical(e.stream_id, id) => {
                Err(FoldError::NotCanonical(e.stream_id.to_owned()))
            }
            // Most events are issues: read with borrowed strings, not decoded.
            Stream::Coupon(id) if event_type == EventType::CouponIssued => {
                let issued = parse_json(e)?;
                let rows = self.due(e)?;
                self.issue(id, e, &issued, rows)
            }
            Stream::Coupon(id) => self.change(id, e, &decode(e)?),
            Stream::Order(order_id) => self.order(order_id, e),
            Stream::Template(sn) => {
                let payload = parse_json::<Value>(e)?;
                let event = LedgerEvent::decode(e.event_type, e.schema_version, &payload)?;
                template_fold::template(&mut self.tables, sn, e, event, &payload)
                    .map_err(FoldError::Terms)
            }
            Stream::Channel(_) => {
                template_fold::channel(&mut self.tables, e, &decode(e)?);
                Ok(())
            }
            Stream::ApiKey(id) => {
                keys_fold::apply(&mut self.tables, id, e, &decode(e)?);
                Ok(())
            }
            Stream::AllowList(sn) => {
                template_fold::allow_list(&mut self.tables, sn, e, &decode(e)?);
                Ok(())
            }
            Stream::CodeBatch(_) | Stream::Code(..) | Stream::Package(_) => {
                codes_fold::apply(&mut self.tables, stream, e, &decode(e)?);
                Ok(())
            }
        }
    }

    /// The notify rows of an issue, when they are checked: the notify
    /// projection's reading of the whole event (so a payload it would
    /// refuse is refused here too), then the reminders' days by its rules
    /// and its job's granted row.
    fn due(&self, e: &Event<'_>) -> Result<(Vec<Reminder>, Option<Grant>), FoldError> {
        let Some(clock) = self.notify else {
            return Ok((Vec::new(), None));
        };
        let LedgerEvent::CouponIssued(issued) = decode(e)? else {
            return Ok((Vec::new(), None));
        };
        let CouponIssued {
            remind_days_before,
            expires_at,
            issued_at,
            job_id,
            job_notify,
            ..
        } = issued;
        let due = remind_days_before.map_or_else(Vec::new, |offsets| {
            reminders(expires_at, issued_at, &offsets, clock.tz, clock.at)
        });
        let grant = job_id
            .filter(|_| job_notify)
            .map(|job| Grant { job, at: issued_at });
        Ok((due, grant))
    }

    fn issue(
        &mut self,
        id: Uuid,
        e: &Event<'_>,
        issued: &Issued<'_>,
        (due, grant): (Vec<Reminder>, Option<Grant>),
    ) -> Result<(), FoldError> {
        let version = e.version;
        let Entry::Vacant(slot) = self.pass.coupons.entry(id) else {
            return Err(ProjectionError::IssuedTwice(version).into());
        };
        if version != 1 {
            return Err(ProjectionError::IssuedTwice(version).into());
        }
        let t = &mut self.tables;
        by_name(&mut t.template_totals, &issued.template_sn).issued += 1;
        if issued.refund_from.is_none() {
            by_name(&mut t.templates, &issued.template_sn).issued += 1;
        }
        let names = &mut self.pass.names;
        slot.insert(ReplayedCoupon {
            template: names.intern(&issued.template_sn),
            user: names.intern(&issued.user_id),
            face_value: issued.face_value.cents(),
            state: coupon_state::issued(issued.expires_at),
            version,
            locked_discount: 0,
            issued_at: issued.issued_at,
            effective_at: issued.effective_at,
            channel_id: issued.channel_id,
            refund_from: issued.refund_from,
            job_id: issued.job_id,
            job_line: issued
                .job_line
                .map(|l| i64::try_from(l).unwrap_or(i64::MAX)),
            bucket: e.bucket,
            reminded: !due.is_empty() || grant.is_some(),
            changed_at: None,
        });
        if !due.is_empty() || grant.is_some() {
            let change = StepChange::Issued {
                user: issued.user_id.clone().into_owned(),
                template: issued.template_sn.clone().into_owned(),
                due,
                grant,
            };
            self.step(e, id, e.bucket, change);
        }
        Ok(())
    }

    /// A coupon's later event, through the state machine.
    fn change(&mut self, id: Uuid, e: &Event<'_>, event: &LedgerEvent) -> Result<(), FoldError> {
        let coupon =
            self.pass
                .coupons
                .get_mut(&id)
                .ok_or_else(|| ProjectionError::UnknownCoupon {
                    event_type: event.event_type().as_str(),
                    version: e.version,
                })?;
        coupon.version = e.version;
        let Some(change) = event.coupon_change() else {
            return Ok(());
        };
        let from = coupon.state.status;
        coupon.state = coupon_state::apply(&coupon.state, &change);
        coupon.changed_at = Some(e.occurred_at);
        let (to, bucket, reminded) = (coupon.state.status, coupon.bucket, coupon.reminded);
        let moved = match (holder_change(from, to), self.notify) {
            (HolderChange::Left, _) => Some(StepChange::Left),
            (HolderChange::Returned, Some(clock)) => Some(StepChange::Returned {
                on: day_of(e.occurred_at, clock.tz),
            }),
            _ => None,
        };
        // A coupon without notify rows changes none.
        if let Some(moved) = moved.filter(|_| reminded) {
            self.step(e, id, bucket, moved);
        }
        Ok(())
    }

    /// Records a reminder step for the bucket of the coupon's user.
    fn step(&mut self, e: &Event<'_>, coupon: Uuid, bucket: u32, change: StepChange) {
        let step = Step {
            order: e.order,
            coupon,
            change,
        };
        self.steps.push((bucket, step));
    }

    /// An order's event. The row keeps the payload's own JSON (order,
    /// allocations, refund) as the live row does.
    fn order(&mut self, order_id: &str, e: &Event<'_>) -> Result<(), FoldError> {
        let payload = parse_json::<Value>(e)?;
        let event = LedgerEvent::decode(e.event_type, e.schema_version, &payload)?;
        if e.own {
            self.order_rows(order_id, e, &event, &payload);
        }
        // The coupons of other passes are not here: they move there.
        match order_effect(&event) {
            Effect::Discounts(discounts) => {
                for (id, cents) in discounts {
                    if let Some(coupon) = self.pass.coupons.get_mut(&id) {
                        coupon.locked_discount = cents;
                    }
                }
            }
            Effect::Confirmed(ids) => {
                for id in ids {
                    self.add_cost(id, None);
                }
            }
            Effect::Reversals(reversals) => {
                for (id, cents) in reversals {
                    self.add_cost(id, Some(-cents));
                }
            }
            _ => {}
        }
        Ok(())
    }

    /// The order's row and its refunds'.
    fn order_rows(&mut self, order_id: &str, e: &Event<'_>, event: &LedgerEvent, payload: &Value) {
        let row = self
            .pass
            .orders
            .orders
            .entry(order_id.to_owned())
            .or_default();
        row.version = e.version;
        lock_order(row, event, payload);
        if let Some(status) = order_status_after(event, e.version) {
            row.status = status.as_str().to_owned();
        }
        budgets_fold::order(&mut self.tables.template_budgets, row, event);
        if let LedgerEvent::OrderRefunded(refunded) = event {
            let refund = payload.get("refund").cloned().unwrap_or_default();
            self.refund(order_id, &refunded.refund_id, refund, e.occurred_at);
        }
    }

    fn refund(&mut self, order_id: &str, refund_id: &str, refund: Value, at: DateTime<Utc>) {
        // `seq` counts the order's earlier refunds (0 for the first).
        let earlier = by_name(&mut self.pass.orders.refunds_per_order, order_id);
        let row = RefundRow {
            seq: *earlier,
            refund,
            created_at: at,
        };
        *earlier += 1;
        let key = (order_id.to_owned(), refund_id.to_owned());
        self.pass.orders.refunds.insert(key, row);
    }

    /// A confirmed coupon's discount becomes its template's cost (`None`),
    /// or a refund reverses part of it.
    fn add_cost(&mut self, id: Uuid, cents: Option<i64>) {
        if let Some(coupon) = self.pass.coupons.get(&id) {
            let cost = cents.unwrap_or(coupon.locked_discount);
            let template = self.pass.names.name(coupon.template);
            by_name(&mut self.tables.template_totals, template).cost.0 += cost;
        }
    }
}

/// Whether a coupon's stream id is `coupon-<uuid>` as the ledger writes it.
fn is_canonical(stream_id: &str, id: Uuid) -> bool {
    let mut text = [0; uuid::fmt::Hyphenated::LENGTH];
    let key = stream_id.strip_prefix(StreamKind::Coupon.prefix());
    key == Some(&*id.hyphenated().encode_lower(&mut text))
}

/// The status an order's event leaves it in (a cancel before any lock,
/// at version 1, is the empty rollback).
fn order_status_after(event: &LedgerEvent, version: i32) -> Option<OrderStatus> {
    Some(match event {
        LedgerEvent::OrderLocked(_) => OrderStatus::Locked,
        LedgerEvent::OrderConfirmed(_) => OrderStatus::Confirmed,
        LedgerEvent::OrderCancelled(_) if version == 1 => OrderStatus::CancelledBeforeLock,
        LedgerEvent::OrderCancelled(_) => OrderStatus::Cancelled,
        LedgerEvent::OrderReleased(_) => OrderStatus::Released,
        _ => return None,
    })
}

/// The row of a locked order; `payload` is the event's own JSON.
fn lock_order(row: &mut OrderRow, event: &LedgerEvent, payload: &Value) {
    let LedgerEvent::OrderLocked(locked) = event else {
        return;
    };
    row.user_id = Some(locked.user_id.as_str().to_owned());
    row.order_body = payload.get("order").cloned();
    row.allocations = payload.get("allocations").cloned();
    row.coupon_ids = locked.coupon_ids.clone();
    row.lock_expires_at = Some(locked.lock_expires_at);
    row.budget_charges = json_field(payload, "budget");
}

/// The payload, parsed straight from its text into `T`.
fn parse_json<'a, T: Deserialize<'a>>(e: &Event<'a>) -> Result<T, DecodeError> {
    serde_json::from_slice(e.payload).map_err(|err| DecodeError::Payload {
        event_type: EventType::parse(e.event_type).map_or("?", EventType::as_str),
        message: err.to_string(),
    })
}

/// The payload decoded into its event.
fn decode(e: &Event<'_>) -> Result<LedgerEvent, DecodeError> {
    LedgerEvent::decode_slice(e.event_type, e.schema_version, e.payload)
}
