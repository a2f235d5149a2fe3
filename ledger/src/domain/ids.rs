//! Identifiers, parsed once at the edge.

use std::fmt;

use rand::Rng;
use serde::{Deserialize, Serialize};
use uuid::Uuid;

use crate::domain::stream::StreamKind;

/// Unambiguous alphabet for template serial numbers: no 0/O, 1/I/L.
const SN_ALPHABET: &[u8] = b"23456789ABCDEFGHJKMNPQRSTUVWXYZ";
pub const SN_LEN: usize = 20;

/// A template's public serial number: random, never sequential (DESIGN §6).
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(transparent)]
pub struct TemplateSn(String);

impl TemplateSn {
    /// A fresh random sn (~99 bits).
    pub fn generate() -> Self {
        let mut rng = rand::rng();
        let sn = (0..SN_LEN)
            .map(|_| SN_ALPHABET[rng.random_range(0..SN_ALPHABET.len())] as char)
            .collect();
        Self(sn)
    }

    /// Accepts what `generate` makes (16 or more characters of the alphabet).
    pub fn parse(s: &str) -> Option<Self> {
        let ok = (16..=64).contains(&s.len()) && s.bytes().all(|b| SN_ALPHABET.contains(&b));
        ok.then(|| Self(s.to_owned()))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }

    pub fn stream_id(&self) -> String {
        StreamKind::Template.id(&self.0)
    }
}

impl fmt::Display for TemplateSn {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// A user id as the caller's systems know it.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(transparent)]
pub struct UserId(String);

pub const MAX_USER_ID_LEN: usize = 64;

impl UserId {
    /// 1 to 64 visible ASCII characters.
    pub fn parse(s: &str) -> Result<Self, String> {
        if s.is_empty() || s.len() > MAX_USER_ID_LEN || !s.bytes().all(|b| b.is_ascii_graphic()) {
            return Err(format!(
                "user_id must be 1 to {MAX_USER_ID_LEN} visible ASCII characters"
            ));
        }
        Ok(Self(s.to_owned()))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for UserId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// A coupon's id: a UUIDv7, so ids sort by issue time.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(transparent)]
pub struct CouponId(pub Uuid);

impl CouponId {
    pub fn generate() -> Self {
        Self(Uuid::now_v7())
    }

    pub fn stream_id(&self) -> String {
        StreamKind::Coupon.id(self.0)
    }
}

impl fmt::Display for CouponId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}

/// A distribution channel (发放渠道).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(transparent)]
pub struct ChannelId(pub Uuid);

impl ChannelId {
    pub fn stream_id(&self) -> String {
        StreamKind::Channel.id(self.0)
    }
}

impl fmt::Display for ChannelId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn generated_sns_parse_and_differ() {
        let a = TemplateSn::generate();
        assert_eq!(a.as_str().len(), SN_LEN);
        assert_eq!(TemplateSn::parse(a.as_str()), Some(a.clone()));
        assert_ne!(a, TemplateSn::generate());
    }

    #[test]
    fn ambiguous_or_short_sns_are_refused() {
        for s in ["", "ABC", "0OIL1234567890ABCDEF", "abcdefghjkmnpqrstuvw"] {
            assert_eq!(TemplateSn::parse(s), None, "{s}");
        }
    }

    #[test]
    fn user_ids_are_bounded_and_visible() {
        assert!(UserId::parse("u-1").is_ok());
        for s in ["", " ", "a b", &"u".repeat(65)] {
            assert!(UserId::parse(s).is_err(), "{s:?}");
        }
    }
}
