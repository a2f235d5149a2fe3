//! Validity instants: relative days in the business time zone, across DST.

use chrono::{DateTime, NaiveDate, TimeZone, Utc};
use chrono_tz::Tz;
use ledger::domain::validity::{end_of_day, start_of_day};
use ledger::domain::{RawValidity, Validity, ValidityTerms};

fn utc(s: &str) -> DateTime<Utc> {
    DateTime::parse_from_rfc3339(s).unwrap().with_timezone(&Utc)
}

fn relative(begin_days: i64, end_days: i64) -> ValidityTerms {
    ValidityTerms::parse(&RawValidity::Relative {
        begin_days,
        end_days,
    })
    .unwrap()
}

fn issue(terms: ValidityTerms, issued_at: &str, tz: Tz) -> Validity {
    terms.validity_for(utc(issued_at), tz).unwrap()
}

#[test]
fn relative_0_7_issued_at_10_00_shanghai() {
    let v = issue(
        relative(0, 7),
        "2026-11-11T10:00:00+08:00",
        chrono_tz::Asia::Shanghai,
    );
    assert_eq!(
        v.effective_at,
        utc("2026-11-11T10:00:00+08:00"),
        "effective at once"
    );
    assert_eq!(
        v.expires_at,
        utc("2026-11-18T23:59:59+08:00"),
        "the day of issue is not counted"
    );
}

#[test]
fn relative_0_7_issued_at_23_59_30_shanghai() {
    let v = issue(
        relative(0, 7),
        "2026-11-11T23:59:30+08:00",
        chrono_tz::Asia::Shanghai,
    );
    assert_eq!(v.effective_at, utc("2026-11-11T23:59:30+08:00"));
    assert_eq!(v.expires_at, utc("2026-11-18T23:59:59+08:00"));
    // 31 seconds later it is already the 12th in Shanghai (still the 11th in UTC).
    let v = issue(
        relative(0, 7),
        "2026-11-12T00:00:01+08:00",
        chrono_tz::Asia::Shanghai,
    );
    assert_eq!(v.expires_at, utc("2026-11-19T23:59:59+08:00"));
}

#[test]
fn relative_0_0_lasts_until_the_end_of_the_issue_day() {
    let v = issue(
        relative(0, 0),
        "2026-11-11T10:00:00+08:00",
        chrono_tz::Asia::Shanghai,
    );
    assert_eq!(v.expires_at, utc("2026-11-11T23:59:59+08:00"));
}

#[test]
fn begin_days_start_at_midnight_of_a_later_business_day() {
    let v = issue(
        relative(2, 3),
        "2026-11-11T10:00:00+08:00",
        chrono_tz::Asia::Shanghai,
    );
    assert_eq!(v.effective_at, utc("2026-11-13T00:00:00+08:00"));
    assert_eq!(v.expires_at, utc("2026-11-16T23:59:59+08:00"));
    let v = issue(
        relative(1, 0),
        "2026-11-11T23:59:30+08:00",
        chrono_tz::Asia::Shanghai,
    );
    assert_eq!(v.effective_at, utc("2026-11-12T00:00:00+08:00"));
    assert_eq!(v.expires_at, utc("2026-11-12T23:59:59+08:00"));
}

#[test]
fn berlin_spring_forward() {
    // Clocks jump 02:00 → 03:00 on 2026-03-29: CET (+01) before, CEST (+02) after.
    let v = issue(
        relative(0, 7),
        "2026-03-25T10:00:00+01:00",
        chrono_tz::Europe::Berlin,
    );
    assert_eq!(v.expires_at, utc("2026-04-01T23:59:59+02:00"));
    let v = issue(
        relative(1, 0),
        "2026-03-28T12:00:00+01:00",
        chrono_tz::Europe::Berlin,
    );
    assert_eq!(v.effective_at, utc("2026-03-29T00:00:00+01:00"));
    assert_eq!(v.expires_at, utc("2026-03-29T23:59:59+02:00"));
}

#[test]
fn new_york_fall_back() {
    // Clocks go back 02:00 → 01:00 on 2026-11-01: EDT (−04) before, EST (−05) after.
    let v = issue(
        relative(0, 1),
        "2026-10-31T20:00:00-04:00",
        chrono_tz::America::New_York,
    );
    assert_eq!(v.expires_at, utc("2026-11-01T23:59:59-05:00"));
    let v = issue(
        relative(1, 0),
        "2026-10-31T20:00:00-04:00",
        chrono_tz::America::New_York,
    );
    assert_eq!(v.effective_at, utc("2026-11-01T00:00:00-04:00"));
}

#[test]
fn a_midnight_that_does_not_exist_starts_at_the_first_local_time_that_does() {
    // Santiago springs forward at 24:00 → 01:00 on 2026-09-06.
    let tz = chrono_tz::America::Santiago;
    let day = NaiveDate::from_ymd_opt(2026, 9, 6).unwrap();
    assert_eq!(
        start_of_day(tz, day),
        Some(utc("2026-09-06T01:00:00-03:00"))
    );
    let v = issue(relative(1, 0), "2026-09-05T12:00:00-04:00", tz);
    assert_eq!(v.effective_at, utc("2026-09-06T01:00:00-03:00"));
}

#[test]
fn an_ambiguous_23_59_59_is_the_later_one() {
    // Santiago falls back at 24:00 → 23:00 on 2026-04-04: 23:xx happens twice.
    let tz = chrono_tz::America::Santiago;
    let day = NaiveDate::from_ymd_opt(2026, 4, 4).unwrap();
    assert_eq!(end_of_day(tz, day), Some(utc("2026-04-04T23:59:59-04:00")));
    assert_eq!(
        start_of_day(tz, day.succ_opt().unwrap()),
        Some(utc("2026-04-05T00:00:00-04:00"))
    );
}

#[test]
fn a_day_that_does_not_exist_is_handled() {
    // Samoa skipped 2011-12-30 entirely.
    let tz = chrono_tz::Pacific::Apia;
    let day = NaiveDate::from_ymd_opt(2011, 12, 30).unwrap();
    assert_eq!(
        start_of_day(tz, day),
        Some(utc("2011-12-31T00:00:00+14:00"))
    );
    assert_eq!(end_of_day(tz, day), Some(utc("2011-12-29T23:59:59-10:00")));
}

#[test]
fn absolute_validity_ignores_the_issue_instant() {
    let raw = RawValidity::Absolute {
        begin: "2026-11-11T00:00:00+08:00".into(),
        end: "2026-11-15T23:59:59+08:00".into(),
    };
    let terms = ValidityTerms::parse(&raw).unwrap();
    let v = issue(terms, "2026-11-01T09:00:00Z", chrono_tz::Asia::Shanghai);
    assert_eq!(v.effective_at, utc("2026-11-11T00:00:00+08:00"));
    assert_eq!(v.expires_at, utc("2026-11-15T23:59:59+08:00"));
}

#[test]
fn is_within_includes_both_ends() {
    let v = issue(
        relative(0, 7),
        "2026-11-11T10:00:00+08:00",
        chrono_tz::Asia::Shanghai,
    );
    assert!(v.is_within(v.effective_at));
    assert!(v.is_within(v.expires_at));
    assert!(!v.is_within(v.effective_at - chrono::TimeDelta::seconds(1)));
    assert!(!v.is_within(v.expires_at + chrono::TimeDelta::milliseconds(1)));
}

#[test]
fn extreme_inputs_do_not_panic() {
    let far = Utc.with_ymd_and_hms(262_000, 1, 1, 0, 0, 0).unwrap();
    assert!(
        relative(36_600, 36_600)
            .validity_for(far, chrono_tz::Asia::Shanghai)
            .is_err()
    );
    let v = relative(36_600, 36_600)
        .validity_for(utc("2026-01-01T00:00:00Z"), chrono_tz::Asia::Shanghai);
    assert!(v.is_ok());
    assert!(
        ValidityTerms::parse(&RawValidity::Relative {
            begin_days: 0,
            end_days: 36_601
        })
        .is_err()
    );
    assert!(
        ValidityTerms::parse(&RawValidity::Relative {
            begin_days: i64::MAX,
            end_days: 0
        })
        .is_err()
    );
}
