//! Rebuilding [`Tables`] from the events, in memory and without I/O: the
//! write model by each stream's own rules, the projections through the same
//! pure fold the live workers use (`domain::projection`).

use std::collections::HashMap;

use serde_json::Value;
use uuid::Uuid;

use super::tables::{CouponRow, Tables};
use crate::domain::events::{
    CouponIssued, TemplateCreated, TemplateQuotaRaised, TemplateStatusChanged,
};
use crate::domain::projection::{
    CouponView, Effect, ProjectionError, StreamKind, coupon_effect, order_effect, stream_kind,
};

/// The state of a replay after the events folded so far.
#[derive(Default)]
pub struct Replay {
    pub tables: Tables,
    views: HashMap<Uuid, CouponView>,
}

impl Replay {
    /// Folds one event (events must come in each stream's version order).
    pub fn apply(
        &mut self,
        stream_id: &str,
        version: i32,
        event_type: &str,
        payload: &Value,
    ) -> Result<(), ProjectionError> {
        match stream_kind(stream_id) {
            StreamKind::Coupon(id) => self.coupon(id, version, event_type, payload),
            StreamKind::Order => self.order(stream_id, version, event_type, payload),
            StreamKind::Other if stream_id.starts_with("template-") => {
                self.template(version, event_type, payload)
            }
            StreamKind::Other => Ok(()),
        }
    }

    fn coupon(
        &mut self,
        id: Uuid,
        version: i32,
        event_type: &str,
        payload: &Value,
    ) -> Result<(), ProjectionError> {
        let effect = coupon_effect(self.views.get(&id), event_type, version, payload)?;
        let t = &mut self.tables;
        let (view, from) = match effect {
            Effect::Issued(view) => {
                let issued: CouponIssued = parse(event_type, payload)?;
                t.template_totals
                    .entry(view.template_sn.clone())
                    .or_default()
                    .issued += 1;
                if issued.refund_from.is_none() {
                    // Reissues after a refund take no quota and no per-user count.
                    t.templates
                        .entry(view.template_sn.clone())
                        .or_default()
                        .issued += 1;
                    *t.user_claims
                        .entry((view.template_sn.clone(), view.user_id.clone()))
                        .or_default() += 1;
                }
                (view, None)
            }
            Effect::Moved { from, view } => (view, Some(from)),
            _ => return Ok(()),
        };
        let status = view.status.as_str();
        t.coupons.insert(
            id,
            CouponRow {
                status: status.to_owned(),
                version,
            },
        );
        let face = view.face_value;
        let mut count = |status: &str, sign: i64| {
            let owners = [
                (&mut t.balances, &view.user_id),
                (&mut t.template_stats, &view.template_sn),
            ];
            for (map, owner) in owners {
                let b = map.entry((owner.clone(), status.to_owned())).or_default();
                b.count += sign;
                b.face_value += sign * face;
            }
        };
        count(status, 1);
        if let Some(from) = from {
            count(from.as_str(), -1);
        }
        self.views.insert(id, view);
        Ok(())
    }

    fn order(
        &mut self,
        stream_id: &str,
        version: i32,
        event_type: &str,
        payload: &Value,
    ) -> Result<(), ProjectionError> {
        let order_id = stream_id.trim_start_matches("order-").to_owned();
        let status = match event_type {
            "OrderLocked" => Some("locked"),
            "OrderConfirmed" => Some("confirmed"),
            "OrderCancelled" if version == 1 => Some("cancelled_before_lock"),
            "OrderCancelled" => Some("cancelled"),
            "OrderReleased" => Some("released"),
            _ => None,
        };
        let row = self.tables.orders.entry(order_id).or_default();
        row.version = version;
        if let Some(status) = status {
            row.status = status.to_owned();
        }
        match order_effect(event_type, payload)? {
            Effect::Discounts(discounts) => {
                for (id, cents) in discounts {
                    if let Some(view) = self.views.get_mut(&id) {
                        view.locked_discount = cents;
                    }
                }
            }
            Effect::Confirmed(ids) => {
                let costs: Vec<(Uuid, Option<i64>)> =
                    ids.into_iter().map(|id| (id, None)).collect();
                self.add_cost(&costs);
            }
            Effect::Reversals(reversals) => {
                let costs: Vec<(Uuid, Option<i64>)> = reversals
                    .into_iter()
                    .map(|(id, c)| (id, Some(-c)))
                    .collect();
                self.add_cost(&costs);
            }
            _ => {}
        }
        Ok(())
    }

    fn add_cost(&mut self, costs: &[(Uuid, Option<i64>)]) {
        for (id, cents) in costs {
            if let Some(view) = self.views.get(id) {
                let cost = cents.unwrap_or(view.locked_discount);
                self.tables
                    .template_totals
                    .entry(view.template_sn.clone())
                    .or_default()
                    .cost += cost;
            }
        }
    }

    fn template(
        &mut self,
        version: i32,
        event_type: &str,
        payload: &Value,
    ) -> Result<(), ProjectionError> {
        let sn = payload
            .get("sn")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_owned();
        let row = self.tables.templates.entry(sn).or_default();
        row.version = version;
        match event_type {
            "TemplateCreated" => {
                let created: TemplateCreated = parse(event_type, payload)?;
                row.status = "draft".into();
                row.total = created.total;
            }
            "TemplateActivated" | "TemplateStopped" | "TemplateVoided" => {
                let changed: TemplateStatusChanged = parse(event_type, payload)?;
                row.status = changed.to;
            }
            "TemplateQuotaRaised" => {
                let raised: TemplateQuotaRaised = parse(event_type, payload)?;
                row.total = raised.total;
            }
            _ => {}
        }
        Ok(())
    }
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
