//! Rebuilding [`Tables`] from the events, in memory and without I/O: each
//! coupon's row by the coupon state machine (`coupon_state::apply`), the
//! projections through the pure fold the live workers use
//! (`domain::projection`), the other tables by their streams' events.

use std::collections::HashMap;

use chrono::{DateTime, Utc};
use serde::Deserialize;
use serde_json::Value;
use uuid::Uuid;

use super::tables::{
    BucketRow, Cents, ChannelRow, CouponRow, OrderRow, Present, RefundRow, Tables, TemplateRow,
};
use crate::domain::coupon_state::{self, CouponChange, CouponState};
use crate::domain::events::{
    ChannelCreated, CouponChanged, CouponIssued, TemplateChannelAllowed, TemplateCreated,
    TemplateQuotaRaised, TemplateStatusChanged, TemplateUpdated,
};
use crate::domain::projection::{
    CouponView, Effect, ProjectionError, StreamKind, coupon_effect, order_effect, stream_kind,
};
use crate::domain::terms::Terms;

/// One stored event, as the replay reads it.
pub struct Event<'a> {
    pub stream_id: &'a str,
    pub version: i32,
    pub event_type: &'a str,
    pub payload: &'a Value,
    pub occurred_at: DateTime<Utc>,
}

/// What the log says of one coupon so far.
pub struct ReplayedCoupon {
    /// What the projections know (owner, template, bucket, discount).
    pub view: CouponView,
    /// By the state machine: status, order, expiry.
    pub state: CouponState,
    pub issued_at: DateTime<Utc>,
    pub effective_at: DateTime<Utc>,
    pub channel_id: Option<Uuid>,
    pub refund_from: Option<Uuid>,
}

impl ReplayedCoupon {
    /// The `coupons` row the log implies.
    pub fn into_row(self) -> CouponRow {
        CouponRow {
            template_sn: self.view.template_sn,
            user_id: self.view.user_id,
            status: self.state.status.as_str().to_owned(),
            order_id: self.state.order_id,
            issued_at: self.issued_at,
            effective_at: self.effective_at,
            expires_at: self.state.expires_at,
            channel_id: self.channel_id,
            refund_from: self.refund_from,
            version: self.view.version,
        }
    }
}

/// The state of a replay after the events folded so far. `tables.coupons`
/// stays empty: the coupons are in `coupons`, rows made when compared.
#[derive(Default)]
pub struct Replay {
    pub tables: Tables,
    pub coupons: HashMap<Uuid, ReplayedCoupon>,
    /// Refunds of each order so far (the next one's `seq`).
    refunds_per_order: HashMap<String, i32>,
}

impl Replay {
    /// Folds one event (events must come in each stream's version order).
    pub fn apply(&mut self, e: &Event<'_>) -> Result<(), ProjectionError> {
        match stream_kind(e.stream_id) {
            StreamKind::Coupon(id) => self.coupon(id, e),
            StreamKind::Order => self.order(e),
            StreamKind::Other if e.stream_id.starts_with("template-") => self.template(e),
            StreamKind::Other if e.stream_id.starts_with("channel-") => self.channel(e),
            StreamKind::Other => Ok(()),
        }
    }

    fn coupon(&mut self, id: Uuid, e: &Event<'_>) -> Result<(), ProjectionError> {
        let known = self.coupons.get(&id).map(|c| &c.view);
        match coupon_effect(known, e.event_type, e.version, e.payload)? {
            Effect::Issued(view) => {
                let issued: CouponIssued = parse(e.event_type, e.payload)?;
                self.count_issue(&issued);
                self.count_bucket(&view, view.status.as_str(), 1);
                let coupon = ReplayedCoupon {
                    view,
                    state: coupon_state::issued(issued.expires_at),
                    issued_at: issued.issued_at,
                    effective_at: issued.effective_at,
                    channel_id: issued.channel_id,
                    refund_from: issued.refund_from,
                };
                self.coupons.insert(id, coupon);
            }
            Effect::Moved { from, view } => {
                let changed: CouponChanged = parse(e.event_type, e.payload)?;
                self.count_bucket(&view, view.status.as_str(), 1);
                self.count_bucket(&view, from.as_str(), -1);
                let change = CouponChange::from_event(e.event_type, &changed);
                if let (Some(coupon), Some(change)) = (self.coupons.get_mut(&id), change) {
                    coupon.state = coupon_state::apply(&coupon.state, &change);
                    coupon.view = view;
                }
            }
            _ => {}
        }
        Ok(())
    }

    /// Counts an issue for the template; a first issue (not a reissue after
    /// a refund, which takes no quota) also for the quota and the user.
    fn count_issue(&mut self, issued: &CouponIssued) {
        let t = &mut self.tables;
        let sn = &issued.template_sn;
        t.template_totals.entry(sn.clone()).or_default().issued += 1;
        if issued.refund_from.is_none() {
            t.templates.entry(sn.clone()).or_default().issued += 1;
            let key = (sn.clone(), issued.user_id.clone());
            t.user_claims.entry(key).or_default().claimed += 1;
        }
    }

    /// Adds `sign` coupons of `view` to the `status` buckets of its user and template.
    fn count_bucket(&mut self, view: &CouponView, status: &str, sign: i64) {
        let t = &mut self.tables;
        let owners = [
            (&mut t.balances, &view.user_id),
            (&mut t.template_stats, &view.template_sn),
        ];
        for (map, owner) in owners {
            let bucket: &mut BucketRow = map.entry((owner.clone(), status.to_owned())).or_default();
            bucket.count += sign;
            bucket.face_value.0 += sign * view.face_value;
        }
    }

    fn order(&mut self, e: &Event<'_>) -> Result<(), ProjectionError> {
        let order_id = e.stream_id.trim_start_matches("order-").to_owned();
        let row = self.tables.orders.entry(order_id.clone()).or_default();
        row.version = e.version;
        match e.event_type {
            "OrderLocked" => lock_order(row, e)?,
            "OrderConfirmed" => row.status = "confirmed".into(),
            "OrderCancelled" if e.version == 1 => row.status = "cancelled_before_lock".into(),
            "OrderCancelled" => row.status = "cancelled".into(),
            "OrderReleased" => row.status = "released".into(),
            _ => {}
        }
        if e.event_type == "OrderRefunded" {
            self.refund(order_id, e)?;
        }
        match order_effect(e.event_type, e.payload)? {
            Effect::Discounts(discounts) => {
                for (id, cents) in discounts {
                    if let Some(coupon) = self.coupons.get_mut(&id) {
                        coupon.view.locked_discount = cents;
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

    fn refund(&mut self, order_id: String, e: &Event<'_>) -> Result<(), ProjectionError> {
        #[derive(Deserialize)]
        struct Refunded {
            refund_id: String,
            refund: Value,
        }
        let refunded: Refunded = parse(e.event_type, e.payload)?;
        // `seq` counts the order's earlier refunds (0 for the first).
        let earlier = self.refunds_per_order.entry(order_id.clone()).or_default();
        let row = RefundRow {
            seq: *earlier,
            refund: refunded.refund,
            created_at: e.occurred_at,
        };
        *earlier += 1;
        let key = (order_id, refunded.refund_id);
        self.tables.refunds.insert(key, row);
        Ok(())
    }

    /// A confirmed coupon's discount becomes its template's cost (`None`),
    /// or a refund reverses part of it.
    fn add_cost(&mut self, id: Uuid, cents: Option<i64>) {
        if let Some(coupon) = self.coupons.get(&id) {
            let view = &coupon.view;
            let cost = cents.unwrap_or(view.locked_discount);
            let totals = self.tables.template_totals.entry(view.template_sn.clone());
            totals.or_default().cost.0 += cost;
        }
    }

    fn template(&mut self, e: &Event<'_>) -> Result<(), ProjectionError> {
        let sn = e.stream_id.trim_start_matches("template-").to_owned();
        if e.event_type == "TemplateChannelAllowed" {
            let allowed: TemplateChannelAllowed = parse(e.event_type, e.payload)?;
            let key = (sn.clone(), allowed.channel_id);
            self.tables.template_channels.insert(key, Present {});
        }
        let row = self.tables.templates.entry(sn).or_default();
        row.version = e.version;
        match e.event_type {
            "TemplateCreated" => create_template(row, e)?,
            "TemplateActivated" | "TemplateStopped" | "TemplateVoided" => {
                let changed: TemplateStatusChanged = parse(e.event_type, e.payload)?;
                row.status = changed.to;
            }
            "TemplateQuotaRaised" => {
                let raised: TemplateQuotaRaised = parse(e.event_type, e.payload)?;
                row.total = raised.total;
            }
            "TemplateUpdated" => {
                let updated: TemplateUpdated = parse(e.event_type, e.payload)?;
                row.name = updated.name.unwrap_or(std::mem::take(&mut row.name));
                if let Some(remind) = updated.remind_days_before {
                    row.remind_days_before = remind;
                }
            }
            _ => {}
        }
        Ok(())
    }

    fn channel(&mut self, e: &Event<'_>) -> Result<(), ProjectionError> {
        if e.event_type == "ChannelCreated" {
            let created: ChannelCreated = parse(e.event_type, e.payload)?;
            let row = ChannelRow {
                name: created.name,
                created_at: e.occurred_at,
            };
            self.tables.channels.insert(created.channel_id, row);
        }
        Ok(())
    }
}

fn lock_order(row: &mut OrderRow, e: &Event<'_>) -> Result<(), ProjectionError> {
    #[derive(Deserialize)]
    struct Locked {
        user_id: String,
        order: Value,
        allocations: Value,
        coupon_ids: Vec<Uuid>,
        lock_expires_at: DateTime<Utc>,
    }
    let locked: Locked = parse(e.event_type, e.payload)?;
    row.status = "locked".into();
    row.user_id = Some(locked.user_id);
    row.order_body = Some(locked.order);
    row.allocations = Some(locked.allocations);
    row.coupon_ids = locked.coupon_ids;
    row.lock_expires_at = Some(locked.lock_expires_at);
    Ok(())
}

/// The row of a new template (its `issued` counts what was replayed so far).
fn create_template(row: &mut TemplateRow, e: &Event<'_>) -> Result<(), ProjectionError> {
    let created: TemplateCreated = parse(e.event_type, e.payload)?;
    let terms = Terms::parse(&created.terms).map_err(|err| ProjectionError::Payload {
        event_type: e.event_type.to_owned(),
        message: err.to_string(),
    })?;
    *row = TemplateRow {
        name: created.name,
        kind: terms.kind().as_str().to_owned(),
        currency: terms.currency().as_str().to_owned(),
        terms: e.payload.get("terms").cloned().unwrap_or_default(),
        face_value: Cents(terms.face_value().cents()),
        issue_begin: created.issue_window.begin,
        issue_end: created.issue_window.end,
        total: created.total,
        issued: row.issued,
        per_user_limit: created.per_user_limit,
        refund_policy: created.refund_policy,
        remind_days_before: created.remind_days_before,
        status: "draft".into(),
        version: e.version,
        created_at: e.occurred_at,
    };
    Ok(())
}

fn parse<T: serde::de::DeserializeOwned>(
    event_type: &str,
    payload: &Value,
) -> Result<T, ProjectionError> {
    T::deserialize(payload).map_err(|e| ProjectionError::Payload {
        event_type: event_type.to_owned(),
        message: e.to_string(),
    })
}
