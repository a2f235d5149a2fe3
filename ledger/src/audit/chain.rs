//! One link of the hash chain, with no I/O: SHA-256 over the previous link
//! and every field of the event that finance relies on. Each field is
//! written with its length (or a fixed width), so no two different events
//! give the same bytes. The payload and metadata are `jsonb`: their bytes
//! are Postgres' own text of them (`payload::text`), which is canonical
//! (keys in one order, one spacing) and needs no parsing to hash.

use chrono::{DateTime, Utc};
use sha2::{Digest, Sha256};
use tokio_postgres::binary_copy::BinaryCopyOutRow;
use tokio_postgres::types::Type;
use uuid::Uuid;

/// An event as the chain sees it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Sealable {
    pub position: i64,
    pub event_id: Uuid,
    pub stream_id: String,
    pub stream_version: i32,
    pub event_type: String,
    pub schema_version: i16,
    /// `payload::text`.
    pub payload: String,
    /// `metadata::text`.
    pub metadata: String,
    pub occurred_at: DateTime<Utc>,
    pub tx_id: i64,
}

/// The columns of `events` that [`Sealable::from_row_at`] reads, in order.
pub const SEALABLE_COLUMNS: [&str; 10] = [
    "position",
    "event_id",
    "stream_id",
    "stream_version",
    "event_type",
    "schema_version",
    "payload::text",
    "metadata::text",
    "occurred_at",
    "tx_id",
];

/// The types of [`SEALABLE_COLUMNS`], for a binary COPY of them.
pub const SEALABLE_TYPES: [Type; 10] = [
    Type::INT8,
    Type::UUID,
    Type::TEXT,
    Type::INT4,
    Type::TEXT,
    Type::INT2,
    Type::TEXT,
    Type::TEXT,
    Type::TIMESTAMPTZ,
    Type::INT8,
];

/// A [`Sealable`] from [`SEALABLE_COLUMNS`] at `$at` of a query or COPY
/// row (two row types with the same `try_get`, and no trait in common).
macro_rules! sealable_at {
    ($row:expr, $at:expr) => {
        Sealable {
            position: $row.try_get($at)?,
            event_id: $row.try_get($at + 1)?,
            stream_id: $row.try_get($at + 2)?,
            stream_version: $row.try_get($at + 3)?,
            event_type: $row.try_get($at + 4)?,
            schema_version: $row.try_get($at + 5)?,
            payload: $row.try_get($at + 6)?,
            metadata: $row.try_get($at + 7)?,
            occurred_at: $row.try_get($at + 8)?,
            tx_id: $row.try_get($at + 9)?,
        }
    };
}

impl Sealable {
    /// The columns, each prefixed with `alias.` (empty: none), for a SELECT.
    pub fn columns(alias: &str) -> String {
        let dot = if alias.is_empty() { "" } else { "." };
        let named: Vec<String> = SEALABLE_COLUMNS
            .iter()
            .map(|c| format!("{alias}{dot}{c}"))
            .collect();
        named.join(", ")
    }

    /// Reads [`SEALABLE_COLUMNS`] starting at column `at`.
    pub fn from_row_at(
        row: &tokio_postgres::Row,
        at: usize,
    ) -> Result<Self, tokio_postgres::Error> {
        Ok(sealable_at!(row, at))
    }

    /// [`Self::from_row_at`] for a binary COPY row ([`SEALABLE_TYPES`]).
    pub fn from_copy_row_at(
        row: &BinaryCopyOutRow,
        at: usize,
    ) -> Result<Self, tokio_postgres::Error> {
        Ok(sealable_at!(row, at))
    }

    /// Where the store's reader stands after this event.
    pub fn cursor(&self) -> crate::store::GlobalCursor {
        crate::store::GlobalCursor {
            tx_id: self.tx_id,
            position: self.position,
        }
    }
}

/// A link of the chain.
pub type Hash = [u8; 32];

/// What the first event links to.
pub const GENESIS: Hash = [0; 32];

/// The link of `event` after `prev`.
pub fn link(prev: &Hash, event: &Sealable) -> Hash {
    let mut h = Sha256::new();
    h.update(prev);
    h.update(event.position.to_be_bytes());
    h.update(event.event_id.as_bytes());
    field(&mut h, event.stream_id.as_bytes());
    h.update(event.stream_version.to_be_bytes());
    field(&mut h, event.event_type.as_bytes());
    h.update(event.schema_version.to_be_bytes());
    field(&mut h, event.payload.as_bytes());
    field(&mut h, event.metadata.as_bytes());
    h.update(event.occurred_at.timestamp_micros().to_be_bytes());
    h.finalize().into()
}

fn field(h: &mut Sha256, bytes: &[u8]) {
    h.update((bytes.len() as u64).to_be_bytes());
    h.update(bytes);
}

/// A link as stored (`bytea`); a column of the wrong length (only an
/// attacker writes one: the tables check it) gives a link no event matches.
pub fn from_bytes(bytes: Vec<u8>) -> Hash {
    bytes.try_into().unwrap_or([0xff; 32])
}

/// A link as finance writes it down: lowercase hex.
pub fn to_hex(hash: &Hash) -> String {
    hex::encode(hash)
}

/// A link written down by finance; `None` unless 64 hex digits.
pub fn parse_hex(text: &str) -> Option<Hash> {
    hex::decode(text.trim()).ok()?.try_into().ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::TimeZone;

    fn event() -> Sealable {
        let at = Utc.with_ymd_and_hms(2026, 11, 23, 8, 0, 0).unwrap();
        Sealable {
            position: 7,
            event_id: uuid::Uuid::nil(),
            stream_id: "coupon-1".into(),
            stream_version: 1,
            event_type: crate::domain::EventType::CouponIssued.as_str().into(),
            schema_version: 1,
            payload: r#"{"user_id": "u1", "face_value": "20.00"}"#.into(),
            metadata: r#"{"actor": "test"}"#.into(),
            occurred_at: at,
            tx_id: 1,
        }
    }

    #[test]
    fn every_field_and_the_previous_link_change_the_link() {
        let base = link(&GENESIS, &event());
        assert_eq!(base, link(&GENESIS, &event()), "deterministic");
        let mut changed = vec![link(&[1; 32], &event())];
        let edits: [fn(&mut Sealable); 9] = [
            |e| e.position += 1,
            |e| e.event_id = uuid::Uuid::max(),
            |e| e.stream_id.push('0'),
            |e| e.stream_version += 1,
            |e| e.event_type.push('X'),
            |e| e.schema_version += 1,
            |e| e.payload = e.payload.replace("20.00", "2000.00"),
            |e| e.metadata = e.metadata.replace("test", "tset"),
            |e| e.occurred_at += chrono::Duration::microseconds(1),
        ];
        for edit in edits {
            let mut e = event();
            edit(&mut e);
            changed.push(link(&GENESIS, &e));
        }
        assert!(changed.iter().all(|h| *h != base));
    }

    #[test]
    fn the_stream_and_type_cannot_trade_bytes() {
        let mut a = event();
        let mut b = event();
        a.stream_id = "ab".into();
        a.event_type = "c".into();
        b.stream_id = "a".into();
        b.event_type = "bc".into();
        assert_ne!(link(&GENESIS, &a), link(&GENESIS, &b));
    }

    #[test]
    fn hex_round_trips_and_refuses_the_wrong_length() {
        let h = link(&GENESIS, &event());
        assert_eq!(parse_hex(&to_hex(&h)), Some(h));
        assert_eq!(parse_hex("abcd"), None);
        assert_eq!(parse_hex("zz"), None);
    }
}
