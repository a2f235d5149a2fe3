//! Validity (有效期): the template's terms and the instants fixed on a coupon
//! when it is issued.
//!
//! Relative validity counts business days in the business time zone
//! (`LEDGER_TZ`): effective = the issue instant when `begin_days` = 0, else
//! 00:00 of the day `issue_date + begin_days`; expiry = 23:59:59 of the day
//! `effective_date + end_days` (the day of issue is not counted). Across DST:
//! a 00:00 that does not exist becomes the earliest local time that does, an
//! ambiguous one the earlier instant; an ambiguous 23:59:59 is the later
//! instant, one that does not exist the last second before the next day.

use chrono::{
    DateTime, Datelike, Days, LocalResult, NaiveDate, NaiveDateTime, NaiveTime, SubsecRound,
    TimeDelta, TimeZone, Timelike, Utc,
};
use chrono_tz::Tz;
use serde::{Deserialize, Serialize};

use crate::domain::parse_error::{ParseError, ParseErrorKind};

/// The longest relative validity accepted, in days (about 100 years).
pub const MAX_RELATIVE_DAYS: u32 = 36_600;

/// The `validity` object of a template as it arrives.
#[derive(
    Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema, utoipa::ToSchema,
)]
#[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
pub enum RawValidity {
    Absolute {
        #[schema(value_type = InstantText)]
        begin: String,
        #[schema(value_type = InstantText)]
        end: String,
    },
    Relative {
        #[schema(value_type = DayCount)]
        begin_days: i64,
        #[schema(value_type = DayCount)]
        end_days: i64,
    },
}

/// Validated validity terms of a template.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ValidityTerms {
    /// Usable in `[begin, end]` whenever it was issued.
    Absolute(AbsoluteWindow),
    /// Usable for a number of business days counted from the issue day.
    Relative(RelativeDays),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AbsoluteWindow {
    begin: DateTime<Utc>,
    end: DateTime<Utc>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RelativeDays {
    begin_days: u32,
    end_days: u32,
}

/// The validity fixed on one coupon at issue: usable iff
/// `effective_at ≤ now ≤ expires_at`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Validity {
    pub effective_at: DateTime<Utc>,
    pub expires_at: DateTime<Utc>,
}

/// The computed validity falls outside the calendar chrono supports.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("the validity falls outside the supported calendar")]
pub struct ValidityOutOfRange;

impl AbsoluteWindow {
    pub fn begin(&self) -> DateTime<Utc> {
        self.begin
    }
    pub fn end(&self) -> DateTime<Utc> {
        self.end
    }
}

impl RelativeDays {
    pub fn begin_days(&self) -> u32 {
        self.begin_days
    }
    pub fn end_days(&self) -> u32 {
        self.end_days
    }
}

/// An RFC 3339 instant, kept to the microsecond (what Postgres stores), so
/// that events and rows carry the same instant.
fn instant(field: &str, s: &str) -> Result<DateTime<Utc>, ParseError> {
    DateTime::parse_from_rfc3339(s)
        .map(|t| t.with_timezone(&Utc))
        .ok()
        .and_then(storable_instant)
        .ok_or_else(|| ParseError::new(field, ParseErrorKind::Instant))
}

/// A business day (`2026-11-20`) as a pattern narrower than chrono's
/// parser: years 1000 to 8999 (an offset cannot carry an instant of them
/// out of [`storable_instant`]'s 1 to 9999), a day of a month 01 to 28
/// (every month has them).
macro_rules! day_pattern {
    () => {
        "[1-8][0-9]{3}-(0[1-9]|1[0-2])-(0[1-9]|1[0-9]|2[0-8])"
    };
}

/// A business day, unanchored, for patterns built from it.
pub const DAY_PATTERN: &str = day_pattern!();

/// An RFC 3339 instant that [`instant`] takes, unanchored: a day as
/// [`DAY_PATTERN`], a second that is not a leap second, an offset at most
/// ±13:59. Narrower than the parser (every value it allows is accepted);
/// `tests/tests/suite/openapi_patterns.rs` holds it to the parser.
pub const INSTANT_PATTERN: &str = concat!(
    day_pattern!(),
    "T([01][0-9]|2[0-3]):[0-5][0-9]:[0-5][0-9](\\.[0-9]{1,9})?",
    "(Z|[+-](0[0-9]|1[0-3]):[0-5][0-9])"
);

/// An instant read as text, as the OpenAPI document describes it: a
/// validity's `begin` and `end`, and every route that reads an instant.
pub struct InstantText;

impl utoipa::PartialSchema for InstantText {
    fn schema() -> utoipa::openapi::RefOr<utoipa::openapi::schema::Schema> {
        use utoipa::openapi::{KnownFormat, ObjectBuilder, SchemaFormat, schema::Type};
        ObjectBuilder::new()
            .schema_type(Type::String)
            .format(Some(SchemaFormat::KnownFormat(KnownFormat::DateTime)))
            .pattern(Some(format!("^{INSTANT_PATTERN}$")))
            .into()
    }
}

impl utoipa::ToSchema for InstantText {}

/// A relative validity's `begin_days` or `end_days` as the OpenAPI
/// document describes it: 0 to [`MAX_RELATIVE_DAYS`], as [`days`] checks.
pub struct DayCount;

impl utoipa::PartialSchema for DayCount {
    fn schema() -> utoipa::openapi::RefOr<utoipa::openapi::schema::Schema> {
        use utoipa::openapi::{KnownFormat, ObjectBuilder, SchemaFormat, schema::Type};
        ObjectBuilder::new()
            .schema_type(Type::Integer)
            .format(Some(SchemaFormat::KnownFormat(KnownFormat::Int64)))
            .minimum(Some(0))
            .maximum(Some(MAX_RELATIVE_DAYS))
            .into()
    }
}

impl utoipa::ToSchema for DayCount {}

/// What [`storable_instant`] refuses, as an error message says it.
pub const INSTANT_RULE: &str = "must be an instant of the years 0001 to 9999, not a leap second";

/// The instant as stored, to the microsecond, or `None` for a leap second
/// (`23:59:60`: chrono keeps it as a second with over 10^9 nanoseconds,
/// Postgres as the next second, so the event and the row would disagree)
/// or a year outside RFC 3339's 0001 to 9999 (serde's chrono reads
/// `+10000-01-01T00:00:00Z`, which no other reader of the events would).
pub fn storable_instant(t: DateTime<Utc>) -> Option<DateTime<Utc>> {
    let in_calendar = (1..=9999).contains(&t.year());
    (in_calendar && t.nanosecond() < 1_000_000_000).then(|| t.trunc_subsecs(6))
}

fn days(field: &str, n: i64) -> Result<u32, ParseError> {
    if n < 0 {
        return Err(ParseError::new(field, ParseErrorKind::NegativeDays));
    }
    u32::try_from(n)
        .ok()
        .filter(|d| *d <= MAX_RELATIVE_DAYS)
        .ok_or_else(|| {
            ParseError::new(
                field,
                ParseErrorKind::TooManyDays {
                    max: MAX_RELATIVE_DAYS,
                },
            )
        })
}

impl ValidityTerms {
    /// Validates raw terms; fields are relative (`begin`, `end_days`).
    pub fn parse(raw: &RawValidity) -> Result<ValidityTerms, ParseError> {
        match raw {
            RawValidity::Absolute { begin, end } => {
                let (begin, end) = (instant("begin", begin)?, instant("end", end)?);
                if begin >= end {
                    return Err(ParseError::new("end", ParseErrorKind::BeginNotBeforeEnd));
                }
                Ok(ValidityTerms::Absolute(AbsoluteWindow { begin, end }))
            }
            RawValidity::Relative {
                begin_days,
                end_days,
            } => Ok(ValidityTerms::Relative(RelativeDays {
                begin_days: days("begin_days", *begin_days)?,
                end_days: days("end_days", *end_days)?,
            })),
        }
    }

    /// The validity of a coupon issued at `issued_at`, business zone `tz`.
    pub fn validity_for(
        &self,
        issued_at: DateTime<Utc>,
        tz: Tz,
    ) -> Result<Validity, ValidityOutOfRange> {
        match self {
            ValidityTerms::Absolute(w) => Ok(Validity {
                effective_at: w.begin,
                expires_at: w.end,
            }),
            ValidityTerms::Relative(d) => relative(*d, issued_at, tz).ok_or(ValidityOutOfRange),
        }
    }

    /// Whether every coupon of these terms has expired by `now`: an
    /// absolute validity whose end has passed (a relative one never ends).
    pub fn ended_by(&self, now: DateTime<Utc>) -> bool {
        matches!(self, ValidityTerms::Absolute(w) if w.end < now)
    }

    pub fn to_raw(&self) -> RawValidity {
        match self {
            ValidityTerms::Absolute(w) => RawValidity::Absolute {
                begin: w.begin.to_rfc3339_opts(chrono::SecondsFormat::AutoSi, true),
                end: w.end.to_rfc3339_opts(chrono::SecondsFormat::AutoSi, true),
            },
            ValidityTerms::Relative(d) => RawValidity::Relative {
                begin_days: i64::from(d.begin_days),
                end_days: i64::from(d.end_days),
            },
        }
    }
}

impl Validity {
    /// Whether the coupon may be used at `now` (both ends inclusive).
    pub fn is_within(&self, now: DateTime<Utc>) -> bool {
        self.effective_at <= now && now <= self.expires_at
    }
}

fn relative(d: RelativeDays, issued_at: DateTime<Utc>, tz: Tz) -> Option<Validity> {
    let issue_date = issued_at.with_timezone(&tz).date_naive();
    let (effective_at, effective_date) = if d.begin_days == 0 {
        (issued_at, issue_date)
    } else {
        let day = issue_date.checked_add_days(Days::new(u64::from(d.begin_days)))?;
        (start_of_day(tz, day)?, day)
    };
    let last_day = effective_date.checked_add_days(Days::new(u64::from(d.end_days)))?;
    Some(Validity {
        effective_at,
        expires_at: end_of_day(tz, last_day)?,
    })
}

/// The first instant of a business day.
pub fn start_of_day(tz: Tz, day: NaiveDate) -> Option<DateTime<Utc>> {
    let midnight = day.and_time(NaiveTime::MIN);
    match tz.from_local_datetime(&midnight) {
        LocalResult::Single(t) => Some(t.to_utc()),
        LocalResult::Ambiguous(a, b) => Some(a.min(b).to_utc()),
        LocalResult::None => first_valid_after_gap(tz, midnight),
    }
}

/// 23:59:59 of a business day (the later instant when it occurs twice).
pub fn end_of_day(tz: Tz, day: NaiveDate) -> Option<DateTime<Utc>> {
    let last_second = day.and_hms_opt(23, 59, 59)?;
    match tz.from_local_datetime(&last_second) {
        LocalResult::Single(t) => Some(t.to_utc()),
        LocalResult::Ambiguous(a, b) => Some(a.max(b).to_utc()),
        LocalResult::None => {
            start_of_day(tz, day.succ_opt()?)?.checked_sub_signed(TimeDelta::seconds(1))
        }
    }
}

/// The earliest existing local time after `local`, which falls in a gap.
/// chrono-tz exposes no transition table, so scan: by minute (gaps start on
/// whole minutes in practice), then by second for historic odd offsets.
fn first_valid_after_gap(tz: Tz, local: NaiveDateTime) -> Option<DateTime<Utc>> {
    let exists = |t: NaiveDateTime| tz.from_local_datetime(&t).earliest();
    let minute = (1..=26 * 60)
        .filter_map(|m| local.checked_add_signed(TimeDelta::minutes(m)))
        .find(|t| exists(*t).is_some())?;
    let first = (0..60)
        .rev()
        .filter_map(|s| minute.checked_sub_signed(TimeDelta::seconds(s)))
        .find(|t| *t > local && exists(*t).is_some())?;
    exists(first).map(|t| t.to_utc())
}

#[cfg(test)]
mod instant_tests {
    use super::*;

    fn absolute(begin: &str, end: &str) -> Result<ValidityTerms, ParseError> {
        ValidityTerms::parse(&RawValidity::Absolute {
            begin: begin.into(),
            end: end.into(),
        })
    }

    #[test]
    fn leap_seconds_are_refused_naming_the_field() {
        let e = absolute("2026-12-31T23:59:60Z", "2027-01-02T00:00:00Z").unwrap_err();
        assert_eq!(e.field(), "begin");
        let e = absolute("2026-01-01T00:00:00Z", "2026-12-31T23:59:60.5Z").unwrap_err();
        assert_eq!(e.field(), "end");
    }

    #[test]
    fn an_absolute_validity_ends_after_its_end() {
        let terms = absolute("2026-01-01T00:00:00Z", "2026-02-01T00:00:00Z").unwrap();
        let at = |s: &str| DateTime::parse_from_rfc3339(s).unwrap().to_utc();
        assert!(!terms.ended_by(at("2026-02-01T00:00:00Z")));
        assert!(terms.ended_by(at("2026-02-01T00:00:00.000001Z")));
        let relative = ValidityTerms::parse(&RawValidity::Relative {
            begin_days: 0,
            end_days: 1,
        })
        .unwrap();
        assert!(!relative.ended_by(at("9999-01-01T00:00:00Z")));
    }
}
