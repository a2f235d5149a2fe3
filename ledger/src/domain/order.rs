//! The order a quote, lock or refund is about (docs/design.md §7 order shape).

use std::collections::BTreeSet;

use serde::{Deserialize, Serialize};

use crate::domain::ids::ShopId;
use crate::domain::money::{Currency, MAX_CENTS, Money};
use crate::domain::parse_error::{ParseError, ParseErrorKind};

/// The most lines an order may have: bounds the work of a quote.
pub const MAX_LINES: usize = 1_000;

/// An order as it arrives: `{order_id, user_id, currency, region?,
/// user_tags?, lines: [...], shipping_fee}`. A missing `shipping_fee` is `0.00`.
#[derive(
    Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema, utoipa::ToSchema,
)]
#[serde(deny_unknown_fields)]
pub struct RawOrder {
    #[schema(value_type = crate::domain::ids::OrderId)]
    pub order_id: String,
    #[serde(deserialize_with = "crate::domain::ids::user_id_text")]
    #[schema(value_type = crate::domain::ids::UserId)]
    pub user_id: String,
    #[schema(value_type = crate::domain::money::Currency)]
    pub currency: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub region: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub user_tags: Option<Vec<String>>,
    #[schema(min_items = 1)]
    pub lines: Vec<RawLine>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<crate::domain::money::Money>)]
    pub shipping_fee: Option<String>,
}

/// One order line as it arrives.
#[derive(
    Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema, utoipa::ToSchema,
)]
#[serde(deny_unknown_fields)]
pub struct RawLine {
    #[schema(min_length = 1)]
    pub line_id: String,
    pub sku: String,
    pub category: String,
    #[schema(minimum = 1, maximum = 4_294_967_295_i64)]
    pub quantity: i64,
    #[schema(value_type = crate::domain::money::Money)]
    pub unit_price: String,
    /// The shop selling the line (a marketplace's 店铺, docs/design.md §15).
    /// Absent: the platform's own, and in every order locked before lines
    /// had shops (the stored `OrderLocked` keeps the line as it came).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<crate::domain::ids::ShopId>)]
    pub shop_id: Option<String>,
}

/// A validated order: at least one line, unique line ids, every amount and
/// the total within [`Money::MAX`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Order {
    order_id: String,
    user_id: String,
    currency: Currency,
    region: Option<String>,
    user_tags: BTreeSet<String>,
    lines: Vec<Line>,
    shipping_fee: Money,
    goods_total: Money,
}

/// A validated order line; `amount` = quantity × unit price.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Line {
    line_id: String,
    sku: String,
    category: String,
    quantity: u32,
    unit_price: Money,
    amount: Money,
    shop_id: Option<ShopId>,
}

fn non_empty(field: &str, s: &str) -> Result<String, ParseError> {
    if s.is_empty() {
        return Err(ParseError::new(field, ParseErrorKind::Empty));
    }
    Ok(s.to_owned())
}

impl Order {
    /// Validates a raw order; fields are relative (`lines[2].unit_price`).
    pub fn parse(raw: &RawOrder) -> Result<Order, ParseError> {
        if raw.lines.is_empty() {
            return Err(ParseError::new("lines", ParseErrorKind::Empty));
        }
        if raw.lines.len() > MAX_LINES {
            return Err(ParseError::new(
                "lines",
                ParseErrorKind::TooManyLines { max: MAX_LINES },
            ));
        }
        let lines = parse_lines(&raw.lines)?;
        let shipping_fee = match &raw.shipping_fee {
            Some(s) => Money::parse(s).map_err(|e| ParseError::new("shipping_fee", e))?,
            None => Money::ZERO,
        };
        let total: i64 = lines.iter().map(|l| l.amount.cents()).sum();
        if total + shipping_fee.cents() > MAX_CENTS {
            return Err(ParseError::new("lines", ParseErrorKind::TotalTooLarge));
        }
        Ok(Order {
            order_id: non_empty("order_id", &raw.order_id)?,
            user_id: non_empty("user_id", &raw.user_id)?,
            currency: Currency::parse(&raw.currency).map_err(|e| ParseError::new("currency", e))?,
            region: raw.region.clone(),
            user_tags: raw.user_tags.iter().flatten().cloned().collect(),
            lines,
            shipping_fee,
            goods_total: Money::from_cents(total),
        })
    }

    pub fn order_id(&self) -> &str {
        &self.order_id
    }
    pub fn user_id(&self) -> &str {
        &self.user_id
    }
    pub fn currency(&self) -> &Currency {
        &self.currency
    }
    pub fn region(&self) -> Option<&str> {
        self.region.as_deref()
    }
    pub fn user_tags(&self) -> &BTreeSet<String> {
        &self.user_tags
    }
    pub fn lines(&self) -> &[Line] {
        &self.lines
    }
    pub fn shipping_fee(&self) -> Money {
        self.shipping_fee
    }
    /// The sum of the line amounts.
    pub fn goods_total(&self) -> Money {
        self.goods_total
    }
    /// Lines plus shipping, before any discount.
    pub fn total(&self) -> Money {
        Money::from_cents(self.goods_total.cents() + self.shipping_fee.cents())
    }

    /// The index of a line by id.
    pub fn line_index(&self, line_id: &str) -> Option<usize> {
        self.lines.iter().position(|l| l.line_id == line_id)
    }

    /// The canonical raw form (e.g. to store the order in a lock event).
    pub fn to_raw(&self) -> RawOrder {
        RawOrder {
            order_id: self.order_id.clone(),
            user_id: self.user_id.clone(),
            currency: self.currency.as_str().to_owned(),
            region: self.region.clone(),
            user_tags: (!self.user_tags.is_empty())
                .then(|| self.user_tags.iter().cloned().collect()),
            lines: self.lines.iter().map(Line::to_raw).collect(),
            shipping_fee: Some(self.shipping_fee.to_string()),
        }
    }
}

fn parse_lines(raw: &[RawLine]) -> Result<Vec<Line>, ParseError> {
    let mut seen = BTreeSet::new();
    let mut lines = Vec::with_capacity(raw.len());
    for (i, l) in raw.iter().enumerate() {
        let line = Line::parse(l)
            .map_err(|e| ParseError::new(format!("lines[{i}].{}", e.field()), e.kind().clone()))?;
        if !seen.insert(line.line_id.clone()) {
            return Err(ParseError::new(
                format!("lines[{i}].line_id"),
                ParseErrorKind::DuplicateLine(line.line_id),
            ));
        }
        lines.push(line);
    }
    Ok(lines)
}

impl Line {
    fn parse(raw: &RawLine) -> Result<Line, ParseError> {
        if raw.quantity < 1 {
            return Err(ParseError::new(
                "quantity",
                ParseErrorKind::QuantityTooSmall,
            ));
        }
        let quantity = u32::try_from(raw.quantity).map_err(|_| {
            ParseError::new(
                "quantity",
                ParseErrorKind::QuantityTooLarge { max: u32::MAX },
            )
        })?;
        let unit_price =
            Money::parse(&raw.unit_price).map_err(|e| ParseError::new("unit_price", e))?;
        let amount = unit_price
            .checked_mul(quantity)
            .ok_or_else(|| ParseError::new("quantity", ParseErrorKind::TotalTooLarge))?;
        let shop_id = match &raw.shop_id {
            Some(s) => Some(ShopId::parse(s).map_err(|e| ParseError::new("shop_id", e))?),
            None => None,
        };
        Ok(Line {
            line_id: non_empty("line_id", &raw.line_id)?,
            sku: raw.sku.clone(),
            category: raw.category.clone(),
            quantity,
            unit_price,
            amount,
            shop_id,
        })
    }

    pub fn line_id(&self) -> &str {
        &self.line_id
    }
    pub fn sku(&self) -> &str {
        &self.sku
    }
    pub fn category(&self) -> &str {
        &self.category
    }
    pub fn quantity(&self) -> u32 {
        self.quantity
    }
    pub fn unit_price(&self) -> Money {
        self.unit_price
    }
    /// quantity × unit price.
    pub fn amount(&self) -> Money {
        self.amount
    }
    /// The shop selling the line; None: the platform's own.
    pub fn shop_id(&self) -> Option<&ShopId> {
        self.shop_id.as_ref()
    }

    fn to_raw(&self) -> RawLine {
        RawLine {
            line_id: self.line_id.clone(),
            sku: self.sku.clone(),
            category: self.category.clone(),
            quantity: i64::from(self.quantity),
            unit_price: self.unit_price.to_string(),
            shop_id: self.shop_id.as_ref().map(|s| s.as_str().to_owned()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn raw(lines: serde_json::Value) -> RawOrder {
        serde_json::from_value(json!({"order_id": "o", "user_id": "u", "currency": "CNY",
            "lines": lines}))
        .unwrap()
    }

    #[test]
    fn a_line_may_carry_a_shop_and_a_bad_one_is_named() {
        let line = |id: &str, shop: serde_json::Value| {
            json!({"line_id": id, "sku": "s", "category": "c", "quantity": 1,
                "unit_price": "1.00", "shop_id": shop})
        };
        let o = Order::parse(&raw(json!([
            line("a", json!("S-1")),
            line("b", json!(null))
        ])))
        .unwrap();
        assert_eq!(o.lines()[0].shop_id().map(ShopId::as_str), Some("S-1"));
        assert_eq!(o.lines()[1].shop_id(), None);
        for bad in ["", "a b", "(platform)", "total"] {
            let e = Order::parse(&raw(json!([
                line("a", json!("S-1")),
                line("b", json!(bad))
            ])))
            .unwrap_err();
            assert_eq!(e.field(), "lines[1].shop_id", "{bad:?}");
            assert!(
                e.message().ends_with(r#"neither "(platform)" nor "total""#),
                "{e}"
            );
        }
    }

    #[test]
    fn the_stored_form_keeps_a_shop_and_writes_none_for_a_line_without() {
        let without = json!({"line_id": "a", "sku": "s", "category": "c", "quantity": 1,
            "unit_price": "1.00"});
        let mut with = without.clone();
        with["line_id"] = json!("b");
        with["shop_id"] = json!("S-1");
        // As an OrderLocked stored before lines had shops holds it.
        let o = Order::parse(&raw(json!([without, with]))).unwrap();
        let stored = serde_json::to_value(o.to_raw()).unwrap();
        assert_eq!(stored["lines"][0], without);
        assert_eq!(stored["lines"][1], with);
        let back: RawOrder = serde_json::from_value(stored).unwrap();
        assert_eq!(Order::parse(&back).unwrap(), o);
    }
}
