//! Use scope (使用范围): which lines and orders a template applies to.
//!
//! Entries of the same kind are OR (any listed value matches), entries of
//! different kinds are AND. `product`, `category` and `shop` select lines
//! (by `sku`, `category` and `shop_id`; a line of no shop is outside every
//! shop scope); `region` and `user_tag` qualify the whole order (its
//! `region`, its `user_tags`). No entry of a kind = no restriction of it.

use crate::domain::names::name_list;
use std::collections::BTreeSet;
use std::sync::LazyLock;

use serde::{Deserialize, Serialize};

use crate::domain::ids::ShopId;
use crate::domain::names;
use crate::domain::order::{Line, Order};
use crate::domain::parse_error::{ParseError, ParseErrorKind};

/// One `use_scope` entry as it arrives: `{"kind": "category", "values": [...]}`.
#[derive(
    Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema, utoipa::ToSchema,
)]
#[serde(deny_unknown_fields)]
pub struct RawScopeEntry {
    /// `product` (a line's sku), `category`, `shop` (a line's shop_id),
    /// `region` or `user_tag` (the order's).
    pub kind: String,
    pub values: Vec<String>,
}

name_list! {
    /// The kinds of scope restriction.
    #[derive(PartialOrd, Ord, Serialize, Deserialize)]
    #[serde(rename_all = "snake_case")]
    pub enum ScopeKind {
        Product,
        Category,
        Region,
        UserTag,
        /// The line's `shop_id` (docs/design.md §15). Last, so that the
        /// canonical form of every scope made before it is unchanged.
        Shop,
    }
}

/// The kinds, as an unknown kind's error lists them.
static EXPECTED: LazyLock<String> = LazyLock::new(names::comma_separated::<ScopeKind>);

impl ScopeKind {
    /// Every kind, in the canonical order of [`UseScope::to_raw`].
    pub const ALL: &'static [ScopeKind] = <Self as strum::VariantArray>::VARIANTS;

    pub fn parse(s: &str) -> Result<ScopeKind, ParseErrorKind> {
        s.parse().map_err(|_| ParseErrorKind::UnknownValue {
            found: s.to_owned(),
            expected: EXPECTED.as_str(),
        })
    }

    pub const fn as_str(self) -> &'static str {
        self.into_str()
    }
}

/// A validated use scope. An empty set means "no restriction of this kind".
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct UseScope {
    product: BTreeSet<String>,
    category: BTreeSet<String>,
    region: BTreeSet<String>,
    user_tag: BTreeSet<String>,
    shop: BTreeSet<String>,
}

impl UseScope {
    /// Applies everywhere.
    pub fn everything() -> UseScope {
        UseScope::default()
    }

    /// Validates raw entries; fields are relative (`[1].kind`), prefixed by
    /// the caller (`use_scope[1].kind`). Repeated kinds merge (OR).
    pub fn parse(raw: &[RawScopeEntry]) -> Result<UseScope, ParseError> {
        let mut scope = UseScope::default();
        for (i, entry) in raw.iter().enumerate() {
            let kind = ScopeKind::parse(&entry.kind)
                .map_err(|e| ParseError::new(format!("[{i}].kind"), e))?;
            if entry.values.is_empty() {
                return Err(ParseError::new(
                    format!("[{i}].values"),
                    ParseErrorKind::EmptyValues,
                ));
            }
            for (j, v) in entry.values.iter().enumerate() {
                check_value(kind, v)
                    .map_err(|e| ParseError::new(format!("[{i}].values[{j}]"), e))?;
                scope.set_mut(kind).insert(v.clone());
            }
        }
        Ok(scope)
    }

    /// The values of one kind (empty = unrestricted).
    pub fn values(&self, kind: ScopeKind) -> &BTreeSet<String> {
        match kind {
            ScopeKind::Product => &self.product,
            ScopeKind::Category => &self.category,
            ScopeKind::Region => &self.region,
            ScopeKind::UserTag => &self.user_tag,
            ScopeKind::Shop => &self.shop,
        }
    }

    fn set_mut(&mut self, kind: ScopeKind) -> &mut BTreeSet<String> {
        match kind {
            ScopeKind::Product => &mut self.product,
            ScopeKind::Category => &mut self.category,
            ScopeKind::Region => &mut self.region,
            ScopeKind::UserTag => &mut self.user_tag,
            ScopeKind::Shop => &mut self.shop,
        }
    }

    /// Whether the order-level kinds (region, user tag) admit the order;
    /// the first kind that does not is returned.
    pub fn admits_order(&self, order: &Order) -> Result<(), ScopeKind> {
        let region_ok =
            self.region.is_empty() || order.region().is_some_and(|r| self.region.contains(r));
        if !region_ok {
            return Err(ScopeKind::Region);
        }
        if !self.user_tag.is_empty() && self.user_tag.is_disjoint(order.user_tags()) {
            return Err(ScopeKind::UserTag);
        }
        Ok(())
    }

    /// Whether the line-level kinds (product, category, shop) admit a line.
    pub fn covers_line(&self, line: &Line) -> bool {
        let shop_ok = self.shop.is_empty()
            || line
                .shop_id()
                .is_some_and(|s| self.shop.contains(s.as_str()));
        (self.product.is_empty() || self.product.contains(line.sku()))
            && (self.category.is_empty() || self.category.contains(line.category()))
            && shop_ok
    }

    /// Whether the scope restricts lines at all (product, category or shop).
    pub fn restricts_lines(&self) -> bool {
        !self.product.is_empty() || !self.category.is_empty() || !self.shop.is_empty()
    }

    /// Confines the scope to one shop's lines: the scope of a template that
    /// belongs to `shop` (docs/design.md §15). A scope that lists no shop
    /// gets it; one that lists exactly it stays; one that lists any other
    /// shop is refused (it would promise lines the template cannot cover).
    pub fn confine_to_shop(&mut self, shop: &ShopId) -> Result<(), ParseErrorKind> {
        match self.shop.len() {
            0 => {
                self.shop.insert(shop.as_str().to_owned());
                Ok(())
            }
            1 if self.shop.contains(shop.as_str()) => Ok(()),
            _ => Err(ParseErrorKind::OtherShop(shop.as_str().to_owned())),
        }
    }

    /// The canonical raw form (kinds in a fixed order, values sorted).
    pub fn to_raw(&self) -> Vec<RawScopeEntry> {
        ScopeKind::ALL
            .iter()
            .copied()
            .filter(|k| !self.values(*k).is_empty())
            .map(|k| RawScopeEntry {
                kind: k.as_str().to_owned(),
                values: self.values(k).iter().cloned().collect(),
            })
            .collect()
    }
}

/// A value of `kind` is non-empty; a shop's is a shop id.
fn check_value(kind: ScopeKind, value: &str) -> Result<(), ParseErrorKind> {
    if value.is_empty() {
        return Err(ParseErrorKind::Empty);
    }
    match kind {
        ScopeKind::Shop => ShopId::parse(value).map(drop),
        ScopeKind::Product | ScopeKind::Category | ScopeKind::Region | ScopeKind::UserTag => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::order::RawOrder;
    use serde_json::{Value, json};

    fn scope(entries: Value) -> Result<UseScope, ParseError> {
        UseScope::parse(&serde_json::from_value::<Vec<RawScopeEntry>>(entries).unwrap())
    }

    /// Lines `(category, shop)`, `l0`, `l1`, … in order.
    fn order(lines: &[(&str, Option<&str>)]) -> Order {
        let lines: Vec<Value> = lines
            .iter()
            .enumerate()
            .map(|(i, (category, shop))| {
                let mut line = json!({"line_id": format!("l{i}"), "sku": format!("s{i}"),
                    "category": category, "quantity": 1, "unit_price": "10.00"});
                if let Some(shop) = shop {
                    line["shop_id"] = json!(shop);
                }
                line
            })
            .collect();
        let raw: RawOrder = serde_json::from_value(json!({"order_id": "o", "user_id": "u",
            "currency": "CNY", "lines": lines}))
        .unwrap();
        Order::parse(&raw).unwrap()
    }

    /// The indices of the lines `scope` covers.
    fn covered(scope: &UseScope, order: &Order) -> Vec<usize> {
        (0..order.lines().len())
            .filter(|&i| scope.covers_line(&order.lines()[i]))
            .collect()
    }

    #[test]
    fn shops_are_or_within_the_kind_and_and_with_a_category() {
        let o = order(&[
            ("c-1", Some("A")),
            ("c-2", Some("A")),
            ("c-1", Some("B")),
            ("c-1", Some("C")),
            ("c-1", None),
        ]);
        let a_or_b = scope(json!([{"kind": "shop", "values": ["A"]},
            {"kind": "shop", "values": ["B"]}]))
        .unwrap();
        assert_eq!(covered(&a_or_b, &o), [0, 1, 2]);
        assert!(a_or_b.restricts_lines());
        let a_or_b_in_c1 = scope(json!([{"kind": "shop", "values": ["A", "B"]},
            {"kind": "category", "values": ["c-1"]}]))
        .unwrap();
        assert_eq!(covered(&a_or_b_in_c1, &o), [0, 2]);
        // No shop entry: every line, those of no shop too.
        let c1 = scope(json!([{"kind": "category", "values": ["c-1"]}])).unwrap();
        assert_eq!(covered(&c1, &o), [0, 2, 3, 4]);
    }

    #[test]
    fn a_line_of_no_shop_is_outside_every_shop_scope() {
        let o = order(&[("c-1", None)]);
        let any_shop = scope(json!([{"kind": "shop", "values": ["A", "B"]}])).unwrap();
        assert_eq!(covered(&any_shop, &o), [0usize; 0]);
    }

    #[test]
    fn a_shop_value_must_be_a_shop_id_and_the_error_names_it() {
        for bad in ["", "has space", "(platform)", "total", &"x".repeat(65)] {
            let e = scope(json!([{"kind": "category", "values": ["c"]},
                {"kind": "shop", "values": ["A", bad]}]))
            .unwrap_err();
            assert_eq!(e.field(), "[1].values[1]", "{bad:?}");
        }
        // Other kinds keep their rule: any non-empty text.
        assert!(scope(json!([{"kind": "category", "values": ["has space"]}])).is_ok());
    }

    #[test]
    fn confining_to_a_shop_adds_it_keeps_it_or_refuses_another() {
        let a = ShopId::parse("A").unwrap();
        let mut none = scope(json!([{"kind": "category", "values": ["c-1"]}])).unwrap();
        none.confine_to_shop(&a).unwrap();
        let expected = json!([{"kind": "category", "values": ["c-1"]},
            {"kind": "shop", "values": ["A"]}]);
        assert_eq!(serde_json::to_value(none.to_raw()).unwrap(), expected);
        let mut same = scope(json!([{"kind": "shop", "values": ["A"]}])).unwrap();
        same.confine_to_shop(&a).unwrap();
        assert_eq!(same.values(ScopeKind::Shop).len(), 1);
        for other in [json!(["B"]), json!(["A", "B"])] {
            let mut s = scope(json!([{"kind": "shop", "values": other}])).unwrap();
            assert_eq!(
                s.confine_to_shop(&a),
                Err(ParseErrorKind::OtherShop("A".into())),
                "{other}"
            );
        }
    }
}
