//! How a wallet is ordered and where its next page starts (docs/design.md
//! §20, "Wallets"): a sort key, a direction, and a cursor naming the last
//! coupon a page showed. A cursor is tied to its sort (its first letter),
//! so one made for another sort is refused rather than read as a
//! different key.

use chrono::{DateTime, Utc};
use rust_decimal::Decimal;
use uuid::Uuid;

use crate::domain::names::name_list;

name_list! {
    /// What a wallet is sorted by; ties are broken by the coupon's id, so
    /// the order is total and pages neither skip nor repeat a coupon.
    #[derive(serde::Deserialize, utoipa::ToSchema)]
    #[serde(rename_all = "snake_case")]
    pub enum WalletSort {
        IssuedAt,
        ExpiresAt,
        FaceValue,
    }
}

name_list! {
    /// Ascending or descending.
    #[derive(serde::Deserialize, utoipa::ToSchema)]
    #[serde(rename_all = "snake_case")]
    pub enum SortOrder {
        Asc,
        Desc,
    }
}

impl WalletSort {
    /// The cursor's first letter, one per sort.
    const fn tag(self) -> char {
        match self {
            Self::IssuedAt => 'i',
            Self::ExpiresAt => 'e',
            Self::FaceValue => 'f',
        }
    }
}

/// The value a coupon is sorted by.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SortKey {
    At(DateTime<Utc>),
    Money(Decimal),
}

/// The last coupon of a page, as the next page's request names it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WalletCursor {
    pub key: SortKey,
    pub id: Uuid,
}

/// Longest cursor read: a tag, a key and a uuid fit well within it.
const MAX_CURSOR: usize = 100;

impl WalletCursor {
    /// The cursor's text: `<tag><key>_<id>`, with instants as microseconds
    /// since the epoch (URL-safe, no escaping needed).
    pub fn encode(&self, sort: WalletSort) -> String {
        let key = match self.key {
            SortKey::At(at) => at.timestamp_micros().to_string(),
            SortKey::Money(m) => m.normalize().to_string(),
        };
        format!("{}{key}_{}", sort.tag(), self.id)
    }

    /// The cursor `text` as `sort` reads it; else why not.
    pub fn parse(text: &str, sort: WalletSort) -> Result<Self, String> {
        let refuse = || format!("after: not a cursor of sort {sort} (take `next_after` as given)");
        if text.len() > MAX_CURSOR {
            return Err(refuse());
        }
        let rest = text.strip_prefix(sort.tag()).ok_or_else(refuse)?;
        let (key, id) = rest.split_once('_').ok_or_else(refuse)?;
        let id = Uuid::parse_str(id).map_err(|_| refuse())?;
        let key = match sort {
            WalletSort::IssuedAt | WalletSort::ExpiresAt => key
                .parse::<i64>()
                .ok()
                .and_then(DateTime::from_timestamp_micros)
                .map(SortKey::At),
            WalletSort::FaceValue => key.parse::<Decimal>().ok().map(SortKey::Money),
        };
        Ok(Self {
            key: key.ok_or_else(refuse)?,
            id,
        })
    }
}

/// Most days ahead a wallet may ask about; a year covers every reminder.
pub const MAX_EXPIRING_WITHIN_DAYS: i64 = 366;
/// What `/balance` counts as expiring soon when not asked.
pub const DEFAULT_EXPIRING_WITHIN_DAYS: i64 = 3;

/// An `expiring_within_days` in the OpenAPI document: what [`within_days`] takes.
pub fn within_days_schema() -> utoipa::openapi::Object {
    utoipa::openapi::ObjectBuilder::new()
        .schema_type(utoipa::openapi::Type::Integer)
        .format(Some(utoipa::openapi::SchemaFormat::KnownFormat(
            utoipa::openapi::KnownFormat::Int64,
        )))
        .minimum(Some(1))
        .maximum(Some(MAX_EXPIRING_WITHIN_DAYS))
        .build()
}

/// `days` as an `expiring_within_days`, or the message refusing it.
pub fn within_days(days: i64) -> Result<i64, String> {
    if (1..=MAX_EXPIRING_WITHIN_DAYS).contains(&days) {
        Ok(days)
    } else {
        Err(format!(
            "expiring_within_days: must be 1 to {MAX_EXPIRING_WITHIN_DAYS}"
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::TimeZone;

    #[test]
    fn a_cursor_reads_back_under_its_own_sort_only() {
        let at = Utc.with_ymd_and_hms(2026, 11, 29, 8, 30, 1).unwrap();
        let id = Uuid::from_u128(7);
        let c = WalletCursor {
            key: SortKey::At(at),
            id,
        };
        let text = c.encode(WalletSort::ExpiresAt);
        assert_eq!(WalletCursor::parse(&text, WalletSort::ExpiresAt), Ok(c));
        assert!(WalletCursor::parse(&text, WalletSort::IssuedAt).is_err());
        assert!(WalletCursor::parse(&text, WalletSort::FaceValue).is_err());
        let money = WalletCursor {
            key: SortKey::Money(Decimal::new(2050, 2)),
            id,
        };
        let text = money.encode(WalletSort::FaceValue);
        assert_eq!(WalletCursor::parse(&text, WalletSort::FaceValue), Ok(money));
    }

    #[test]
    fn garbage_is_refused_naming_the_field() {
        for bad in [
            "",
            "e",
            "e12",
            "e12_x",
            "fabc_00000000-0000-0000-0000-000000000000",
        ] {
            let err = WalletCursor::parse(bad, WalletSort::ExpiresAt)
                .or_else(|_| WalletCursor::parse(bad, WalletSort::FaceValue));
            assert!(err.unwrap_err().starts_with("after:"), "{bad}");
        }
        assert!(within_days(0).is_err() && within_days(367).is_err());
        assert_eq!(within_days(7), Ok(7));
    }
}
