//! Discount rules (满减, 每满减, 折扣, 阶梯): their raw JSON form, validation,
//! and the discount each gives on a base amount.

use std::str::FromStr;

use rust_decimal::Decimal;
use serde::{Deserialize, Serialize};

use crate::domain::money::{Money, div_round_half_up, is_plain_decimal};
use crate::domain::parse_error::{ParseError, ParseErrorKind};
use crate::domain::raw_decimal::RawDecimal;

/// The `discount` object of a template as it arrives (docs/design.md §7).
#[derive(
    Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema, utoipa::ToSchema,
)]
#[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
pub enum RawDiscount {
    FixedOff {
        #[schemars(with = "String")]
        #[schema(value_type = crate::domain::money::Money)]
        threshold: RawDecimal,
        #[schemars(with = "String")]
        #[schema(value_type = crate::domain::money::PositiveMoney)]
        amount: RawDecimal,
    },
    PerThresholdOff {
        #[schemars(with = "String")]
        #[schema(value_type = crate::domain::money::PositiveMoney)]
        step: RawDecimal,
        #[schemars(with = "String")]
        #[schema(value_type = crate::domain::money::PositiveMoney)]
        amount: RawDecimal,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        #[schemars(with = "Option<String>")]
        #[schema(value_type = Option<crate::domain::money::PositiveMoney>)]
        max_off: Option<RawDecimal>,
    },
    Rate {
        #[schemars(with = "String")]
        #[schema(value_type = RateText)]
        rate_off: RawDecimal,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        #[schemars(with = "Option<String>")]
        #[schema(value_type = Option<crate::domain::money::Money>)]
        threshold: Option<RawDecimal>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        #[schemars(with = "Option<String>")]
        #[schema(value_type = Option<crate::domain::money::PositiveMoney>)]
        max_off: Option<RawDecimal>,
    },
    Ladder {
        #[schema(min_items = 1)]
        tiers: Vec<RawTier>,
    },
}

/// One tier of a raw ladder.
#[derive(
    Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema, utoipa::ToSchema,
)]
#[serde(deny_unknown_fields)]
pub struct RawTier {
    #[schemars(with = "String")]
    #[schema(value_type = crate::domain::money::Money)]
    pub threshold: RawDecimal,
    #[schemars(with = "String")]
    #[schema(value_type = crate::domain::money::PositiveMoney)]
    pub amount: RawDecimal,
}

/// A validated discount rule.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DiscountRule {
    /// 满减: base ≥ threshold → amount.
    FixedOff(FixedOff),
    /// 每满减: floor(base / step) · amount, capped by `max_off`.
    PerThresholdOff(PerThresholdOff),
    /// 折扣: base · rate_off (88折 = 0.12) rounded half-up, capped by `max_off`.
    Rate(RateOff),
    /// 阶梯: the amount of the highest tier whose threshold the base meets.
    Ladder(Ladder),
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FixedOff {
    threshold: Money,
    amount: Money,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PerThresholdOff {
    step: Money,
    amount: Money,
    max_off: Option<Money>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RateOff {
    rate_off: Rate,
    /// `rate_off` in ten-thousandths, computed once (0.12 → 1200).
    basis: i128,
    threshold: Option<Money>,
    max_off: Option<Money>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Ladder {
    tiers: Vec<Tier>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Tier {
    threshold: Money,
    amount: Money,
}

/// The share taken off by a rate rule: in (0, 1], at most 4 decimal places.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct Rate(Decimal);

/// The rule gives nothing on this base: it needs at least `threshold`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BelowThreshold {
    pub threshold: Money,
}

const RATE_SCALE: u32 = 4;
const RATE_DENOMINATOR: i128 = 10_000;

/// A rate's text in the OpenAPI document: above 0, below 1, at most
/// [`RATE_SCALE`] places and no trailing zero (narrower than
/// [`Rate::parse`], which also takes `1` and trailing zeros).
pub struct RateText;

impl utoipa::PartialSchema for RateText {
    fn schema() -> utoipa::openapi::RefOr<utoipa::openapi::schema::Schema> {
        let places = RATE_SCALE - 1;
        utoipa::openapi::ObjectBuilder::new()
            .schema_type(utoipa::openapi::schema::Type::String)
            .pattern(Some(format!("^0\\.[0-9]{{0,{places}}}[1-9]$")))
            .examples(["0.15"])
            .into()
    }
}

impl utoipa::ToSchema for RateText {}

impl Rate {
    pub fn parse(s: &str) -> Result<Rate, ParseErrorKind> {
        if !is_plain_decimal(s.strip_prefix('-').unwrap_or(s)) {
            return Err(ParseErrorKind::BadRate);
        }
        let d = Decimal::from_str(s).map_err(|_| ParseErrorKind::BadRate)?;
        if d.normalize().scale() > RATE_SCALE {
            return Err(ParseErrorKind::BadRate);
        }
        if d <= Decimal::ZERO || d > Decimal::ONE {
            return Err(ParseErrorKind::RateOutOfRange);
        }
        Ok(Rate(d.normalize()))
    }

    pub fn as_decimal(self) -> Decimal {
        self.0
    }

    /// The rate in ten-thousandths (0.12 → 1200).
    fn basis(self) -> i128 {
        let mut d = self.0;
        d.rescale(RATE_SCALE);
        d.mantissa()
    }
}

impl FixedOff {
    pub fn threshold(&self) -> Money {
        self.threshold
    }
    pub fn amount(&self) -> Money {
        self.amount
    }
}

impl PerThresholdOff {
    pub fn step(&self) -> Money {
        self.step
    }
    pub fn amount(&self) -> Money {
        self.amount
    }
    pub fn max_off(&self) -> Option<Money> {
        self.max_off
    }
}

impl RateOff {
    pub fn rate_off(&self) -> Rate {
        self.rate_off
    }
    pub fn threshold(&self) -> Option<Money> {
        self.threshold
    }
    pub fn max_off(&self) -> Option<Money> {
        self.max_off
    }
}

impl Ladder {
    /// The tiers, thresholds strictly increasing, amounts non-decreasing.
    pub fn tiers(&self) -> &[Tier] {
        &self.tiers
    }
}

impl Tier {
    pub fn threshold(&self) -> Money {
        self.threshold
    }
    pub fn amount(&self) -> Money {
        self.amount
    }
}

fn amount(field: &str, raw: &RawDecimal) -> Result<Money, ParseError> {
    Money::parse(raw.text(field)?).map_err(|e| ParseError::new(field, e))
}

fn positive(field: &str, s: &RawDecimal) -> Result<Money, ParseError> {
    let m = amount(field, s)?;
    if m.is_zero() {
        return Err(ParseError::new(field, ParseErrorKind::NotPositive));
    }
    Ok(m)
}

fn optional_positive(field: &str, s: Option<&RawDecimal>) -> Result<Option<Money>, ParseError> {
    s.map(|s| positive(field, s)).transpose()
}

impl DiscountRule {
    /// Validates a raw rule. Field paths are relative to the rule object
    /// (`amount`, `tiers[1].threshold`); [`crate::domain::terms::Terms::parse`]
    /// prefixes them with `discount.`.
    pub fn parse(raw: &RawDiscount) -> Result<DiscountRule, ParseError> {
        Ok(match raw {
            RawDiscount::FixedOff {
                threshold,
                amount: a,
            } => DiscountRule::FixedOff(FixedOff {
                threshold: amount("threshold", threshold)?,
                amount: positive("amount", a)?,
            }),
            RawDiscount::PerThresholdOff {
                step,
                amount: a,
                max_off,
            } => DiscountRule::PerThresholdOff(PerThresholdOff {
                step: positive("step", step)?,
                amount: positive("amount", a)?,
                max_off: optional_positive("max_off", max_off.as_ref())?,
            }),
            RawDiscount::Rate {
                rate_off,
                threshold,
                max_off,
            } => {
                let rate_off = Rate::parse(rate_off.text("rate_off")?)
                    .map_err(|e| ParseError::new("rate_off", e))?;
                DiscountRule::Rate(RateOff {
                    rate_off,
                    basis: rate_off.basis(),
                    threshold: threshold
                        .as_ref()
                        .map(|t| amount("threshold", t))
                        .transpose()?,
                    max_off: optional_positive("max_off", max_off.as_ref())?,
                })
            }
            RawDiscount::Ladder { tiers } => DiscountRule::Ladder(parse_ladder(tiers)?),
        })
    }

    /// The largest discount the rule can ever give, when it has one: the
    /// default face value of a template.
    pub fn max_discount(&self) -> Option<Money> {
        match self {
            DiscountRule::FixedOff(r) => Some(r.amount),
            DiscountRule::PerThresholdOff(r) => r.max_off,
            DiscountRule::Rate(r) => r.max_off,
            DiscountRule::Ladder(r) => r.tiers.last().map(|t| t.amount),
        }
    }

    /// The discount on `base`, never more than `base`.
    pub fn discount_for(&self, base: Money) -> Result<Money, BelowThreshold> {
        self.discount_cents(base.cents())
            .map(Money::from_cents)
            .map_err(|t| BelowThreshold {
                threshold: Money::from_cents(t),
            })
    }

    /// The discount in cents on a base in cents, or the threshold (in cents)
    /// the base fails to meet. Monotone non-decreasing in `base`: the best
    /// combination search relies on it for its bound.
    pub(crate) fn discount_cents(&self, base: i64) -> Result<i64, i64> {
        let raw = match self {
            DiscountRule::FixedOff(r) => {
                meet(base, r.threshold.cents()).map(|()| r.amount.cents())?
            }
            DiscountRule::PerThresholdOff(r) => per_threshold(r, base)?,
            DiscountRule::Rate(r) => rate(r, base)?,
            DiscountRule::Ladder(r) => ladder(r, base)?,
        };
        Ok(raw.min(base))
    }

    /// A rate rule's `rate_off` in ten-thousandths (0.12 → 1200).
    pub(crate) fn rate_basis(&self) -> Option<i128> {
        match self {
            DiscountRule::Rate(r) => Some(r.basis),
            _ => None,
        }
    }

    /// The raw form this rule was parsed from (canonical spelling).
    pub fn to_raw(&self) -> RawDiscount {
        let s = |m: Money| RawDecimal::from(m.to_string());
        match self {
            DiscountRule::FixedOff(r) => RawDiscount::FixedOff {
                threshold: s(r.threshold),
                amount: s(r.amount),
            },
            DiscountRule::PerThresholdOff(r) => RawDiscount::PerThresholdOff {
                step: s(r.step),
                amount: s(r.amount),
                max_off: r.max_off.map(s),
            },
            DiscountRule::Rate(r) => RawDiscount::Rate {
                rate_off: r.rate_off.0.to_string().into(),
                threshold: r.threshold.map(s),
                max_off: r.max_off.map(s),
            },
            DiscountRule::Ladder(r) => RawDiscount::Ladder {
                tiers: r
                    .tiers
                    .iter()
                    .map(|t| RawTier {
                        threshold: s(t.threshold),
                        amount: s(t.amount),
                    })
                    .collect(),
            },
        }
    }
}

fn parse_ladder(raw: &[RawTier]) -> Result<Ladder, ParseError> {
    if raw.is_empty() {
        return Err(ParseError::new("tiers", ParseErrorKind::EmptyLadder));
    }
    let mut tiers: Vec<Tier> = Vec::with_capacity(raw.len());
    for (i, t) in raw.iter().enumerate() {
        let tier = Tier {
            threshold: amount(&format!("tiers[{i}].threshold"), &t.threshold)?,
            amount: positive(&format!("tiers[{i}].amount"), &t.amount)?,
        };
        if let Some(prev) = tiers.last() {
            if tier.threshold <= prev.threshold {
                return Err(ParseError::new(
                    format!("tiers[{i}].threshold"),
                    ParseErrorKind::UnsortedLadder,
                ));
            }
            // A bigger basket earning a smaller discount is a typo, and it
            // would break the monotonicity the best-combination bound uses.
            if tier.amount < prev.amount {
                return Err(ParseError::new(
                    format!("tiers[{i}].amount"),
                    ParseErrorKind::LadderAmountDecreasing,
                ));
            }
        }
        tiers.push(tier);
    }
    Ok(Ladder { tiers })
}

fn meet(base: i64, threshold: i64) -> Result<(), i64> {
    if base >= threshold {
        Ok(())
    } else {
        Err(threshold)
    }
}

fn cap(discount: i128, max_off: Option<Money>) -> i64 {
    let capped = max_off.map_or(discount, |m| discount.min(i128::from(m.cents())));
    i64::try_from(capped).unwrap_or(i64::MAX)
}

fn per_threshold(r: &PerThresholdOff, base: i64) -> Result<i64, i64> {
    let steps = base / r.step.cents();
    if steps == 0 {
        return Err(r.step.cents());
    }
    Ok(cap(
        i128::from(steps) * i128::from(r.amount.cents()),
        r.max_off,
    ))
}

fn rate(r: &RateOff, base: i64) -> Result<i64, i64> {
    meet(base, r.threshold.map_or(0, Money::cents))?;
    let off = div_round_half_up(i128::from(base) * r.basis, RATE_DENOMINATOR);
    Ok(cap(off, r.max_off))
}

fn ladder(r: &Ladder, base: i64) -> Result<i64, i64> {
    match r.tiers.iter().rev().find(|t| t.threshold.cents() <= base) {
        Some(t) => Ok(t.amount.cents()),
        None => Err(r.tiers.first().map_or(0, |t| t.threshold.cents())),
    }
}
