//! Redemption codes (docs/design.md §13): printed codes that prove themselves, so a
//! forged or mistyped code is refused before any database read.
//!
//! A code is 10 characters of [`alphabet::ALPHABET`], 32 characters of 5 bits
//! each: 32^10 = 2^50 strings.
//!
//! ```text
//!  chars 1–9: 45 bits = FF1_key( serial: 31 bits ‖ tag: 14 bits )   radix 32, 9 numerals
//!  char  10 :  5 bits = Damm check over chars 1–9 in GF(2^5)
//! ```
//!
//! - [`cipher`]: [`CodeKey`] — FF1 (NIST SP 800-38G, AES-256) is a keyed
//!   permutation of the 2^45 numeral strings, so each serial of a key has
//!   exactly one code and back; the tag is the first 14 bits of
//!   HMAC-SHA256(tag key, label ‖ serial), checked on decode.
//! - [`check`]: the Damm check character, which catches every single
//!   substitution and every adjacent transposition without any key.
//! - [`alphabet`]: character ↔ 5-bit value, as tables.
//! - [`code`]: [`Code`], parsed from what people type ([`CodeError`]).
//! - [`passphrase`]: a code chosen by hand (口令), matched as people type it.
//! - `numerals`: FF1's numeral strings as a packed `u64` (radix 32 is a
//!   power of two), for speed; FF1 itself is the `fpe` crate's.
//! - `shared_aes`: the `aes` crate's AES-256 with one key schedule shared
//!   by the clones FF1 makes of it, for speed.
//!
//! Redundancy: 5 check bits + 14 tag bits = 19, so a random string passes
//! with probability 2^-19 under one key (2^-18 while two keys are tried
//! during a rotation). A key has 2^31 = 2,147,483,648 serials
//! ([`MAX_SERIALS`]); batches are contiguous serial ranges, so nothing is
//! stored per code. `docs/redemption-codes.md` has the reasoning.

pub mod alphabet;
pub(crate) mod check;
pub(crate) mod cipher;
pub(crate) mod code;
pub(crate) mod listing;
mod numerals;
pub mod passphrase;
mod shared_aes;

pub use cipher::CodeKey;
pub use code::{Code, CodeError};
pub use listing::lines;

/// Characters in a code: 9 cipher characters and 1 check character.
pub const CODE_LEN: usize = 10;

/// Bits of the serial inside the enciphered part (45 = 31 serial + 14 tag).
pub const SERIAL_BITS: u32 = 31;

/// Serials a key can encode: `0..MAX_SERIALS`.
pub const MAX_SERIALS: u64 = 1 << SERIAL_BITS;

/// Bits of the tag inside the enciphered part.
pub const TAG_BITS: u32 = 14;

/// Characters enciphered by FF1 (the check character follows them).
pub const CIPHER_LEN: usize = CODE_LEN - 1;

const _: () = assert!(SERIAL_BITS + TAG_BITS == 5 * CIPHER_LEN as u32);
