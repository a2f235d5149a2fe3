//! Expiry reminders (docs/design.md §10), pure: a template's reminder offsets, the
//! days and instants a coupon is reminded on, the statuses of `notify_msg`
//! rows and the message a user receives.
//!
//! A coupon expiring on day E (business time zone) with offsets [7, 3, 1] is
//! reminded on E−7, E−3 and E−1 at `LEDGER_NOTIFY_AT`; a reminder whose
//! instant is not after the issue is dropped (it would arrive late or never).

use crate::domain::names::name_list;
use std::borrow::Cow;

use chrono::{DateTime, Days, NaiveDate, NaiveTime, TimeZone, Utc};
use chrono_tz::Tz;
use serde::{Deserialize, Serialize};
use uuid::Uuid;

use crate::domain::coupon_state::CouponStatus;
use crate::domain::money::Money;

/// The business time zone and the time of day reminders go out: what the
/// reminder projection and replay's fold both need to place a reminder.
#[derive(Clone, Copy, Debug)]
pub struct NotifyClock {
    pub tz: Tz,
    pub at: NotifyAt,
}

/// The largest offset: a year before expiry.
pub const MAX_REMIND_DAYS: i64 = 365;
/// The most offsets one template may have: one per possible day.
pub const MAX_OFFSETS: usize = 366;
/// The notify type of expiry reminders.
pub const EXPIRY_REMINDER: NotifyType = NotifyType::ExpiryReminder;
/// The `type` property of the message on `coupon.notifications`.
pub const MESSAGE_TYPE: &str = "ExpiryReminder";
/// The version of its body's schema (`schemas/ExpiryReminder.v1.json`).
pub const REMINDER_SCHEMA_VERSION: i16 = 1;

/// `remind_days_before` as it arrives: one number or a list of numbers.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(untagged)]
pub enum RawRemindDays {
    /// Days before expiry, 0 to 365.
    One(i64),
    /// Distinct days before expiry, each 0 to 365.
    Many(Vec<i64>),
}

/// In the OpenAPI document: a day 0 to [`MAX_REMIND_DAYS`], or 1 to
/// [`MAX_OFFSETS`] distinct ones ([`RemindDays::parse`]).
impl utoipa::PartialSchema for RawRemindDays {
    fn schema() -> utoipa::openapi::RefOr<utoipa::openapi::schema::Schema> {
        use utoipa::openapi::schema::{ArrayBuilder, ObjectBuilder, OneOfBuilder, Type};
        let day = || {
            ObjectBuilder::new()
                .schema_type(Type::Integer)
                .minimum(Some(0))
                .maximum(Some(MAX_REMIND_DAYS))
        };
        let days = ArrayBuilder::new()
            .items(day())
            .min_items(Some(1))
            .max_items(Some(MAX_OFFSETS))
            .unique_items(true);
        OneOfBuilder::new().item(day()).item(days).into()
    }
}

impl utoipa::ToSchema for RawRemindDays {}

/// Validated offsets: non-empty, distinct, each 0..=365, largest first.
/// A single offset is written back as a plain number, so templates and
/// events from before lists existed read and write as they always did.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct RemindDays(Vec<u16>);

#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum RemindDaysError {
    #[error("must be 0 to 365")]
    OutOfRange,
    #[error("must not repeat a day")]
    Repeated,
    #[error("must list at least one day (null stops reminders)")]
    Empty,
}

impl RemindDays {
    pub fn parse(raw: &RawRemindDays) -> Result<RemindDays, RemindDaysError> {
        let days: &[i64] = match raw {
            RawRemindDays::One(d) => std::slice::from_ref(d),
            RawRemindDays::Many(ds) => ds,
        };
        if days.is_empty() {
            return Err(RemindDaysError::Empty);
        }
        // More than one per possible day must repeat one; refused before the
        // quadratic check below sees a long list.
        if days.len() > MAX_OFFSETS {
            return Err(RemindDaysError::Repeated);
        }
        let mut out = Vec::with_capacity(days.len().min(MAX_OFFSETS));
        for &d in days {
            let d = u16::try_from(d)
                .ok()
                .filter(|d| i64::from(*d) <= MAX_REMIND_DAYS)
                .ok_or(RemindDaysError::OutOfRange)?;
            if out.contains(&d) {
                return Err(RemindDaysError::Repeated);
            }
            out.push(d);
        }
        out.sort_unstable_by(|a, b| b.cmp(a));
        Ok(RemindDays(out))
    }

    pub fn days(&self) -> &[u16] {
        &self.0
    }

    pub fn to_raw(&self) -> RawRemindDays {
        match self.0.as_slice() {
            [one] => RawRemindDays::One(i64::from(*one)),
            many => RawRemindDays::Many(many.iter().map(|&d| i64::from(d)).collect()),
        }
    }

    /// The SQL edge: `integer[]`.
    pub fn to_db(&self) -> Vec<i32> {
        self.0.iter().map(|&d| i32::from(d)).collect()
    }

    /// The SQL edge back; a stored value that is not valid reads as no reminder.
    pub fn from_db(stored: Option<Vec<i32>>) -> Option<RemindDays> {
        let raw = RawRemindDays::Many(stored?.into_iter().map(i64::from).collect());
        RemindDays::parse(&raw).ok()
    }
}

impl Serialize for RemindDays {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.to_raw().serialize(s)
    }
}

impl<'de> Deserialize<'de> for RemindDays {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let raw = RawRemindDays::deserialize(d)?;
        RemindDays::parse(&raw).map_err(serde::de::Error::custom)
    }
}

impl schemars::JsonSchema for RemindDays {
    fn schema_name() -> Cow<'static, str> {
        "RemindDays".into()
    }
    fn json_schema(generator: &mut schemars::SchemaGenerator) -> schemars::Schema {
        RawRemindDays::json_schema(generator)
    }
}

/// When on a notify day reminders go out (`LEDGER_NOTIFY_AT`, business time).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct NotifyAt(pub NaiveTime);

impl NotifyAt {
    pub const DEFAULT: &str = "10:00";

    /// `HH:MM` (24 hours).
    pub fn parse(s: &str) -> Option<NotifyAt> {
        NaiveTime::parse_from_str(s.trim(), "%H:%M")
            .ok()
            .map(NotifyAt)
    }
}

impl Default for NotifyAt {
    fn default() -> Self {
        NotifyAt(NaiveTime::from_hms_opt(10, 0, 0).unwrap_or(NaiveTime::MIN))
    }
}

/// One reminder a coupon is due: the day (business time) and the instant.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Reminder {
    pub day: NaiveDate,
    pub at: DateTime<Utc>,
}

/// The reminders of a coupon expiring at `expires_at`, issued at
/// `issued_at`: one per offset whose day (business time) has not passed,
/// earliest first. A reminder of the issue day whose hour has passed is
/// kept: it is due at once and goes out at the sender's next run, so a
/// coupon issued at 15:00 that expires tomorrow is still reminded
/// (docs/design.md §10).
pub fn reminders(
    expires_at: DateTime<Utc>,
    issued_at: DateTime<Utc>,
    offsets: &RemindDays,
    tz: Tz,
    at: NotifyAt,
) -> Vec<Reminder> {
    let expiry_day = day_of(expires_at, tz);
    let issue_day = day_of(issued_at, tz);
    let mut out: Vec<Reminder> = offsets
        .days()
        .iter()
        .filter_map(|&d| expiry_day.checked_sub_days(Days::new(u64::from(d))))
        .filter_map(|day| {
            Some(Reminder {
                day,
                at: instant(day, tz, at)?,
            })
        })
        .filter(|r| r.day >= issue_day)
        .collect();
    out.sort_unstable();
    out
}

/// The business day of an instant: a reminder of that day or later is still
/// to be sent (docs/design.md §10), whether made at issue or revived when
/// its coupon comes back.
pub fn day_of(at: DateTime<Utc>, tz: Tz) -> NaiveDate {
    at.with_timezone(&tz).date_naive()
}

/// `day` at `at` in `tz`. A wall-clock time skipped by a DST change falls
/// to the next valid instant an hour later; an ambiguous one takes the first.
pub fn instant(day: NaiveDate, tz: Tz, at: NotifyAt) -> Option<DateTime<Utc>> {
    let local = day.and_time(at.0);
    let resolved = tz.from_local_datetime(&local).earliest().or_else(|| {
        tz.from_local_datetime(&(local + chrono::Duration::hours(1)))
            .earliest()
    })?;
    Some(resolved.with_timezone(&Utc))
}

/// Whether a coupon in `status` still needs its reminders: unused, or locked
/// (a lock may be cancelled; the sender leaves a locked coupon out then).
pub fn is_live(status: CouponStatus) -> bool {
    matches!(status, CouponStatus::Unused | CouponStatus::Locked)
}

/// What a coupon's move means for the reminders it contributes to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HolderChange {
    Nothing,
    /// It is gone (used, expired, voided, refunded): its pending reminders
    /// are cancelled unless another live coupon shares them.
    Left,
    /// It is back (restored): its cancelled reminders still to come are pending again.
    Returned,
}

pub fn holder_change(from: CouponStatus, to: CouponStatus) -> HolderChange {
    match (is_live(from), is_live(to)) {
        (true, false) => HolderChange::Left,
        (false, true) => HolderChange::Returned,
        _ => HolderChange::Nothing,
    }
}

/// What a notify row is for (`notify_type`), each with its own message on
/// `coupon.notifications`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum NotifyType {
    /// One row per (user, template, day); the message per user and day.
    ExpiryReminder,
    /// One row and message per (issuance job, user): the job asked
    /// `notify=true` (`domain::granted`).
    CouponsGranted,
}

impl NotifyType {
    pub const ALL: [NotifyType; 2] = [NotifyType::ExpiryReminder, NotifyType::CouponsGranted];

    pub fn code(self) -> i16 {
        match self {
            NotifyType::ExpiryReminder => 1,
            NotifyType::CouponsGranted => 2,
        }
    }

    pub fn from_code(code: i16) -> Option<NotifyType> {
        NotifyType::ALL.into_iter().find(|t| t.code() == code)
    }

    /// The label metrics give its rows.
    pub fn label(self) -> &'static str {
        match self {
            NotifyType::ExpiryReminder => "expiry_reminder",
            NotifyType::CouponsGranted => "coupons_granted",
        }
    }
}

name_list! {
    /// Where a `notify_msg` row stands (`status`, stored as its [`code`]).
    ///
    /// [`code`]: NotifyStatus::code
    pub enum NotifyStatus {
        Pending,
        Sent,
        Failed,
        Cancelled,
    }
}

impl NotifyStatus {
    pub fn code(self) -> i16 {
        match self {
            NotifyStatus::Pending => 0,
            NotifyStatus::Sent => 1,
            NotifyStatus::Failed => 2,
            NotifyStatus::Cancelled => 3,
        }
    }

    pub fn from_code(code: i16) -> Option<NotifyStatus> {
        match code {
            0 => Some(NotifyStatus::Pending),
            1 => Some(NotifyStatus::Sent),
            2 => Some(NotifyStatus::Failed),
            3 => Some(NotifyStatus::Cancelled),
            _ => None,
        }
    }

    /// Whether the events decide it (pending, cancelled) or delivery did.
    pub fn is_delivery_fact(self) -> bool {
        matches!(self, NotifyStatus::Sent | NotifyStatus::Failed)
    }
}

/// The message id of a user's reminder of a day: the same (user, day, type)
/// always gives the same id, so downstream recognises a re-send.
pub fn message_id(user_id: &str, day: NaiveDate, kind: NotifyType) -> String {
    format!("notify-{}-{day}-{user_id}", kind.code())
}

/// The body of an `ExpiryReminder` on `coupon.notifications`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ExpiryReminder {
    pub user_id: String,
    /// The day of the reminder, in the business time zone.
    pub notify_day: NaiveDate,
    /// The user's unused coupons this reminder is about (at least one).
    pub coupons: Vec<RemindedCoupon>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RemindedCoupon {
    pub coupon_id: Uuid,
    pub template_sn: String,
    /// The template's name when the reminder was sent.
    pub name: String,
    pub face_value: Money,
    pub currency: String,
    pub expires_at: DateTime<Utc>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn days(raw: RawRemindDays) -> RemindDays {
        RemindDays::parse(&raw).unwrap()
    }

    fn utc(s: &str) -> DateTime<Utc> {
        s.parse().unwrap()
    }

    #[test]
    fn a_number_or_a_list_parses_and_writes_back_its_form() {
        assert_eq!(days(RawRemindDays::One(3)).days(), &[3]);
        let many = days(RawRemindDays::Many(vec![1, 7, 3]));
        assert_eq!(many.days(), &[7, 3, 1]);
        assert_eq!(
            serde_json::to_string(&days(RawRemindDays::One(3))).unwrap(),
            "3"
        );
        assert_eq!(serde_json::to_string(&many).unwrap(), "[7,3,1]");
        let back: RemindDays = serde_json::from_str("[7,3,1]").unwrap();
        assert_eq!(back, many);
    }

    #[test]
    fn invalid_offsets_are_refused() {
        let parse = |raw| RemindDays::parse(&raw);
        assert_eq!(
            parse(RawRemindDays::One(366)),
            Err(RemindDaysError::OutOfRange)
        );
        assert_eq!(
            parse(RawRemindDays::One(-1)),
            Err(RemindDaysError::OutOfRange)
        );
        assert_eq!(
            parse(RawRemindDays::Many(vec![3, 3])),
            Err(RemindDaysError::Repeated)
        );
        assert_eq!(
            parse(RawRemindDays::Many(vec![])),
            Err(RemindDaysError::Empty)
        );
        assert!(serde_json::from_str::<RemindDays>("\"3\"").is_err());
    }

    #[test]
    fn reminders_fall_on_expiry_day_minus_offsets_at_notify_time() {
        // Expires 2026-11-20 23:59:59 Shanghai = 15:59:59 UTC.
        let expires = utc("2026-11-20T15:59:59Z");
        let issued = utc("2026-11-01T00:00:00Z");
        let tz = chrono_tz::Asia::Shanghai;
        let got = reminders(
            expires,
            issued,
            &days(RawRemindDays::Many(vec![1, 7])),
            tz,
            NotifyAt::default(),
        );
        let day = |d: &str| d.parse::<NaiveDate>().unwrap();
        assert_eq!(
            got,
            vec![
                Reminder {
                    day: day("2026-11-13"),
                    at: utc("2026-11-13T02:00:00Z")
                },
                Reminder {
                    day: day("2026-11-19"),
                    at: utc("2026-11-19T02:00:00Z")
                },
            ]
        );
    }

    #[test]
    fn only_a_reminder_whose_day_has_passed_at_issue_is_dropped() {
        let tz = chrono_tz::Asia::Shanghai;
        let expires = utc("2026-11-20T15:59:59Z");
        // Issued on the 19th at 11:00 Shanghai: the 7-day reminder's day
        // (the 13th) has passed; the 10:00 reminder of the 19th has passed
        // its hour only, so it stays, due at once.
        let issued = utc("2026-11-19T03:00:00Z");
        let offsets = days(RawRemindDays::Many(vec![0, 1, 7]));
        let got = reminders(expires, issued, &offsets, tz, NotifyAt::default());
        let got_days: Vec<String> = got.iter().map(|r| r.day.to_string()).collect();
        assert_eq!(got_days, ["2026-11-19", "2026-11-20"]);
        assert!(
            got[0].at < issued,
            "the issue day's reminder is already due"
        );
    }

    #[test]
    fn notify_at_parses_hours_and_minutes() {
        assert_eq!(NotifyAt::parse("10:00"), Some(NotifyAt::default()));
        assert!(NotifyAt::parse("25:00").is_none());
        assert!(NotifyAt::parse("ten").is_none());
    }

    #[test]
    fn a_skipped_wall_clock_time_falls_an_hour_later() {
        // 2026-03-08 02:30 does not exist in New York.
        let tz = chrono_tz::America::New_York;
        let at = NotifyAt(NaiveTime::from_hms_opt(2, 30, 0).unwrap());
        let got = instant("2026-03-08".parse().unwrap(), tz, at).unwrap();
        assert_eq!(got, utc("2026-03-08T07:30:00Z"));
    }

    #[test]
    fn leaving_and_returning_are_moves_across_live() {
        use CouponStatus as S;
        assert_eq!(holder_change(S::Unused, S::Locked), HolderChange::Nothing);
        assert_eq!(holder_change(S::Locked, S::Unused), HolderChange::Nothing);
        for dead in [S::Used, S::Expired, S::Void, S::Refunded] {
            assert_eq!(holder_change(S::Unused, dead), HolderChange::Left);
            assert_eq!(holder_change(S::Locked, dead), HolderChange::Left);
            assert_eq!(holder_change(dead, S::Unused), HolderChange::Returned);
        }
    }

    #[test]
    fn statuses_round_trip_their_codes() {
        for s in [
            NotifyStatus::Pending,
            NotifyStatus::Sent,
            NotifyStatus::Failed,
            NotifyStatus::Cancelled,
        ] {
            assert_eq!(NotifyStatus::from_code(s.code()), Some(s));
        }
        assert_eq!(NotifyStatus::from_code(9), None);
    }

    #[test]
    fn notify_types_round_trip_their_codes() {
        for t in NotifyType::ALL {
            assert_eq!(NotifyType::from_code(t.code()), Some(t));
        }
        assert_eq!(NotifyType::from_code(0), None);
    }

    #[test]
    fn the_message_id_depends_on_user_day_and_type_only() {
        let day: NaiveDate = "2026-11-19".parse().unwrap();
        assert_eq!(
            message_id("u1", day, EXPIRY_REMINDER),
            message_id("u1", day, EXPIRY_REMINDER)
        );
        assert_ne!(
            message_id("u1", day, EXPIRY_REMINDER),
            message_id("u2", day, EXPIRY_REMINDER)
        );
    }

    proptest! {
        #[test]
        fn reminders_are_distinct_days_before_expiry_and_after_issue(
            offsets in proptest::collection::btree_set(0i64..=365, 1..10),
            expiry_secs in 1_700_000_000i64..1_900_000_000,
            lead in 0i64..400 * 86_400,
            hour in 0u32..24,
        ) {
            let raw = RawRemindDays::Many(offsets.iter().copied().collect());
            let offsets = RemindDays::parse(&raw).unwrap();
            let expires = DateTime::from_timestamp(expiry_secs, 0).unwrap();
            let issued = expires - chrono::Duration::seconds(lead);
            let tz = chrono_tz::Asia::Shanghai;
            let at = NotifyAt(NaiveTime::from_hms_opt(hour, 0, 0).unwrap());
            let got = reminders(expires, issued, &offsets, tz, at);
            let expiry_day = expires.with_timezone(&tz).date_naive();
            prop_assert!(got.len() <= offsets.days().len());
            for w in got.windows(2) {
                prop_assert!(w[0].day < w[1].day);
            }
            for r in &got {
                prop_assert!(r.day >= issued.with_timezone(&tz).date_naive());
                prop_assert_eq!(r.at.with_timezone(&tz).date_naive(), r.day);
                let before = (expiry_day - r.day).num_days();
                prop_assert!(offsets.days().contains(&u16::try_from(before).unwrap()));
            }
        }
    }
}
