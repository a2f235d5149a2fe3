//! One link of the hash chain, with no I/O: SHA-256 over the previous link
//! and every field of the event that finance relies on. Each field is
//! written with its length (or a fixed width), so no two different events
//! give the same bytes. The payload and metadata are `jsonb`: their bytes
//! are the JSON that Postgres hands back, which it always writes in the
//! same key order, serialized by serde_json.

use sha2::{Digest, Sha256};

use crate::store::RecordedEvent;

/// A link of the chain.
pub type Hash = [u8; 32];

/// What the first event links to.
pub const GENESIS: Hash = [0; 32];

/// The link of `event` after `prev`.
pub fn link(prev: &Hash, event: &RecordedEvent) -> Hash {
    let mut h = Sha256::new();
    h.update(prev);
    h.update(event.position.to_be_bytes());
    h.update(event.event_id.as_bytes());
    field(&mut h, event.stream_id.as_bytes());
    h.update(event.stream_version.to_be_bytes());
    field(&mut h, event.event_type.as_bytes());
    h.update(event.schema_version.to_be_bytes());
    field(&mut h, &json_bytes(&event.payload));
    field(&mut h, &json_bytes(&event.metadata));
    h.update(event.occurred_at.timestamp_micros().to_be_bytes());
    h.finalize().into()
}

fn field(h: &mut Sha256, bytes: &[u8]) {
    h.update((bytes.len() as u64).to_be_bytes());
    h.update(bytes);
}

fn json_bytes(value: &serde_json::Value) -> Vec<u8> {
    serde_json::to_vec(value).expect("a JSON value serializes")
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
    use chrono::{TimeZone, Utc};
    use serde_json::json;

    fn event() -> RecordedEvent {
        let at = Utc.with_ymd_and_hms(2026, 11, 23, 8, 0, 0).unwrap();
        RecordedEvent {
            position: 7,
            event_id: uuid::Uuid::nil(),
            stream_id: "coupon-1".into(),
            stream_version: 1,
            event_type: "CouponIssued".into(),
            schema_version: 1,
            payload: json!({"user_id": "u1", "face_value": "20.00"}),
            metadata: json!({"actor": "test"}),
            occurred_at: at,
            recorded_at: at,
            tx_id: 1,
        }
    }

    #[test]
    fn every_field_and_the_previous_link_change_the_link() {
        let base = link(&GENESIS, &event());
        assert_eq!(base, link(&GENESIS, &event()), "deterministic");
        let mut changed = vec![link(&[1; 32], &event())];
        let edits: [fn(&mut RecordedEvent); 8] = [
            |e| e.position += 1,
            |e| e.event_id = uuid::Uuid::max(),
            |e| e.stream_id.push('0'),
            |e| e.stream_version += 1,
            |e| e.event_type.push('X'),
            |e| e.schema_version += 1,
            |e| e.payload["face_value"] = json!("2000.00"),
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
