//! Rebuilding [`Tables`] from the events, in memory and without I/O: each
//! coupon by the coupon state machine (`coupon_state::apply`), the
//! projections from the coupons as the log leaves them ([`counts`]),
//! costs through the pure order fold the live workers use
//! (`domain::projection::order_effect`), the other tables by their streams'
//! events.

use std::borrow::Cow;
use std::collections::hash_map::Entry;

use chrono::{DateTime, Utc};
use serde::Deserialize;
use serde_json::Value;
use uuid::Uuid;

use super::tables::{
    Cents, ChannelRow, Counts, CouponRow, Map, Names, OrderRow, Present, RefundRow, Sym, Tables,
    TemplateRow,
};
use crate::domain::coupon_state::{self, CouponState};
use crate::domain::events::TemplateCreated;
use crate::domain::ledger_event::{DecodeError, EventType, LedgerEvent, check_type};
use crate::domain::money::Money;
use crate::domain::order_status::OrderStatus;
use crate::domain::projection::{Effect, ProjectionError, order_effect};
use crate::domain::reminder::RemindDays;
use crate::domain::stream::{Stream, StreamKind, UnknownStream};
use crate::domain::template_status::TemplateStatus;
use crate::domain::terms::Terms;

/// One stored event, as the replay reads it.
pub struct Event<'a> {
    pub stream_id: &'a str,
    pub version: i32,
    pub event_type: &'a str,
    pub schema_version: i16,
    /// The payload's JSON text, parsed once, into what its type needs.
    pub payload: &'a [u8],
    pub occurred_at: DateTime<Utc>,
}

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
    #[error("TemplateCreated terms do not parse: {0}")]
    Terms(String),
}

/// The projections (status buckets per user and per template) and the claim
/// counts, from each coupon as the log leaves it: their definition, computed
/// apart from the workers' event-by-event fold.
pub fn counts(coupons: &Map<Uuid, ReplayedCoupon>) -> Counts {
    let mut counts = Counts::default();
    counts.balances.reserve(coupons.len());
    counts.user_claims.reserve(coupons.len());
    for c in coupons.values() {
        let status = c.state.status;
        let owners = [
            (&mut counts.balances, c.user),
            (&mut counts.template_stats, c.template),
        ];
        for (map, owner) in owners {
            let bucket = map.entry((owner, status)).or_default();
            bucket.count += 1;
            bucket.face_value.0 += c.face_value;
        }
        // Reissues after a refund take no quota and no per-user count.
        if c.refund_from.is_none() {
            let claims = counts.user_claims.entry((c.template, c.user));
            claims.or_default().claimed += 1;
        }
    }
    counts
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

/// What the log says of one coupon so far.
pub struct ReplayedCoupon {
    pub template: Sym,
    pub user: Sym,
    /// Face value, in cents.
    pub face_value: i64,
    /// By the state machine: status, order, expiry.
    pub state: CouponState,
    /// The stream's version: every event moves it, as it moves the row's.
    pub version: i32,
    /// What the coupon takes off the order holding it (from `OrderLocked`).
    pub locked_discount: i64,
    pub issued_at: DateTime<Utc>,
    pub effective_at: DateTime<Utc>,
    pub channel_id: Option<Uuid>,
    pub refund_from: Option<Uuid>,
    /// The bulk-issuance job and line that issued it.
    pub job_id: Option<Uuid>,
    pub job_line: Option<i64>,
}

impl ReplayedCoupon {
    /// The `coupons` row the log implies.
    pub fn row(&self, names: &Names) -> CouponRow {
        CouponRow {
            template_sn: names.name(self.template).to_owned(),
            user_id: names.name(self.user).to_owned(),
            status: self.state.status.as_str().to_owned(),
            order_id: self.state.order_id.clone(),
            issued_at: self.issued_at,
            effective_at: self.effective_at,
            expires_at: self.state.expires_at,
            channel_id: self.channel_id,
            refund_from: self.refund_from,
            job_id: self.job_id,
            job_line: self.job_line,
            version: self.version,
        }
    }
}

/// The state of a replay after the events folded so far. The coupons are
/// kept apart from `tables`; [`counts`] adds them up into the projections
/// and claims.
#[derive(Default)]
pub struct Replay {
    pub tables: Tables,
    pub coupons: Map<Uuid, ReplayedCoupon>,
    /// Refunds of each order so far (the next one's `seq`).
    refunds_per_order: Map<String, i32>,
}

/// The most coupons a replay sizes its maps for up front (50 million).
pub const MAX_PRESIZE: usize = 50_000_000;

impl Replay {
    /// A replay whose coupon map holds `coupons` entries without regrowing.
    pub fn with_capacity(coupons: usize) -> Self {
        let mut replay = Replay::default();
        replay.coupons.reserve(coupons);
        replay
    }

    /// Folds one event (events must come in each stream's version order).
    pub fn apply(&mut self, e: &Event<'_>) -> Result<(), FoldError> {
        let event_type = check_type(e.event_type, e.schema_version)?;
        let stream = Stream::parse(e.stream_id)?;
        if event_type.stream_kind() != stream.kind() {
            return Err(FoldError::WrongStream {
                event_type: event_type.as_str(),
                stream: stream.kind(),
            });
        }
        match stream {
            // Most events are issues: read with borrowed strings, not decoded.
            Stream::Coupon(id) if event_type == EventType::CouponIssued => {
                self.issue(id, e.version, &parse_json(e)?)
            }
            Stream::Coupon(id) => self.change(id, e, &decode(e)?),
            Stream::Order(order_id) => self.order(order_id, e),
            Stream::Template(sn) => self.template(sn, e),
            Stream::Channel(_) => self.channel(e, &decode(e)?),
        }
    }

    fn issue(&mut self, id: Uuid, version: i32, issued: &Issued<'_>) -> Result<(), FoldError> {
        let Entry::Vacant(slot) = self.coupons.entry(id) else {
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
        slot.insert(ReplayedCoupon {
            template: t.names.intern(&issued.template_sn),
            user: t.names.intern(&issued.user_id),
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
        });
        Ok(())
    }

    /// A coupon's later event, through the state machine.
    fn change(&mut self, id: Uuid, e: &Event<'_>, event: &LedgerEvent) -> Result<(), FoldError> {
        let coupon = self
            .coupons
            .get_mut(&id)
            .ok_or_else(|| ProjectionError::UnknownCoupon {
                event_type: event.event_type().as_str(),
                version: e.version,
            })?;
        coupon.version = e.version;
        if let Some(change) = event.coupon_change() {
            coupon.state = coupon_state::apply(&coupon.state, &change);
        }
        Ok(())
    }

    /// An order's event. The row keeps the payload's own JSON (order,
    /// allocations, refund) as the live row does.
    fn order(&mut self, order_id: &str, e: &Event<'_>) -> Result<(), FoldError> {
        let payload = parse_json::<Value>(e)?;
        let event = LedgerEvent::decode(e.event_type, e.schema_version, &payload)?;
        let row = self.tables.orders.entry(order_id.to_owned()).or_default();
        row.version = e.version;
        lock_order(row, &event, &payload);
        if let Some(status) = order_status_after(&event, e.version) {
            row.status = status.as_str().to_owned();
        }
        if let LedgerEvent::OrderRefunded(refunded) = &event {
            let refund = payload.get("refund").cloned().unwrap_or_default();
            self.refund(order_id, &refunded.refund_id, refund, e.occurred_at);
        }
        match order_effect(&event) {
            Effect::Discounts(discounts) => {
                for (id, cents) in discounts {
                    if let Some(coupon) = self.coupons.get_mut(&id) {
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

    fn refund(&mut self, order_id: &str, refund_id: &str, refund: Value, at: DateTime<Utc>) {
        // `seq` counts the order's earlier refunds (0 for the first).
        let earlier = by_name(&mut self.refunds_per_order, order_id);
        let row = RefundRow {
            seq: *earlier,
            refund,
            created_at: at,
        };
        *earlier += 1;
        let key = (order_id.to_owned(), refund_id.to_owned());
        self.tables.refunds.insert(key, row);
    }

    /// A confirmed coupon's discount becomes its template's cost (`None`),
    /// or a refund reverses part of it.
    fn add_cost(&mut self, id: Uuid, cents: Option<i64>) {
        if let Some(coupon) = self.coupons.get(&id) {
            let cost = cents.unwrap_or(coupon.locked_discount);
            let t = &mut self.tables;
            let template = t.names.name(coupon.template);
            by_name(&mut t.template_totals, template).cost.0 += cost;
        }
    }

    fn template(&mut self, sn: &str, e: &Event<'_>) -> Result<(), FoldError> {
        let payload = parse_json::<Value>(e)?;
        let event = LedgerEvent::decode(e.event_type, e.schema_version, &payload)?;
        if let LedgerEvent::TemplateChannelAllowed(allowed) = &event {
            let key = (sn.to_owned(), allowed.channel_id);
            self.tables.template_channels.insert(key, Present {});
        }
        let row = by_name(&mut self.tables.templates, sn);
        row.version = e.version;
        match event {
            LedgerEvent::TemplateCreated(created) => {
                let terms = payload.get("terms").cloned().unwrap_or_default();
                create_template(row, e, created, terms)?
            }
            LedgerEvent::TemplateActivated(changed)
            | LedgerEvent::TemplateStopped(changed)
            | LedgerEvent::TemplateVoided(changed) => row.status = changed.to,
            LedgerEvent::TemplateQuotaRaised(raised) => row.total = raised.total,
            LedgerEvent::TemplateUpdated(updated) => {
                row.name = updated.name.unwrap_or(std::mem::take(&mut row.name));
                if let Some(remind) = updated.remind_days_before {
                    row.remind_days_before = remind.as_ref().map(RemindDays::to_db);
                }
            }
            _ => {}
        }
        Ok(())
    }

    fn channel(&mut self, e: &Event<'_>, event: &LedgerEvent) -> Result<(), FoldError> {
        if let LedgerEvent::ChannelCreated(created) = event {
            let row = ChannelRow {
                name: created.name.clone(),
                created_at: e.occurred_at,
            };
            self.tables.channels.insert(created.channel_id, row);
        }
        Ok(())
    }
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
    row.user_id = Some(locked.user_id.clone());
    row.order_body = payload.get("order").cloned();
    row.allocations = payload.get("allocations").cloned();
    row.coupon_ids = locked.coupon_ids.clone();
    row.lock_expires_at = Some(locked.lock_expires_at);
}

/// The row of a new template (its `issued` counts what was replayed so far).
fn create_template(
    row: &mut TemplateRow,
    e: &Event<'_>,
    created: TemplateCreated,
    terms_json: Value,
) -> Result<(), FoldError> {
    let terms = Terms::parse(&created.terms).map_err(|err| FoldError::Terms(err.to_string()))?;
    *row = TemplateRow {
        name: created.name,
        kind: terms.kind().as_str().to_owned(),
        currency: terms.currency().as_str().to_owned(),
        terms: terms_json,
        face_value: Cents(terms.face_value().cents()),
        issue_begin: created.issue_window.begin,
        issue_end: created.issue_window.end,
        total: created.total,
        issued: row.issued,
        per_user_limit: created.per_user_limit,
        refund_policy: created.refund_policy,
        remind_days_before: created.remind_days_before.as_ref().map(RemindDays::to_db),
        status: TemplateStatus::Draft.as_str().to_owned(),
        version: e.version,
        created_at: e.occurred_at,
    };
    Ok(())
}

/// The row for `name` in a map keyed by name (the key is only copied for a
/// new row).
fn by_name<'m, V: Default>(map: &'m mut Map<String, V>, name: &str) -> &'m mut V {
    if !map.contains_key(name) {
        map.insert(name.to_owned(), V::default());
    }
    map.get_mut(name).expect("inserted above")
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
