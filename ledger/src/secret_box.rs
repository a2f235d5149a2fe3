//! Channel secrets at rest: ChaCha20-Poly1305 under a named key, bound to the
//! channel id, so a database dump alone reveals no secret and a sealed row
//! copied onto another channel does not open.
//!
//! Keys come from `LEDGER_SECRET_KEY=<key_id>:<64 hex chars>` (seals and
//! opens) and `LEDGER_SECRET_KEYS_OLD=<key_id>:<hex>,…` (open only), so a key
//! can rotate: the new key seals, the old one still opens until `serve` has
//! re-sealed every row under the new key at start.

use chacha20poly1305::aead::{Aead, KeyInit, Payload};
use chacha20poly1305::{ChaCha20Poly1305, Key, Nonce};
use rand::RngCore;
use uuid::Uuid;

pub const NONCE_LEN: usize = 12;
const KEY_HEX_LEN: usize = 64;
const MAX_KEY_ID_LEN: usize = 32;
const MAX_OLD_KEYS: usize = 8;
/// Key id of the fixed `serve --dev` key: a database sealed with it refuses
/// to open under a real key, which is the point.
pub const DEV_KEY_ID: &str = "dev";
const DEV_KEY_HEX: &str = "6465762d6f6e6c792d6b65792d6e6f742d666f722d70726f64756374696f6e21";

#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum KeyError {
    #[error("expected <key_id>:<64 hex chars>")]
    Format,
    #[error("key id must be 1 to 32 characters of A-Z a-z 0-9 _ -")]
    KeyId,
    #[error("key must be 64 hex characters (32 bytes)")]
    KeyHex,
    #[error("at most 8 old keys")]
    TooMany,
    #[error("key id {0:?} appears twice")]
    Duplicate(String),
}

#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum OpenError {
    #[error("no configured key has id {0:?}")]
    UnknownKey(String),
    #[error("sealed with key id {0:?} but it does not open (wrong key, or the row was altered)")]
    Tampered(String),
}

/// A secret as stored: the key id, the nonce, and ciphertext with its tag.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Sealed {
    pub key_id: String,
    pub nonce: Vec<u8>,
    pub ciphertext: Vec<u8>,
}

impl Sealed {
    /// The sealed secret a row holds in columns `at..at + 3` (key id,
    /// nonce, ciphertext), if set: how every sealed column triple is stored.
    pub fn from_row(r: &tokio_postgres::Row, at: usize) -> Option<Self> {
        Some(Self {
            key_id: r.get::<_, Option<String>>(at)?,
            nonce: r.get::<_, Option<Vec<u8>>>(at + 1)?,
            ciphertext: r.get::<_, Option<Vec<u8>>>(at + 2)?,
        })
    }
}

/// One named key (no `Debug`: the key bytes never reach a log).
#[derive(Clone)]
struct NamedKey {
    id: String,
    cipher: ChaCha20Poly1305,
    /// The redemption codes' key, derived from the same bytes (docs/design.md §13).
    code: std::sync::Arc<crate::codes::CodeKey>,
}

/// The current key (seals, opens) and older keys (open only).
#[derive(Clone)]
pub struct Keyring {
    current: NamedKey,
    old: Vec<NamedKey>,
}

impl std::fmt::Debug for Keyring {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let old: Vec<&str> = self.old.iter().map(|k| k.id.as_str()).collect();
        f.debug_struct("Keyring")
            .field("current", &self.current.id)
            .field("old", &old)
            .finish()
    }
}

impl Keyring {
    /// Parses `LEDGER_SECRET_KEY` and the optional comma list of old keys.
    pub fn parse(current: &str, old: Option<&str>) -> Result<Self, KeyError> {
        let current = parse_key(current)?;
        let old = match old.map(str::trim).filter(|s| !s.is_empty()) {
            None => Vec::new(),
            Some(list) => list.split(',').map(parse_key).collect::<Result<_, _>>()?,
        };
        if old.len() > MAX_OLD_KEYS {
            return Err(KeyError::TooMany);
        }
        let ring = Self { current, old };
        let mut ids: Vec<&str> = ring.keys().map(|k| k.id.as_str()).collect();
        ids.sort_unstable();
        if let Some(w) = ids.windows(2).find(|w| w[0] == w[1]) {
            return Err(KeyError::Duplicate(w[0].to_owned()));
        }
        Ok(ring)
    }

    /// The fixed key of `serve --dev`.
    pub fn dev() -> Self {
        Self::parse(&format!("{DEV_KEY_ID}:{DEV_KEY_HEX}"), None).expect("the dev key parses")
    }

    pub fn current_id(&self) -> &str {
        &self.current.id
    }

    /// Seals `secret` for `channel_id` under the current key, with a fresh nonce.
    pub fn seal(&self, channel_id: Uuid, secret: &str) -> Sealed {
        let mut nonce = [0u8; NONCE_LEN];
        rand::rng().fill_bytes(&mut nonce);
        let payload = Payload {
            msg: secret.as_bytes(),
            aad: channel_id.as_bytes(),
        };
        let ciphertext = self
            .current
            .cipher
            .encrypt(Nonce::from_slice(&nonce), payload)
            .expect("ChaCha20-Poly1305 seals any secret shorter than 256 GiB");
        Sealed {
            key_id: self.current.id.clone(),
            nonce: nonce.to_vec(),
            ciphertext,
        }
    }

    /// Opens a secret sealed for `channel_id` under any configured key.
    pub fn open(&self, channel_id: Uuid, sealed: &Sealed) -> Result<String, OpenError> {
        let key = self
            .keys()
            .find(|k| k.id == sealed.key_id)
            .ok_or_else(|| OpenError::UnknownKey(sealed.key_id.clone()))?;
        let tampered = || OpenError::Tampered(sealed.key_id.clone());
        if sealed.nonce.len() != NONCE_LEN {
            return Err(tampered());
        }
        let payload = Payload {
            msg: &sealed.ciphertext,
            aad: channel_id.as_bytes(),
        };
        let plain = key
            .cipher
            .decrypt(Nonce::from_slice(&sealed.nonce), payload)
            .map_err(|_| tampered())?;
        String::from_utf8(plain).map_err(|_| tampered())
    }

    fn keys(&self) -> impl Iterator<Item = &NamedKey> {
        std::iter::once(&self.current).chain(&self.old)
    }

    /// The key new code batches are made under.
    pub fn code_key(&self) -> &crate::codes::CodeKey {
        &self.current.code
    }

    /// Every key a code may have been made under, the current one first.
    pub fn code_keys(&self) -> impl Iterator<Item = &crate::codes::CodeKey> {
        self.keys().map(|k| k.code.as_ref())
    }

    /// The codes' key of a batch made under `key_id`, if it is configured.
    pub fn code_key_by_id(&self, key_id: &str) -> Option<std::sync::Arc<crate::codes::CodeKey>> {
        self.keys().find(|k| k.id == key_id).map(|k| k.code.clone())
    }
}

fn parse_key(value: &str) -> Result<NamedKey, KeyError> {
    let (id, hex_key) = value.trim().split_once(':').ok_or(KeyError::Format)?;
    let id_ok = !id.is_empty()
        && id.len() <= MAX_KEY_ID_LEN
        && id
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-');
    if !id_ok {
        return Err(KeyError::KeyId);
    }
    if hex_key.len() != KEY_HEX_LEN {
        return Err(KeyError::KeyHex);
    }
    let bytes: [u8; 32] = hex::decode(hex_key)
        .ok()
        .and_then(|b| b.try_into().ok())
        .ok_or(KeyError::KeyHex)?;
    Ok(NamedKey {
        id: id.to_owned(),
        cipher: ChaCha20Poly1305::new(Key::from_slice(&bytes)),
        code: std::sync::Arc::new(crate::codes::CodeKey::derive(id, &bytes)),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const K1: &str = "k1:000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f";
    const K2: &str = "k2:ffeeddccbbaa99887766554433221100ffeeddccbbaa99887766554433221100";

    #[test]
    fn a_sealed_secret_opens_for_its_channel_and_hides_the_plaintext() {
        let ring = Keyring::parse(K1, None).unwrap();
        let channel = Uuid::new_v4();
        let sealed = ring.seal(channel, "s3cret-value");
        assert_eq!(sealed.key_id, "k1");
        let shown = format!("{sealed:?}{}", hex::encode(&sealed.ciphertext));
        assert!(!shown.contains("s3cret-value"));
        assert_eq!(ring.open(channel, &sealed).unwrap(), "s3cret-value");
        // A fresh nonce each time: the same secret seals differently.
        assert_ne!(ring.seal(channel, "s3cret-value"), sealed);
    }

    #[test]
    fn an_old_key_still_opens_after_rotation_and_the_new_key_seals() {
        let channel = Uuid::new_v4();
        let sealed_by_k1 = Keyring::parse(K1, None).unwrap().seal(channel, "abc");
        let rotated = Keyring::parse(K2, Some(K1)).unwrap();
        assert_eq!(rotated.open(channel, &sealed_by_k1).unwrap(), "abc");
        assert_eq!(rotated.seal(channel, "abc").key_id, "k2");
        let without_k1 = Keyring::parse(K2, None).unwrap();
        assert_eq!(
            without_k1.open(channel, &sealed_by_k1),
            Err(OpenError::UnknownKey("k1".into()))
        );
    }

    #[test]
    fn tampering_or_another_channel_or_a_wrong_key_is_detected() {
        let ring = Keyring::parse(K1, None).unwrap();
        let channel = Uuid::new_v4();
        let sealed = ring.seal(channel, "abc");
        let tampered = Err(OpenError::Tampered("k1".into()));
        assert_eq!(ring.open(Uuid::new_v4(), &sealed), tampered);
        let mut flipped = sealed.clone();
        flipped.ciphertext[0] ^= 1;
        assert_eq!(ring.open(channel, &flipped), tampered);
        let mut short_nonce = sealed.clone();
        short_nonce.nonce.pop();
        assert_eq!(ring.open(channel, &short_nonce), tampered);
        let same_id_other_bytes = Keyring::parse(&K2.replace("k2", "k1"), None).unwrap();
        assert_eq!(same_id_other_bytes.open(channel, &sealed), tampered);
    }

    #[test]
    fn malformed_keys_are_refused_with_the_reason() {
        let hex64 = &K1[3..];
        for (value, err) in [
            ("", KeyError::Format),
            (hex64, KeyError::Format),
            (&format!(":{hex64}")[..], KeyError::KeyId),
            (&format!("a b:{hex64}")[..], KeyError::KeyId),
            ("k:abcd", KeyError::KeyHex),
            (&format!("k:{}", "zz".repeat(32))[..], KeyError::KeyHex),
        ] {
            assert_eq!(Keyring::parse(value, None).unwrap_err(), err, "{value}");
        }
        assert_eq!(
            Keyring::parse(K1, Some(K1)).unwrap_err(),
            KeyError::Duplicate("k1".into())
        );
        assert_eq!(
            Keyring::parse(K1, Some("k2:00")).unwrap_err(),
            KeyError::KeyHex
        );
    }

    #[test]
    fn debug_shows_key_ids_only() {
        let ring = Keyring::parse(K2, Some(K1)).unwrap();
        let shown = format!("{ring:?}");
        assert!(shown.contains("k2") && shown.contains("k1"), "{shown}");
        assert!(!shown.contains(&K1[3..13]) && !shown.contains(&K2[3..13]));
        assert_eq!(Keyring::dev().current_id(), DEV_KEY_ID);
    }
}
