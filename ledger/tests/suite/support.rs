//! Helpers shared by the `domain_*` tests.

use chrono::{DateTime, TimeZone, Utc};
use ledger::domain::{Coupon, Money, Order, RawOrder, RawTerms, Terms, Validity};
use serde_json::{Value, json};

pub fn m(s: &str) -> Money {
    Money::parse(s).expect("test amount")
}

pub fn now() -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2026, 11, 11, 4, 0, 0).unwrap()
}

pub fn raw_terms(v: Value) -> RawTerms {
    serde_json::from_value(v).expect("raw terms")
}

/// Terms from a discount rule with defaults for everything else.
pub fn terms_with(discount: Value, kind: &str, stacking: &str, scope: Value) -> Terms {
    Terms::parse(&raw_terms(json!({
        "kind": kind,
        "currency": "CNY",
        "discount": discount,
        "face_value": "1.00",
        "validity": {"type": "relative", "begin_days": 0, "end_days": 7},
        "stacking": stacking,
        "use_scope": scope,
    })))
    .expect("terms")
}

pub fn goods(discount: Value) -> Terms {
    terms_with(discount, "goods", "stackable", json!([]))
}

pub fn fixed_off(threshold: &str, amount: &str) -> Value {
    json!({"type": "fixed_off", "threshold": threshold, "amount": amount})
}

pub fn always() -> Validity {
    Validity {
        effective_at: Utc.with_ymd_and_hms(2020, 1, 1, 0, 0, 0).unwrap(),
        expires_at: Utc.with_ymd_and_hms(2030, 1, 1, 0, 0, 0).unwrap(),
    }
}

pub fn coupon(id: &str, template_sn: &str, terms: Terms) -> Coupon<String> {
    Coupon {
        id: id.to_owned(),
        template_sn: template_sn.to_owned(),
        terms,
        validity: always(),
    }
}

/// An order of `(sku, category, quantity, unit price)` lines `l1, l2, …`.
pub fn order(lines: &[(&str, &str, i64, &str)], shipping: &str) -> Order {
    order_in("310000", &[], lines, shipping)
}

pub fn order_in(
    region: &str,
    tags: &[&str],
    lines: &[(&str, &str, i64, &str)],
    shipping: &str,
) -> Order {
    let raw: RawOrder = serde_json::from_value(json!({
        "order_id": "o-1",
        "user_id": "u-1",
        "currency": "CNY",
        "region": region,
        "user_tags": tags,
        "lines": lines.iter().enumerate().map(|(i, (sku, cat, q, p))| json!({
            "line_id": format!("l{}", i + 1), "sku": sku, "category": cat, "quantity": q, "unit_price": p,
        })).collect::<Vec<_>>(),
        "shipping_fee": shipping,
    }))
    .expect("raw order");
    Order::parse(&raw).expect("order")
}
