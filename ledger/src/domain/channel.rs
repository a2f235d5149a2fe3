//! A channel's lifecycle (docs/design.md §15): its status, and how long the
//! secret a rotation replaced keeps verifying signatures.

use chrono::{DateTime, Duration, Utc};
use serde::{Deserialize, Serialize};

use crate::domain::names::name_list;

name_list! {
    /// `active` (its signed requests are served) or `disabled` (they are
    /// refused, 403 `channel_disabled`), back and forth.
    #[derive(Serialize, Deserialize, schemars::JsonSchema, utoipa::ToSchema)]
    #[serde(rename_all = "snake_case")]
    #[schemars(inline, transform = crate::domain::names::plain_schema)]
    pub enum ChannelStatus {
        Active,
        Disabled,
    }
}

impl ChannelStatus {
    pub fn parse(s: &str) -> Option<Self> {
        s.parse().ok()
    }

    pub const fn as_str(self) -> &'static str {
        self.into_str()
    }
}

/// The overlap a rotation gives when the request names none: a day, time
/// for the channel to deploy its new secret.
pub const DEFAULT_OVERLAP_SECS: i64 = 86_400;
/// The longest overlap: 30 days. A leaked secret should not outlive that.
pub const MAX_OVERLAP_SECS: i64 = 30 * 86_400;

/// The overlap asked for (`overlap_secs`), checked: 0 to 30 days; else the
/// message naming the field.
pub fn overlap(secs: Option<i64>) -> Result<Duration, String> {
    let secs = secs.unwrap_or(DEFAULT_OVERLAP_SECS);
    if !(0..=MAX_OVERLAP_SECS).contains(&secs) {
        return Err(format!(
            "overlap_secs: must be 0 to {MAX_OVERLAP_SECS} seconds (30 days)"
        ));
    }
    Ok(Duration::seconds(secs))
}

/// Whether the previous secret, valid until `valid_until`, still verifies
/// at `now` (the end is exclusive: at `rotated_at + overlap` it no longer does).
pub fn previous_verifies(valid_until: Option<DateTime<Utc>>, now: DateTime<Utc>) -> bool {
    valid_until.is_some_and(|until| now < until)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_overlap_defaults_to_a_day_and_is_bounded_by_30_days() {
        assert_eq!(overlap(None), Ok(Duration::days(1)));
        assert_eq!(overlap(Some(0)), Ok(Duration::zero()));
        assert_eq!(overlap(Some(MAX_OVERLAP_SECS)), Ok(Duration::days(30)));
        for bad in [-1, MAX_OVERLAP_SECS + 1, i64::MAX] {
            assert!(overlap(Some(bad)).unwrap_err().starts_with("overlap_secs:"));
        }
    }

    #[test]
    fn the_previous_secret_verifies_only_before_its_end() {
        let now = Utc::now();
        assert!(previous_verifies(Some(now + Duration::seconds(1)), now));
        assert!(!previous_verifies(Some(now), now));
        assert!(!previous_verifies(None, now));
    }
}
