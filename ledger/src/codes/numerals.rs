//! A radix-32 numeral string packed in a `u64`, for the `fpe` crate's FF1.
//!
//! FF1 itself (the Feistel rounds, the AES-CBC-MAC PRF) is the crate's; it
//! leaves the arithmetic on numeral strings to its `NumeralString` and
//! `Operations` traits. The crate's own `FlexibleNumeralString` does it with
//! big integers and a heap allocation per step, several times slower than
//! needed for 9 numerals. Radix 32 is a power of two, so NUM₃₂(X) is just
//! the packed bits and `mod 32^m` is a mask: all of it fits in a `u64`.

use fpe::ff1::{NumeralString, Operations};

/// The only radix these strings serve.
const RADIX: u32 = 32;

/// Bits per numeral.
const BITS: u32 = 5;

/// The longest string that fits, with room for the sums: 12 × 5 = 60 bits.
const MAX_LEN: usize = 12;

/// Numerals most significant first: `value` is NUM₃₂ of the string.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Radix32 {
    value: u64,
    len: usize,
}

impl Radix32 {
    /// The `len`-numeral string of `value` (valid when `value < 32^len`).
    pub(crate) fn new(value: u64, len: usize) -> Radix32 {
        Radix32 { value, len }
    }

    /// NUM₃₂ of the string.
    pub(crate) fn value(self) -> u64 {
        self.value
    }
}

/// `2^(5·len) − 1`: the mask of `len` numerals.
fn mask(len: usize) -> u64 {
    debug_assert!(len <= MAX_LEN);
    (1u64 << (BITS as usize * len)) - 1
}

/// The low 64 bits of the big-endian integer `bytes`: enough, since only
/// its value mod 32^m ≤ 2^60 is ever used.
fn low_bits(bytes: impl Iterator<Item = u8>) -> u64 {
    bytes.fold(0, |acc, byte| (acc << 8) | u64::from(byte))
}

impl NumeralString for Radix32 {
    type Ops = Radix32;

    fn is_valid(&self, radix: u32) -> bool {
        radix == RADIX && self.len <= MAX_LEN && self.value <= mask(self.len)
    }

    fn numeral_count(&self) -> usize {
        self.len
    }

    fn split(&self) -> (Radix32, Radix32) {
        let u = self.len / 2;
        let v = self.len - u;
        let a = self.value >> (BITS as usize * v);
        (Radix32::new(a, u), Radix32::new(self.value & mask(v), v))
    }

    fn concat(a: Radix32, b: Radix32) -> Radix32 {
        let value = (a.value << (BITS as usize * b.len)) | b.value;
        Radix32::new(value, a.len + b.len)
    }
}

/// `STR^b_256(NUM(X))`: the last `b` of the 8 big-endian bytes.
pub(crate) struct BeBytes {
    bytes: [u8; 8],
    b: usize,
}

impl AsRef<[u8]> for BeBytes {
    fn as_ref(&self) -> &[u8] {
        &self.bytes[8 - self.b..]
    }
}

impl Operations for Radix32 {
    type Bytes = BeBytes;

    fn numeral_count(&self) -> usize {
        self.len
    }

    fn to_be_bytes(&self, radix: u32, b: usize) -> BeBytes {
        debug_assert_eq!(radix, RADIX);
        // FF1 asks for b = ⌈5v/8⌉ ≤ 4 bytes here (v ≤ 6).
        assert!(b <= 8, "{b} bytes asked of a u64");
        BeBytes {
            bytes: self.value.to_be_bytes(),
            b,
        }
    }

    fn add_mod_exp(self, other: impl Iterator<Item = u8>, radix: u32, m: usize) -> Radix32 {
        debug_assert_eq!(radix, RADIX);
        let sum = self.value.wrapping_add(low_bits(other));
        Radix32::new(sum & mask(m), m)
    }

    fn sub_mod_exp(self, other: impl Iterator<Item = u8>, radix: u32, m: usize) -> Radix32 {
        debug_assert_eq!(radix, RADIX);
        let difference = self.value.wrapping_sub(low_bits(other));
        Radix32::new(difference & mask(m), m)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::codes::shared_aes::SharedAes256;
    use aes::Aes256Enc;
    use fpe::ff1::{FF1, FlexibleNumeralString};
    use proptest::prelude::*;

    fn digits(x: Radix32) -> Vec<u16> {
        (0..x.len)
            .rev()
            .map(|i| ((x.value >> (BITS as usize * i)) & 31) as u16)
            .collect()
    }

    proptest! {
        /// The crate's FF1 on its big-integer numeral string and plain AES
        /// gives the same ciphertext as on this one and the shared AES, for
        /// every length this type serves.
        #[test]
        fn agrees_with_the_crates_big_integer_numerals(
            key in prop::array::uniform32(any::<u8>()),
            tweak in prop::collection::vec(any::<u8>(), 0..40),
            len in 4usize..=MAX_LEN,
            seed in any::<u64>(),
        ) {
            let reference = FF1::<Aes256Enc>::new(&key, RADIX).unwrap();
            let fast = FF1::<SharedAes256>::new(&key, RADIX).unwrap();
            let x = Radix32::new(seed & mask(len), len);
            let flexible = FlexibleNumeralString::from(digits(x));
            let ours = fast.encrypt(&tweak, &x).unwrap();
            let theirs: Vec<u16> = reference.encrypt(&tweak, &flexible).unwrap().into();
            prop_assert_eq!(digits(ours), theirs);
            prop_assert_eq!(fast.decrypt(&tweak, &ours).unwrap(), x);
        }
    }

    #[test]
    fn refuses_other_radixes_and_oversized_values() {
        assert!(Radix32::new(mask(9), 9).is_valid(32));
        assert!(!Radix32::new(mask(9) + 1, 9).is_valid(32));
        assert!(!Radix32::new(0, 9).is_valid(36));
        assert!(!Radix32::new(0, 13).is_valid(32));
    }
}
