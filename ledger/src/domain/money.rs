//! Money and currency.
//!
//! [`Money`] is a non-negative amount with exactly two decimal places over
//! [`rust_decimal::Decimal`]. It is bounded by [`Money::MAX`] so that every
//! product the pricing engine forms (amount × amount in cents) fits an `i128`
//! and no user input can overflow or panic. The engine computes in integer
//! cents internally (exact, no floats); rounding to the cent is half-up
//! (`RoundingStrategy::MidpointAwayFromZero`, which for non-negative amounts is
//! the same thing), see `docs/pricing.md`.

use std::fmt;
use std::str::FromStr;

use rust_decimal::{Decimal, RoundingStrategy};
use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// The largest amount in cents anything in an order or a template may reach.
pub(crate) const MAX_CENTS: i64 = 99_999_999_999_999;

/// A non-negative amount of money with two decimal places, e.g. `12.30`.
///
/// Serialises as a JSON string (`"12.30"`), never as a number: the value
/// must never pass through a float.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Money(Decimal);

/// Why a string is not a valid amount.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum AmountError {
    #[error("must be a decimal number written as a string, like \"12.30\"")]
    NotANumber,
    #[error("must not be negative")]
    Negative,
    #[error("must have at most 2 decimal places")]
    TooManyDecimals,
    #[error("must not exceed 999999999999.99")]
    TooLarge,
}

impl Money {
    /// `0.00`.
    pub const ZERO: Money = Money(Decimal::from_parts(0, 0, 0, false, 2));
    /// `999999999999.99`, the largest amount accepted anywhere.
    pub const MAX: Money = Money(Decimal::from_parts(
        (MAX_CENTS & 0xFFFF_FFFF) as u32,
        (MAX_CENTS >> 32) as u32,
        0,
        false,
        2,
    ));

    /// Parses an amount such as `"12.30"`, `"12.3"` or `"12"`: plain
    /// decimal notation only (no exponent, sign `+`, spaces or separators).
    pub fn parse(s: &str) -> Result<Money, AmountError> {
        if !is_plain_decimal(s.strip_prefix('-').unwrap_or(s)) {
            return Err(AmountError::NotANumber);
        }
        let d = Decimal::from_str(s).map_err(|_| AmountError::NotANumber)?;
        Money::try_from_decimal(d)
    }

    /// Accepts a decimal that is already an exact amount (≤ 2 places).
    pub fn try_from_decimal(d: Decimal) -> Result<Money, AmountError> {
        if d.is_sign_negative() && !d.is_zero() {
            return Err(AmountError::Negative);
        }
        if d.normalize().scale() > 2 {
            return Err(AmountError::TooManyDecimals);
        }
        if d > Money::MAX.0 {
            return Err(AmountError::TooLarge);
        }
        let mut d = d.abs();
        d.rescale(2);
        Ok(Money(d))
    }

    /// Rounds any non-negative decimal half-up to the cent (the rounding
    /// rule of the whole engine).
    pub fn round_half_up(d: Decimal) -> Result<Money, AmountError> {
        Money::try_from_decimal(d.round_dp_with_strategy(2, RoundingStrategy::MidpointAwayFromZero))
    }

    /// The amount as a decimal with scale 2.
    pub fn as_decimal(self) -> Decimal {
        self.0
    }

    /// The amount in cents.
    pub fn cents(self) -> i64 {
        // The invariant (scale 2, ≤ MAX) makes the mantissa the cents; the
        // fallback can only be reached if that invariant were broken.
        i64::try_from(self.0.mantissa()).unwrap_or(MAX_CENTS)
    }

    /// Builds an amount from cents; values outside `0..=MAX` are clamped
    /// (the engine never produces them, which debug builds assert).
    pub(crate) fn from_cents(cents: i64) -> Money {
        debug_assert!(
            (0..=MAX_CENTS).contains(&cents),
            "cents out of range: {cents}"
        );
        Money(Decimal::new(cents.clamp(0, MAX_CENTS), 2))
    }

    pub fn is_zero(self) -> bool {
        self.0.is_zero()
    }

    /// `self + other`, or `None` above [`Money::MAX`].
    pub fn checked_add(self, other: Money) -> Option<Money> {
        let sum = self.cents().checked_add(other.cents())?;
        (sum <= MAX_CENTS).then(|| Money::from_cents(sum))
    }

    /// `self − other`, floored at `0.00`.
    pub fn saturating_sub(self, other: Money) -> Money {
        Money::from_cents((self.cents() - other.cents()).max(0))
    }

    /// `self × n`, or `None` above [`Money::MAX`].
    pub fn checked_mul(self, n: u32) -> Option<Money> {
        let product = i128::from(self.cents()) * i128::from(n);
        let product = i64::try_from(product).ok()?;
        (product <= MAX_CENTS).then(|| Money::from_cents(product))
    }
}

impl Default for Money {
    fn default() -> Self {
        Money::ZERO
    }
}

/// Two places, like the JSON form (`12.30`).
impl fmt::Display for Money {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:.2}", self.0)
    }
}

impl FromStr for Money {
    type Err = AmountError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Money::parse(s)
    }
}

/// Always two places (`"0.00"`, `"12.30"`), whatever the decimal's scale.
/// Amounts already had scale 2 by construction, so event text is unchanged
/// and replay keeps agreeing; this makes it hold by the type, not by care.
impl Serialize for Money {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serialize_two_places(&self.0, serializer)
    }
}

/// Serialises a sum of money held as a bare [`Decimal`] (e.g. a total read
/// from a `numeric` column, which may come back as `0`) with two places, for
/// `#[serde(serialize_with = ...)]`. Sums are exact cents, so no rounding
/// happens; should one not be, it is rounded half-up like every cent.
pub fn serialize_two_places<S: Serializer>(d: &Decimal, serializer: S) -> Result<S::Ok, S::Error> {
    let rounded = d.round_dp_with_strategy(2, RoundingStrategy::MidpointAwayFromZero);
    serializer.collect_str(&format_args!("{rounded:.2}"))
}

impl<'de> Deserialize<'de> for Money {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let s = String::deserialize(deserializer)?;
        Money::parse(&s).map_err(serde::de::Error::custom)
    }
}

/// In published messages an amount is a string with exactly two places.
impl schemars::JsonSchema for Money {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "Money".into()
    }

    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({
            "type": "string",
            "pattern": "^[0-9]{1,18}\\.[0-9]{2}$",
            "examples": ["12.30"]
        })
    }
}

/// The pattern of an amount in the OpenAPI document: as many whole digits
/// as [`Money::MAX`] has, a point and two places. Narrower than
/// [`Money::parse`] (which also takes `12` and `12.3`, and leading zeros
/// past that count) and within it: every amount it matches is at most
/// `MAX`.
pub fn money_pattern() -> String {
    let whole = MAX_CENTS.to_string().len() - 2;
    format!("^[0-9]{{1,{whole}}}\\.[0-9]{{2}}$")
}

/// In the OpenAPI document: a string with two places, at most [`Money::MAX`].
impl utoipa::PartialSchema for Money {
    fn schema() -> utoipa::openapi::RefOr<utoipa::openapi::schema::Schema> {
        utoipa::openapi::ObjectBuilder::new()
            .schema_type(utoipa::openapi::schema::Type::String)
            .pattern(Some(money_pattern()))
            .examples(["12.30"])
            .into()
    }
}

impl utoipa::ToSchema for Money {}

/// The pattern of an amount greater than zero (a discount's amount, a
/// face value, a budget): [`money_pattern`]'s amounts without leading
/// zeros and without `0.00`. JSON Schema cannot compare a text with zero,
/// so zero is left out by its form.
pub fn positive_money_pattern() -> String {
    let more = MAX_CENTS.to_string().len() - 3;
    format!("^([1-9][0-9]{{0,{more}}}\\.[0-9]{{2}}|0\\.(0[1-9]|[1-9][0-9]))$")
}

/// In the OpenAPI document, an amount the check wants greater than zero
/// (e.g. `ParseErrorKind::NotPositive`): the field itself is text parsed
/// by [`Money::parse`].
pub struct PositiveMoney;

impl utoipa::PartialSchema for PositiveMoney {
    fn schema() -> utoipa::openapi::RefOr<utoipa::openapi::schema::Schema> {
        utoipa::openapi::ObjectBuilder::new()
            .schema_type(utoipa::openapi::schema::Type::String)
            .pattern(Some(positive_money_pattern()))
            .examples(["12.30"])
            .into()
    }
}

impl utoipa::ToSchema for PositiveMoney {}

/// `digits[.digits]`, at most 40 characters (what `Decimal` can read exactly).
pub(crate) fn is_plain_decimal(s: &str) -> bool {
    let (int, frac) = s.split_once('.').unwrap_or((s, "0"));
    let digits = |p: &str| !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit());
    s.len() <= 40 && digits(int) && digits(frac)
}

/// `num / den` rounded half-up, for `num ≥ 0`, `den > 0`: the integer form of
/// `RoundingStrategy::MidpointAwayFromZero` used for every cent the engine rounds.
pub(crate) fn div_round_half_up(num: i128, den: i128) -> i128 {
    debug_assert!(num >= 0 && den > 0);
    (2 * num + den) / (2 * den)
}

/// Like [`div_round_half_up`] for the `i64` cents the engine works in.
pub(crate) fn share_half_up(amount: i64, part: i64, whole: i64) -> i64 {
    let share = div_round_half_up(i128::from(amount) * i128::from(part), i128::from(whole));
    // `part ≤ whole` keeps the share ≤ amount, so it fits back in i64.
    i64::try_from(share).unwrap_or(amount)
}

/// A currency: three upper-case ASCII letters (ISO 4217 form), e.g. `CNY`.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Currency(String);

/// Why a string is not a currency code.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("must be a 3-letter upper-case currency code, like \"CNY\"")]
pub struct CurrencyError;

impl Currency {
    pub fn parse(s: &str) -> Result<Currency, CurrencyError> {
        if s.len() == 3 && s.bytes().all(|b| b.is_ascii_uppercase()) {
            Ok(Currency(s.to_owned()))
        } else {
            Err(CurrencyError)
        }
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// The pattern of a currency code, what [`Currency::parse`] takes.
pub const CURRENCY_PATTERN: &str = "^[A-Z]{3}$";

/// In the OpenAPI document: three upper-case letters.
impl utoipa::PartialSchema for Currency {
    fn schema() -> utoipa::openapi::RefOr<utoipa::openapi::schema::Schema> {
        utoipa::openapi::ObjectBuilder::new()
            .schema_type(utoipa::openapi::schema::Type::String)
            .pattern(Some(CURRENCY_PATTERN))
            .examples(["CNY"])
            .into()
    }
}

impl utoipa::ToSchema for Currency {}

impl fmt::Display for Currency {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl Serialize for Currency {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(&self.0)
    }
}

impl<'de> Deserialize<'de> for Currency {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let s = String::deserialize(deserializer)?;
        Currency::parse(&s).map_err(serde::de::Error::custom)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn json<T: Serialize>(v: T) -> String {
        serde_json::to_string(&v).unwrap()
    }

    #[test]
    fn amounts_always_serialise_with_two_places() {
        assert_eq!(json(Money::ZERO), r#""0.00""#);
        assert_eq!(json(Money::parse("12.3").unwrap()), r#""12.30""#);
        assert_eq!(json(Money::parse("7").unwrap()), r#""7.00""#);
        assert_eq!(json(Money::MAX), r#""999999999999.99""#);
        let old_text: Money = serde_json::from_str(r#""5""#).unwrap();
        assert_eq!(json(old_text), r#""5.00""#);
        assert_eq!(Money::parse("0").unwrap().to_string(), "0.00");
    }

    #[test]
    fn bare_decimal_sums_serialise_with_two_places() {
        #[derive(Serialize)]
        struct Sum(#[serde(serialize_with = "serialize_two_places")] Decimal);
        assert_eq!(json(Sum(Decimal::ZERO)), r#""0.00""#);
        assert_eq!(json(Sum(Decimal::new(1205, 1))), r#""120.50""#);
        assert_eq!(json(Sum(Decimal::new(120_005, 3))), r#""120.01""#);
    }
}
