//! Use scope (使用范围): which lines and orders a template applies to.
//!
//! Entries of the same kind are OR (any listed value matches), entries of
//! different kinds are AND. `product` and `category` select lines (by `sku`
//! and `category`); `region` and `user_tag` qualify the whole order (its
//! `region`, its `user_tags`). No entry of a kind = no restriction of it.

use crate::domain::names::name_list;
use std::collections::BTreeSet;
use std::sync::LazyLock;

use serde::{Deserialize, Serialize};

use crate::domain::names;
use crate::domain::order::{Line, Order};
use crate::domain::parse_error::{ParseError, ParseErrorKind};

/// One `use_scope` entry as it arrives: `{"kind": "category", "values": [...]}`.
#[derive(
    Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema, utoipa::ToSchema,
)]
#[serde(deny_unknown_fields)]
pub struct RawScopeEntry {
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
                if v.is_empty() {
                    return Err(ParseError::new(
                        format!("[{i}].values[{j}]"),
                        ParseErrorKind::Empty,
                    ));
                }
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
        }
    }

    fn set_mut(&mut self, kind: ScopeKind) -> &mut BTreeSet<String> {
        match kind {
            ScopeKind::Product => &mut self.product,
            ScopeKind::Category => &mut self.category,
            ScopeKind::Region => &mut self.region,
            ScopeKind::UserTag => &mut self.user_tag,
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

    /// Whether the line-level kinds (product, category) admit a line.
    pub fn covers_line(&self, line: &Line) -> bool {
        (self.product.is_empty() || self.product.contains(line.sku()))
            && (self.category.is_empty() || self.category.contains(line.category()))
    }

    /// Whether the scope restricts lines at all (product or category).
    pub fn restricts_lines(&self) -> bool {
        !self.product.is_empty() || !self.category.is_empty()
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
