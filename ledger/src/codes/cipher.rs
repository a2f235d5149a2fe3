//! The key of a batch of codes: serial ↔ code, and the authenticity check.
//!
//! Encode: `serial (31 bits) ‖ tag (14 bits)` is enciphered by FF1 over 9
//! radix-32 numerals, and the check character is appended. Decode: the 9
//! characters are deciphered and the tag recomputed; a code is genuine iff
//! the tags match. FF1 is a permutation, so no two serials share a code.

use std::fmt;

use fpe::ff1::FF1;
use hmac::{Hmac, Mac};
use sha2::Sha256;
use subtle::ConstantTimeEq;

use super::numerals::Radix32;
use super::shared_aes::SharedAes256;
use super::{CIPHER_LEN, Code, MAX_SERIALS, TAG_BITS};

/// FF1's tweak: separates these codes' permutation from any other use of the
/// key. At most 11 bytes so that FF1's PRF input, tweak included, fits one
/// block before the rounds (a longer one costs an AES call per code).
const TWEAK: &[u8] = b"cl codes v1";

/// Labels of the two keys derived from the batch key.
const FF1_KEY_LABEL: &[u8] = b"couponledger codes ff1 v1";
const TAG_KEY_LABEL: &[u8] = b"couponledger codes tag v1";

/// What the tag's HMAC reads before the serial.
const TAG_LABEL: &[u8] = b"couponledger code tag v1";

type HmacSha256 = Hmac<Sha256>;

/// One key of codes: its id (recorded by the batches it made) and the
/// two keys derived from it, expanded once.
pub struct CodeKey {
    id: String,
    ff1: FF1<SharedAes256>,
    /// Keyed with the tag key, `TAG_LABEL` already absorbed: each tag
    /// clones it and adds the serial.
    tag: HmacSha256,
}

impl CodeKey {
    /// The key `key_id` from 32 secret bytes: AES-256 key
    /// HMAC-SHA256(key_bytes, "couponledger codes ff1 v1"), tag key
    /// HMAC-SHA256(key_bytes, "couponledger codes tag v1").
    pub fn derive(key_id: &str, key_bytes: &[u8; 32]) -> CodeKey {
        let ff1_key = hmac(key_bytes, FF1_KEY_LABEL);
        let ff1 = FF1::<SharedAes256>::new(&ff1_key, 32).expect("32 is a valid FF1 radix");
        let mut tag = HmacSha256::new_from_slice(&hmac(key_bytes, TAG_KEY_LABEL))
            .expect("HMAC takes a key of any length");
        tag.update(TAG_LABEL);
        CodeKey {
            id: key_id.to_owned(),
            ff1,
            tag,
        }
    }

    /// The key's id, as batches record it.
    pub fn id(&self) -> &str {
        &self.id
    }

    /// The code of `serial`. Panics if `serial >= MAX_SERIALS`: the caller
    /// hands out serials below it, and a larger one has no code.
    pub fn encode(&self, serial: u64) -> Code {
        // Not only a debug check: above 2^50 the shift would drop bits and
        // hand out another serial's code.
        assert!(serial < MAX_SERIALS, "serial {serial} ≥ {MAX_SERIALS}");
        let plain = Radix32::new((serial << TAG_BITS) | self.tag_of(serial), CIPHER_LEN);
        let enciphered = self.ff1.encrypt(TWEAK, &plain).expect("serial < 2^31");
        Code::from_enciphered(enciphered.value())
    }

    /// The serial of `code` if this key made it; `None` for a code of
    /// another key or a forgery.
    pub fn decode(&self, code: &Code) -> Option<u64> {
        let enciphered = Radix32::new(code.enciphered(), CIPHER_LEN);
        let plain = self
            .ff1
            .decrypt(TWEAK, &enciphered)
            .expect("9 radix-32 numerals");
        let serial = plain.value() >> TAG_BITS;
        let tag = plain.value() & ((1 << TAG_BITS) - 1);
        // Constant time, so timing says nothing about how close a guess was.
        let genuine: bool = self.tag_of(serial).ct_eq(&tag).into();
        genuine.then_some(serial)
    }

    /// The first 14 bits of HMAC-SHA256(tag key, TAG_LABEL ‖ serial as 8 BE bytes).
    fn tag_of(&self, serial: u64) -> u64 {
        let mut mac = self.tag.clone();
        mac.update(&serial.to_be_bytes());
        let digest = mac.finalize().into_bytes();
        u64::from(u16::from_be_bytes([digest[0], digest[1]]) >> (16 - TAG_BITS))
    }
}

/// HMAC-SHA256(key, message), for the key derivation.
fn hmac(key: &[u8], message: &[u8]) -> [u8; 32] {
    let mut mac = HmacSha256::new_from_slice(key).expect("HMAC takes a key of any length");
    mac.update(message);
    mac.finalize().into_bytes().into()
}

/// Only the id: the key material never reaches a log.
impl fmt::Debug for CodeKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("CodeKey")
            .field("id", &self.id)
            .finish_non_exhaustive()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(id: &str, byte: u8) -> CodeKey {
        CodeKey::derive(id, &[byte; 32])
    }

    #[test]
    fn debug_shows_only_the_id() {
        let shown = format!("{:?}", key("k-2026", 7));
        assert_eq!(shown, r#"CodeKey { id: "k-2026", .. }"#);
    }

    #[test]
    fn round_trips_the_edges_of_the_serial_range() {
        let key = key("k", 1);
        for serial in [0, 1, 2, MAX_SERIALS / 2, MAX_SERIALS - 2, MAX_SERIALS - 1] {
            let code = key.encode(serial);
            assert_eq!(key.decode(&code), Some(serial), "{code}");
            assert_eq!(Code::parse(code.as_str()), Ok(code));
        }
    }

    #[test]
    fn another_key_does_not_decode_the_code() {
        let (a, b) = (key("a", 1), key("b", 2));
        let refused = (0..1_000)
            .filter(|&s| b.decode(&a.encode(s)).is_none())
            .count();
        // Each passes by chance with probability 2^-14.
        assert!(refused >= 998, "{refused}");
    }

    #[test]
    fn the_key_id_does_not_change_the_codes() {
        // Rotation changes the bytes; the id only names them.
        assert_eq!(key("a", 1).encode(42), key("b", 1).encode(42));
        assert_eq!(key("a", 1).id(), "a");
    }

    #[test]
    fn a_deciphered_code_with_a_wrong_tag_is_refused() {
        let key = key("k", 3);
        let plain = Radix32::new((5 << TAG_BITS) | (key.tag_of(5) ^ 1), CIPHER_LEN);
        let forged = Code::from_enciphered(key.ff1.encrypt(TWEAK, &plain).unwrap().value());
        assert_eq!(key.decode(&forged), None);
    }

    /// Pins the scheme: a change to FF1, the tweak, the labels or the
    /// layout would make every printed code invalid. These three were also
    /// computed by a separate reading of the spec (Python: FF1 from SP 800-38G
    /// over `cryptography`'s AES, checked on NIST's FF1 sample 9, and the
    /// HMACs and check character as written in `docs/redemption-codes.md`).
    #[test]
    fn known_codes() {
        let key = key("k", 0);
        let codes: Vec<String> = [0, 1, MAX_SERIALS - 1]
            .iter()
            .map(|&s| key.encode(s).to_string())
            .collect();
        assert_eq!(codes, ["S6NTU8LLDD", "9MP9RQ942X", "GN4HRECAN6"]);
    }
}
