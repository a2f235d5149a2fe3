//! A template's history over time (the console's chart), pure: the bucket
//! sizes, the buckets a range asked for covers, and the counts of one bucket.
//!
//! Buckets are cut in the business time zone (`LEDGER_TZ`), so that a day
//! bucket is a business day. Their starts are computed here, once, and the
//! query assigns each coupon to one of them (Postgres never cuts buckets of
//! its own, so the two cannot disagree about a boundary).

use crate::domain::names::name_list;
use chrono::{DateTime, Days, Duration, TimeZone, Timelike, Utc};
use chrono_tz::Tz;
use serde::Serialize;
use utoipa::ToSchema;

use super::coupon_state::CouponStatus;
use super::names;
use super::validity::start_of_day;

/// The most buckets one answer holds. A chart has no more pixels across
/// than this on a wide screen, so more buckets would only be averaged away;
/// the bound keeps an answer under ~250 KB and its query's work bounded,
/// while still covering a whole day by the minute (1,440).
pub const MAX_BUCKETS: usize = 1_500;

name_list! {
    /// How wide one bucket is.
    pub enum Bucket {
        Minute,
        Hour,
        Day,
    }
}

impl Bucket {
    pub fn parse(s: &str) -> Result<Self, String> {
        s.parse()
            .map_err(|_| format!("{s:?}: expected {}", names::alternatives::<Self>()))
    }

    pub const fn as_str(self) -> &'static str {
        self.into_str()
    }

    /// The start of the bucket holding `t`.
    pub fn floor(self, tz: Tz, t: DateTime<Utc>) -> Option<DateTime<Utc>> {
        let local = t.with_timezone(&tz);
        match self {
            // Whole minutes are whole minutes in every zone in use. (Cut by
            // fields: chrono's `duration_trunc` counts in nanoseconds, which
            // end in 2262, and instants run to 9999.)
            Self::Minute => t.with_second(0)?.with_nanosecond(0),
            // An hour is cut in local time (zones at +5:30 start theirs at :30);
            // a local hour that does not exist (a gap) falls back to UTC's.
            Self::Hour => {
                let naive = local.naive_local().date().and_hms_opt(local.hour(), 0, 0)?;
                let start = tz
                    .from_local_datetime(&naive)
                    .earliest()
                    .map(|s| s.to_utc());
                start.or_else(|| t.with_minute(0)?.with_second(0)?.with_nanosecond(0))
            }
            Self::Day => start_of_day(tz, local.date_naive()),
        }
    }

    /// The start of the bucket after the one starting at `start`.
    fn next(self, tz: Tz, start: DateTime<Utc>) -> Option<DateTime<Utc>> {
        match self {
            Self::Minute => start.checked_add_signed(Duration::minutes(1)),
            Self::Hour => start.checked_add_signed(Duration::hours(1)),
            // A business day may be 23 or 25 hours long: the next midnight.
            Self::Day => {
                let day = start.with_timezone(&tz).date_naive();
                start_of_day(tz, day.checked_add_days(Days::new(1))?)
            }
        }
    }

    /// The start of the bucket `n` buckets before the one holding `t`.
    fn back(self, tz: Tz, t: DateTime<Utc>, n: u32) -> Option<DateTime<Utc>> {
        let earlier = match self {
            Self::Minute => t.checked_sub_signed(Duration::minutes(n.into()))?,
            Self::Hour => t.checked_sub_signed(Duration::hours(n.into()))?,
            Self::Day => {
                let day = t.with_timezone(&tz).date_naive();
                start_of_day(tz, day.checked_sub_days(Days::new(n.into()))?)?
            }
        };
        self.floor(tz, earlier)
    }
}

/// Why a range was refused (each a 400 naming its field).
#[derive(Debug, PartialEq, Eq, thiserror::Error)]
pub enum RangeError {
    #[error("from: must be before to")]
    Empty,
    #[error(
        "from: {from} to {to} is more than {max} {unit} buckets; \
         ask for a wider bucket or a shorter range",
        max = MAX_BUCKETS,
        unit = .bucket.as_str()
    )]
    TooMany {
        from: DateTime<Utc>,
        to: DateTime<Utc>,
        bucket: Bucket,
    },
    #[error("from: out of range")]
    OutOfRange,
}

/// The buckets of one answer: their starts, oldest first, and the end of
/// the last one counted (`to` itself: the last bucket may be partial).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Buckets {
    pub bucket: Bucket,
    pub starts: Vec<DateTime<Utc>>,
    pub to: DateTime<Utc>,
}

/// The buckets from `from` (rounded down to its bucket's start) up to `to`.
/// Without `from`: from `earliest` (the template's creation), or the newest
/// [`MAX_BUCKETS`] buckets when that is longer ago.
pub fn buckets(
    bucket: Bucket,
    tz: Tz,
    from: Option<DateTime<Utc>>,
    earliest: DateTime<Utc>,
    to: DateTime<Utc>,
) -> Result<Buckets, RangeError> {
    let from = match from {
        Some(from) => from,
        None => {
            let oldest = bucket.back(tz, to, MAX_BUCKETS as u32 - 1);
            let oldest = oldest.ok_or(RangeError::OutOfRange)?;
            if earliest > oldest && earliest < to {
                earliest
            } else {
                oldest
            }
        }
    };
    if from >= to {
        return Err(RangeError::Empty);
    }
    let mut start = bucket.floor(tz, from).ok_or(RangeError::OutOfRange)?;
    let mut starts = Vec::new();
    // At most MAX_BUCKETS + 1 steps, however far apart from and to are.
    while start < to {
        if starts.len() == MAX_BUCKETS {
            return Err(RangeError::TooMany { from, to, bucket });
        }
        starts.push(start);
        start = bucket.next(tz, start).ok_or(RangeError::OutOfRange)?;
    }
    Ok(Buckets { bucket, starts, to })
}

/// The coupons issued in one bucket, and what has become of them: the
/// status counts are of the same coupons, as they stand now, so they add up
/// to `issued`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, ToSchema)]
pub struct HistoryBucket {
    /// The bucket's start; it ends where the next one starts (the last at `to`).
    pub start: DateTime<Utc>,
    /// Coupons issued in the bucket.
    pub issued: i64,
    /// Of those, unused now.
    pub unused: i64,
    /// Of those, locked in an order now.
    pub locked: i64,
    /// Of those, used now.
    pub used: i64,
    /// Of those, refunded (given back by a refund under the `reissue` policy).
    pub refunded: i64,
    /// Of those, expired.
    pub expired: i64,
    /// Of those, void (voided one by one or with their template).
    pub void: i64,
}

impl HistoryBucket {
    pub fn empty(start: DateTime<Utc>) -> Self {
        Self {
            start,
            ..Self::default()
        }
    }

    /// Adds `n` coupons of `status` issued in this bucket.
    pub fn add(&mut self, status: CouponStatus, n: i64) {
        self.issued += n;
        *match status {
            CouponStatus::Unused => &mut self.unused,
            CouponStatus::Locked => &mut self.locked,
            CouponStatus::Used => &mut self.used,
            CouponStatus::Refunded => &mut self.refunded,
            CouponStatus::Expired => &mut self.expired,
            CouponStatus::Void => &mut self.void,
        } += n;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(s: &str) -> DateTime<Utc> {
        DateTime::parse_from_rfc3339(s).unwrap().to_utc()
    }

    const SHANGHAI: Tz = chrono_tz::Asia::Shanghai;

    #[test]
    fn bucket_names_parse_and_others_are_refused_saying_what_is_expected() {
        for b in [Bucket::Minute, Bucket::Hour, Bucket::Day] {
            assert_eq!(Bucket::parse(b.as_str()), Ok(b));
        }
        let e = Bucket::parse("week").unwrap_err();
        assert!(e.contains("minute, hour or day"), "{e}");
    }

    #[test]
    fn a_range_is_cut_into_whole_buckets_from_the_start_of_from_s() {
        let b = buckets(
            Bucket::Minute,
            SHANGHAI,
            Some(at("2026-11-11T10:00:30Z")),
            at("2026-01-01T00:00:00Z"),
            at("2026-11-11T10:03:00Z"),
        )
        .unwrap();
        let want: Vec<_> = ["10:00", "10:01", "10:02"]
            .iter()
            .map(|m| at(&format!("2026-11-11T{m}:00Z")))
            .collect();
        assert_eq!(b.starts, want);
        assert_eq!(b.to, at("2026-11-11T10:03:00Z"));
    }

    #[test]
    fn buckets_are_cut_in_any_year_an_instant_can_hold() {
        for (from, to) in [
            ("1066-10-14T09:00:30Z", "1066-10-14T09:03:00Z"),
            ("8999-12-28T09:00:30Z", "8999-12-28T09:03:00Z"),
        ] {
            for bucket in [Bucket::Minute, Bucket::Hour, Bucket::Day] {
                let b = buckets(bucket, SHANGHAI, Some(at(from)), at(from), at(to));
                let b = b.unwrap_or_else(|e| panic!("{bucket:?} {from}: {e}"));
                assert!(
                    b.starts[0] <= at(from) && at(from) < b.to,
                    "{bucket:?} {from}"
                );
            }
        }
    }

    #[test]
    fn day_buckets_are_business_days() {
        let b = buckets(
            Bucket::Day,
            SHANGHAI,
            Some(at("2026-11-11T03:00:00Z")),
            at("2026-01-01T00:00:00Z"),
            at("2026-11-12T17:00:00Z"),
        )
        .unwrap();
        // Midnight in Shanghai is 16:00 UTC the day before.
        let want = [
            "2026-11-10T16:00:00Z",
            "2026-11-11T16:00:00Z",
            "2026-11-12T16:00:00Z",
        ];
        assert_eq!(b.starts, want.map(at));
    }

    #[test]
    fn a_dst_day_is_23_hours_long() {
        let berlin = chrono_tz::Europe::Berlin;
        let from = at("2026-03-28T12:00:00Z");
        let b = buckets(
            Bucket::Day,
            berlin,
            Some(from),
            from,
            at("2026-03-30T12:00:00Z"),
        );
        let want = [
            "2026-03-27T23:00:00Z",
            "2026-03-28T23:00:00Z",
            "2026-03-29T22:00:00Z",
        ];
        assert_eq!(b.unwrap().starts, want.map(at));
    }

    #[test]
    fn hours_follow_a_half_hour_zone() {
        let kolkata = chrono_tz::Asia::Kolkata;
        let start = Bucket::Hour.floor(kolkata, at("2026-11-11T10:10:00Z"));
        assert_eq!(start, Some(at("2026-11-11T09:30:00Z")));
    }

    #[test]
    fn too_many_buckets_or_an_empty_range_are_refused() {
        let (from, to) = (at("2026-11-01T00:00:00Z"), at("2026-11-11T00:00:00Z"));
        let e = buckets(Bucket::Minute, SHANGHAI, Some(from), from, to).unwrap_err();
        assert!(
            e.to_string().contains("more than 1500 minute buckets"),
            "{e}"
        );
        assert!(buckets(Bucket::Hour, SHANGHAI, Some(from), from, to).is_ok());
        let e = buckets(Bucket::Hour, SHANGHAI, Some(to), from, to).unwrap_err();
        assert_eq!(e, RangeError::Empty);
        let far = at("9999-12-31T23:59:59Z");
        assert!(buckets(Bucket::Day, SHANGHAI, Some(from), from, far).is_err());
    }

    #[test]
    fn without_from_the_answer_starts_at_creation_or_the_newest_buckets() {
        let created = at("2026-11-11T10:00:10Z");
        let b = buckets(
            Bucket::Minute,
            SHANGHAI,
            None,
            created,
            at("2026-11-11T10:02:30Z"),
        );
        assert_eq!(b.unwrap().starts.len(), 3);
        let long_ago = at("2020-01-01T00:00:00Z");
        let b = buckets(
            Bucket::Minute,
            SHANGHAI,
            None,
            long_ago,
            at("2026-11-11T10:02:30Z"),
        );
        let b = b.unwrap();
        assert_eq!(b.starts.len(), MAX_BUCKETS);
        assert_eq!(b.starts.last(), Some(&at("2026-11-11T10:02:00Z")));
        let far = at("9999-12-31T23:59:59Z");
        assert_eq!(
            buckets(Bucket::Day, SHANGHAI, None, long_ago, far)
                .unwrap()
                .starts
                .len(),
            MAX_BUCKETS
        );
    }

    #[test]
    fn a_bucket_s_statuses_add_up_to_what_it_issued() {
        let mut b = HistoryBucket::empty(at("2026-11-11T10:00:00Z"));
        b.add(CouponStatus::Unused, 5);
        b.add(CouponStatus::Used, 2);
        b.add(CouponStatus::Void, 1);
        assert_eq!((b.issued, b.unused, b.used, b.void), (8, 5, 2, 1));
    }
}
