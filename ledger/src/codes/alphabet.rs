//! The 32 characters of a code and their 5-bit values.
//!
//! No `I`, `O`, `0` or `1`: they are the characters people misread on paper.
//! Both directions are const tables, since parsing sits on the redemption
//! hot path.

/// The characters in value order: `ALPHABET[v]` is the character of value `v`.
pub const ALPHABET: &[u8; 32] = b"ABCDEFGHJKLMNPQRSTUVWXYZ23456789";

/// Marks a byte outside the alphabet in [`VALUES`].
const NONE: u8 = 0xFF;

/// `VALUES[byte]` is the value of an upper-case alphabet character, or [`NONE`].
const VALUES: [u8; 256] = values();

const fn values() -> [u8; 256] {
    let mut table = [NONE; 256];
    let mut v = 0;
    while v < ALPHABET.len() {
        table[ALPHABET[v] as usize] = v as u8;
        v += 1;
    }
    table
}

/// The 5-bit value of an upper-case alphabet character.
#[inline]
pub fn value_of(c: u8) -> Option<u8> {
    match VALUES[usize::from(c)] {
        NONE => None,
        v => Some(v),
    }
}

/// The character of a 5-bit value (only the low 5 bits are read).
#[inline]
pub fn char_of(v: u8) -> u8 {
    ALPHABET[usize::from(v & 31)]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn both_ways_agree_on_every_byte() {
        for v in 0..32u8 {
            assert_eq!(value_of(char_of(v)), Some(v));
        }
        let accepted = (0..=255u8).filter(|&c| value_of(c).is_some()).count();
        assert_eq!(accepted, 32);
    }

    #[test]
    fn leaves_out_the_lookalikes_and_lower_case() {
        for c in *b"IO01abcxyz -" {
            assert_eq!(value_of(c), None, "{}", c as char);
        }
    }
}
