//! The one error of parsing input at the edge: which field, and what is wrong.

use crate::domain::money::{AmountError, CurrencyError};

/// A field of a request that failed validation. `field()` is a path relative
/// to the parsed object, e.g. `discount.amount` or `lines[2].unit_price`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{field}: {kind}")]
pub struct ParseError {
    field: String,
    kind: ParseErrorKind,
}

impl ParseError {
    pub fn new(field: impl Into<String>, kind: impl Into<ParseErrorKind>) -> ParseError {
        ParseError {
            field: field.into(),
            kind: kind.into(),
        }
    }

    /// The path of the offending field, e.g. `discount.tiers[1].threshold`.
    pub fn field(&self) -> &str {
        &self.field
    }

    pub fn kind(&self) -> &ParseErrorKind {
        &self.kind
    }

    /// A human-readable message (without the field).
    pub fn message(&self) -> String {
        self.kind.to_string()
    }

    /// Prefixes the field path, e.g. `lines[0].sku` → `order.lines[0].sku`.
    pub fn within(self, parent: &str) -> ParseError {
        ParseError {
            field: format!("{parent}.{}", self.field),
            kind: self.kind,
        }
    }
}

/// What is wrong with a field.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ParseErrorKind {
    #[error(transparent)]
    Amount(#[from] AmountError),
    #[error(transparent)]
    Currency(#[from] CurrencyError),
    #[error("must be greater than 0")]
    NotPositive,
    #[error("must not exceed the budget's total")]
    DailyOverTotal,
    #[error("must be greater than 0 and at most 1 (88折 is 0.12)")]
    RateOutOfRange,
    #[error("must be a decimal number with at most 4 decimal places, like \"0.12\"")]
    BadRate,
    #[error("must list at least one tier")]
    EmptyLadder,
    #[error("thresholds must be strictly increasing")]
    UnsortedLadder,
    #[error("must not be less than the amount of a lower tier")]
    LadderAmountDecreasing,
    #[error("must be an RFC 3339 instant, like \"2026-11-11T00:00:00Z\"")]
    Instant,
    #[error("begin must be before end")]
    BeginNotBeforeEnd,
    #[error("must not be negative")]
    NegativeDays,
    #[error("must be at most {max} days")]
    TooManyDays { max: u32 },
    #[error("unknown value {found:?}, expected one of: {expected}")]
    UnknownValue {
        found: String,
        expected: &'static str,
    },
    #[error("must list at least one value")]
    EmptyValues,
    #[error("must not be empty")]
    Empty,
    #[error("must be at most {max} bytes long")]
    TooLong { max: usize },
    #[error("must list at most {max} values")]
    TooManyValues { max: usize },
    #[error(
        "must be 1 to {max} visible ASCII characters, and neither {platform:?} nor {total:?}",
        platform = crate::domain::report_labels::PLATFORM,
        total = crate::domain::report_labels::TOTAL
    )]
    ShopId { max: usize },
    #[error("may list under kind shop only the template's own shop {0:?}")]
    OtherShop(String),
    #[error("is required when the rule has no maximum discount")]
    FaceValueRequired,
    #[error("must be a string, like \"25.00\", not the JSON number {0} (money is exact)")]
    NumberNotString(String),
    #[error("must be at least 1")]
    QuantityTooSmall,
    #[error("must be at most {max}")]
    QuantityTooLarge { max: u32 },
    #[error("duplicate line_id {0:?}")]
    DuplicateLine(String),
    #[error("must list at most {max} lines")]
    TooManyLines { max: usize },
    #[error("the order total would exceed 999999999999.99")]
    TotalTooLarge,
}
