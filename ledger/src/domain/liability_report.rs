//! The liability report as people read it: the instant asked for (a moment,
//! the end of a business day, or now) and one row per group plus a total,
//! as a table, CSV or JSON. Shared by `ledger report liability` and
//! `GET /v1/reports/liability` (the console's finance page). No I/O.

use chrono::{DateTime, Days, NaiveDate, Utc};
use chrono_tz::Tz;
use rust_decimal::Decimal;
use serde::Serialize;
use utoipa::ToSchema;

use super::liability::{By, Liability, TOTAL, TemplateShops, Totals};
use super::money::serialize_two_places;

/// The instant a report is as of.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AsOf {
    Now,
    Instant(DateTime<Utc>),
    /// The end of a business day in `LEDGER_TZ`.
    EndOf(NaiveDate),
}

impl AsOf {
    /// RFC 3339, a business day (`2026-11-20`) or `now`.
    pub fn parse(s: &str) -> Result<AsOf, String> {
        if s == "now" {
            return Ok(AsOf::Now);
        }
        if let Ok(day) = NaiveDate::parse_from_str(s, "%Y-%m-%d") {
            return Ok(AsOf::EndOf(day));
        }
        DateTime::parse_from_rfc3339(s)
            .map(|t| AsOf::Instant(t.with_timezone(&Utc)))
            .map_err(|e| {
                format!("{e}: expected RFC 3339 (2026-11-20T16:00:00Z), a day (2026-11-20) or now")
            })
    }

    /// The instant; a day ends at the last microsecond before the next day
    /// begins in `tz` (timestamps are stored to the microsecond).
    pub fn resolve(self, tz: Tz, now: DateTime<Utc>) -> Result<DateTime<Utc>, String> {
        match self {
            AsOf::Now => Ok(now),
            AsOf::Instant(t) => Ok(t),
            AsOf::EndOf(day) => {
                let next = day
                    .checked_add_days(Days::new(1))
                    .ok_or("day out of range")?;
                let midnight = super::validity::start_of_day(tz, next)
                    .ok_or("that day has no start in LEDGER_TZ")?;
                Ok(midnight - chrono::Duration::microseconds(1))
            }
        }
    }
}

/// `template`, `channel`, `day` or `shop`, as the CLI and the query string
/// spell it.
pub fn parse_by(s: &str) -> Result<By, String> {
    s.parse()
        .map_err(|_| format!("{s:?}: expected {}", super::names::alternatives::<By>()))
}

pub fn by_name(by: By) -> &'static str {
    by.into_str()
}

/// One row of the report: a group (template sn, channel id or `none`,
/// business day, shop id or `(platform)`) or the `total`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, ToSchema)]
pub struct Row {
    pub group: String,
    pub issued: i64,
    pub unused: i64,
    pub locked: i64,
    pub used: i64,
    pub refunded: i64,
    pub expired: i64,
    pub void: i64,
    /// Face value of the unused and locked coupons, to the cent.
    #[serde(serialize_with = "serialize_two_places")]
    #[schema(value_type = String, example = "1980.00")]
    pub face_value_outstanding: Decimal,
    /// Discounts granted on confirmed orders, net of refunds, to the cent.
    #[serde(serialize_with = "serialize_two_places")]
    #[schema(value_type = String, example = "240.00")]
    pub cost: Decimal,
}

/// The groups' rows in order, then a `total` row; `shops` names each
/// template's shop when rows are [`By::Shop`].
pub fn rows(liability: &Liability, by: By, shops: &TemplateShops) -> Vec<Row> {
    let total = (TOTAL.to_owned(), liability.total());
    liability
        .by(by, shops)
        .into_iter()
        .chain(std::iter::once(total))
        .map(|(g, t)| row(g, &t))
        .collect()
}

fn row(group: String, t: &Totals) -> Row {
    Row {
        group,
        issued: t.issued,
        unused: t.unused,
        locked: t.locked,
        used: t.used,
        refunded: t.refunded,
        expired: t.expired,
        void: t.void,
        face_value_outstanding: t.outstanding_value(),
        cost: t.cost_value(),
    }
}

pub const HEADER: [&str; 10] = [
    "group",
    "issued",
    "unused",
    "locked",
    "used",
    "refunded",
    "expired",
    "void",
    "face_value_outstanding",
    "cost",
];

pub fn fields(r: &Row) -> [String; 10] {
    [
        r.group.clone(),
        r.issued.to_string(),
        r.unused.to_string(),
        r.locked.to_string(),
        r.used.to_string(),
        r.refunded.to_string(),
        r.expired.to_string(),
        r.void.to_string(),
        format!("{:.2}", r.face_value_outstanding),
        format!("{:.2}", r.cost),
    ]
}

/// The report as CSV: a header line, then one line per row.
pub fn csv(rows: &[Row]) -> String {
    let mut out = crate::domain::csv_line::record(&HEADER);
    for r in rows {
        let fields = fields(r);
        let fields: Vec<&str> = fields.iter().map(String::as_str).collect();
        out.push_str(&crate::domain::csv_line::record(&fields));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_day_ends_at_its_last_microsecond_in_the_business_zone() {
        let t = AsOf::parse("2026-11-20")
            .unwrap()
            .resolve(chrono_tz::Asia::Shanghai, Utc::now())
            .unwrap();
        assert_eq!(t.to_rfc3339(), "2026-11-20T15:59:59.999999+00:00");
        assert!(AsOf::parse("20 Nov").is_err());
        assert_eq!(parse_by("channel"), Ok(By::Channel));
        assert_eq!(parse_by("shop"), Ok(By::Shop));
        assert!(parse_by("week").is_err());
    }

    #[test]
    fn csv_has_a_header_and_a_total() {
        let text = csv(&rows(
            &Liability::default(),
            By::Template,
            &TemplateShops::default(),
        ));
        assert_eq!(
            text,
            "group,issued,unused,locked,used,refunded,expired,void,face_value_outstanding,cost\n\
             total,0,0,0,0,0,0,0,0.00,0.00\n"
        );
    }
}
