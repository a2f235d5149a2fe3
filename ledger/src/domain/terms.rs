//! Template terms (券模板): the immutable pricing-relevant part of a template,
//! parsed once at the edge into types that cannot hold an invalid value.

use crate::domain::names::name_list;
use std::sync::LazyLock;

use serde::{Deserialize, Serialize};

use crate::domain::ids::ShopId;
use crate::domain::money::{Currency, Money};
use crate::domain::names;
use crate::domain::parse_error::{ParseError, ParseErrorKind};
use crate::domain::rule::{DiscountRule, RawDiscount};
use crate::domain::scope::{RawScopeEntry, UseScope};
use crate::domain::validity::{RawValidity, ValidityTerms};

name_list! {
    /// What a template discounts: order lines or the shipping fee.
    #[derive(Serialize, Deserialize, utoipa::ToSchema)]
    #[serde(rename_all = "snake_case")]
    pub enum Kind {
        Goods,
        Shipping,
    }
}

name_list! {
    /// Whether a coupon may be combined with others.
    #[derive(Serialize, Deserialize, utoipa::ToSchema)]
    #[serde(rename_all = "snake_case")]
    pub enum Stacking {
        /// Stands alone: used together with no other coupon.
        Exclusive,
        /// Combines with stackable coupons of other templates.
        Stackable,
    }
}

/// The values, as an unknown value's error lists them.
static KINDS: LazyLock<String> = LazyLock::new(names::comma_separated::<Kind>);
static STACKINGS: LazyLock<String> = LazyLock::new(names::comma_separated::<Stacking>);

impl Kind {
    pub fn parse(s: &str) -> Result<Kind, ParseErrorKind> {
        s.parse().map_err(|_| ParseErrorKind::UnknownValue {
            found: s.to_owned(),
            expected: KINDS.as_str(),
        })
    }

    pub const fn as_str(self) -> &'static str {
        self.into_str()
    }
}

impl Stacking {
    pub fn parse(s: &str) -> Result<Stacking, ParseErrorKind> {
        s.parse().map_err(|_| ParseErrorKind::UnknownValue {
            found: s.to_owned(),
            expected: STACKINGS.as_str(),
        })
    }

    pub const fn as_str(self) -> &'static str {
        self.into_str()
    }
}

name_list! {
    /// What a full refund does to a template's used coupon (fixed when the
    /// template is created): `restore` gives the coupon back to its owner,
    /// `reissue` ends it and issues a new one in its place.
    #[derive(Default, Serialize, Deserialize, schemars::JsonSchema, utoipa::ToSchema)]
    #[serde(rename_all = "snake_case")]
    #[schemars(inline, transform = crate::domain::names::plain_schema)]
    pub enum RefundPolicy {
        #[default]
        Restore,
        Reissue,
    }
}

impl RefundPolicy {
    pub const fn as_str(self) -> &'static str {
        self.into_str()
    }
}

/// The pricing terms of `POST /v1/templates` as they arrive (docs/design.md §7).
///
/// The request carries more (name, issue window, quota, …), which the HTTP
/// layer parses itself. (Embedding this with `#[serde(flatten)]` works, but
/// then serde no longer refuses unknown fields.)
#[derive(
    Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema, utoipa::ToSchema,
)]
#[serde(deny_unknown_fields)]
pub struct RawTerms {
    pub kind: String,
    pub currency: String,
    pub discount: RawDiscount,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub face_value: Option<String>,
    pub validity: RawValidity,
    pub stacking: String,
    #[serde(default)]
    pub use_scope: Vec<RawScopeEntry>,
}

/// Validated terms of a template.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Terms {
    kind: Kind,
    currency: Currency,
    rule: DiscountRule,
    face_value: Money,
    validity: ValidityTerms,
    stacking: Stacking,
    scope: UseScope,
}

impl Terms {
    /// Validates raw terms; the first invalid field is reported with its
    /// path, e.g. `discount.amount` or `use_scope[1].kind`.
    pub fn parse(raw: &RawTerms) -> Result<Terms, ParseError> {
        let kind = Kind::parse(&raw.kind).map_err(|e| ParseError::new("kind", e))?;
        let currency =
            Currency::parse(&raw.currency).map_err(|e| ParseError::new("currency", e))?;
        let rule = DiscountRule::parse(&raw.discount).map_err(|e| e.within("discount"))?;
        let face_value = face_value(raw.face_value.as_deref(), &rule)?;
        let validity = ValidityTerms::parse(&raw.validity).map_err(|e| e.within("validity"))?;
        let stacking =
            Stacking::parse(&raw.stacking).map_err(|e| ParseError::new("stacking", e))?;
        let scope = UseScope::parse(&raw.use_scope).map_err(|e| prefix_index("use_scope", e))?;
        Ok(Terms {
            kind,
            currency,
            rule,
            face_value,
            validity,
            stacking,
            scope,
        })
    }

    pub fn kind(&self) -> Kind {
        self.kind
    }
    pub fn currency(&self) -> &Currency {
        &self.currency
    }
    pub fn rule(&self) -> &DiscountRule {
        &self.rule
    }
    /// The face value (defaults to the rule's largest possible discount).
    pub fn face_value(&self) -> Money {
        self.face_value
    }
    pub fn validity(&self) -> &ValidityTerms {
        &self.validity
    }
    pub fn stacking(&self) -> Stacking {
        self.stacking
    }
    pub fn scope(&self) -> &UseScope {
        &self.scope
    }

    /// The terms of a template that belongs to `shop`: its scope confined
    /// to that shop's lines, so that pricing needs nothing else to keep a
    /// shop's coupons on its own lines (docs/design.md §15).
    pub fn confine_to_shop(&mut self, shop: &ShopId) -> Result<(), ParseError> {
        self.scope
            .confine_to_shop(shop)
            .map_err(|e| ParseError::new("use_scope", e))
    }

    /// The canonical raw form: `Terms::parse(&t.to_raw()) == Ok(t)`; handy
    /// for reading a template back and for event payloads.
    pub fn to_raw(&self) -> RawTerms {
        RawTerms {
            kind: self.kind.as_str().to_owned(),
            currency: self.currency.as_str().to_owned(),
            discount: self.rule.to_raw(),
            face_value: Some(self.face_value.to_string()),
            validity: self.validity.to_raw(),
            stacking: self.stacking.as_str().to_owned(),
            use_scope: self.scope.to_raw(),
        }
    }
}

impl TryFrom<&RawTerms> for Terms {
    type Error = ParseError;
    fn try_from(raw: &RawTerms) -> Result<Terms, ParseError> {
        Terms::parse(raw)
    }
}

fn face_value(raw: Option<&str>, rule: &DiscountRule) -> Result<Money, ParseError> {
    match raw {
        Some(s) => {
            let m = Money::parse(s).map_err(|e| ParseError::new("face_value", e))?;
            if m.is_zero() {
                return Err(ParseError::new("face_value", ParseErrorKind::NotPositive));
            }
            Ok(m)
        }
        None => rule
            .max_discount()
            .ok_or_else(|| ParseError::new("face_value", ParseErrorKind::FaceValueRequired)),
    }
}

/// `[1].kind` within `use_scope` reads `use_scope[1].kind`, not `use_scope.[1]…`.
fn prefix_index(parent: &str, e: ParseError) -> ParseError {
    ParseError::new(format!("{parent}{}", e.field()), e.kind().clone())
}
