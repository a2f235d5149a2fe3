//! The check character: the Damm algorithm over the quasigroup
//! `x ∗ y = 2·x ⊕ y` in GF(2^5) (modulus x^5 + x^2 + 1).
//!
//! The quasigroup is totally anti-symmetric: `(c ∗ x) ∗ y = (c ∗ y) ∗ x`
//! gives `3·x = 3·y`, so `x = y`. That is what makes Damm's check catch
//! every single substitution and every adjacent transposition, the check
//! character included, with no key and no probability involved. (The whole
//! check is linear: a word is valid iff Σ 2^(9−i)·dᵢ = 0, and the weights
//! 2^9 … 2^0 are distinct and non-zero because 2 has order 31.)
//!
//! Values are the 5-bit values of [`super::alphabet`], never characters.

/// x^5 + x^2 + 1: primitive, so 2 generates all 31 non-zero elements.
const MODULUS: u8 = 0b10_0101;

/// `TIMES_TWO[x]` = 2·x in GF(2^5): one table read per character.
const TIMES_TWO: [u8; 32] = times_two();

const fn double(x: u8) -> u8 {
    let shifted = x << 1;
    if shifted & 0b10_0000 != 0 {
        shifted ^ MODULUS
    } else {
        shifted
    }
}

const fn times_two() -> [u8; 32] {
    let mut table = [0; 32];
    let mut x = 0;
    while x < 32 {
        table[x] = double(x as u8);
        x += 1;
    }
    table
}

/// The interim digit after `values`, starting from 0.
#[inline]
fn fold(values: &[u8]) -> u8 {
    values.iter().fold(0, |interim, &d| {
        debug_assert!(d < 32, "a check value is 5 bits");
        TIMES_TWO[usize::from(interim & 31)] ^ d
    })
}

/// The check value to append to `payload` so that the whole word folds to 0.
#[inline]
pub fn check_value(payload: &[u8]) -> u8 {
    TIMES_TWO[usize::from(fold(payload) & 31)]
}

/// Whether `word` (payload then check value) carries a valid check.
#[inline]
pub fn is_valid(word: &[u8]) -> bool {
    fold(word) == 0
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use rand::rngs::StdRng;
    use rand::{Rng, SeedableRng};

    fn star(x: u8, y: u8) -> u8 {
        double(x) ^ y
    }

    fn word_of(payload: [u8; 9]) -> [u8; 10] {
        let mut word = [0; 10];
        word[..9].copy_from_slice(&payload);
        word[9] = check_value(&payload);
        word
    }

    #[test]
    fn two_generates_the_whole_multiplicative_group() {
        let mut seen = [false; 32];
        let mut x = 1;
        for _ in 0..31 {
            assert!(!seen[usize::from(x)], "2 has order < 31");
            seen[usize::from(x)] = true;
            x = double(x);
        }
        assert_eq!(x, 1);
    }

    #[test]
    fn the_operation_is_a_totally_anti_symmetric_quasigroup() {
        for x in 0..32 {
            let row: std::collections::HashSet<u8> = (0..32).map(|y| star(x, y)).collect();
            let column: std::collections::HashSet<u8> = (0..32).map(|y| star(y, x)).collect();
            assert_eq!((row.len(), column.len()), (32, 32));
        }
        for c in 0..32 {
            for x in 0..32 {
                for y in 0..32 {
                    if star(star(c, x), y) == star(star(c, y), x) {
                        assert_eq!(x, y, "c={c}");
                    }
                }
            }
        }
    }

    /// A valid word from `payload` with the given values pinned at the
    /// given positions; a pinned check value is reached by changing the
    /// first character (2^9·d₀ takes every value as d₀ does).
    fn valid_word_with(mut payload: [u8; 9], pins: &[(usize, u8)]) -> [u8; 10] {
        let mut check = None;
        for &(at, v) in pins {
            match at {
                9 => check = Some(v),
                _ => payload[at] = v,
            }
        }
        let Some(check) = check else {
            return word_of(payload);
        };
        (0..32)
            .map(|d0| {
                word_of(std::array::from_fn(
                    |i| if i == 0 { d0 } else { payload[i] },
                ))
            })
            .find(|word| word[9] == check)
            .expect("the first character reaches every check value")
    }

    fn samples() -> Vec<[u8; 9]> {
        let mut rng = StdRng::seed_from_u64(13);
        let mut samples = vec![[0u8; 9], [31u8; 9]];
        samples.extend((0..8).map(|_| std::array::from_fn(|_| rng.random_range(0..32u8))));
        samples
    }

    /// At each of the 10 positions, each of the 32 values replaced by each
    /// of the 31 others (10 × 32 × 31 typos per sample).
    #[test]
    fn every_substitution_is_refused() {
        for payload in samples() {
            for at in 0..10 {
                for v in 0..32 {
                    let word = valid_word_with(payload, &[(at, v)]);
                    assert!(is_valid(&word) && word[at] == v);
                    for other in (0..32).filter(|&w| w != v) {
                        let mut typo = word;
                        typo[at] = other;
                        assert!(!is_valid(&typo), "{word:?} at {at} -> {other}");
                    }
                }
            }
        }
    }

    /// At each of the 9 adjacent pairs, the check pair included, every
    /// ordered pair of different values swapped (9 × 32 × 31 per sample).
    #[test]
    fn every_adjacent_swap_is_refused() {
        for payload in samples() {
            for at in 0..9 {
                for v in 0..32 {
                    for w in (0..32).filter(|&w| w != v) {
                        let mut word = valid_word_with(payload, &[(at, v), (at + 1, w)]);
                        assert!(is_valid(&word) && word[at] == v && word[at + 1] == w);
                        word.swap(at, at + 1);
                        assert!(!is_valid(&word), "{payload:?} swap {at}: {v} {w}");
                    }
                }
            }
        }
    }

    proptest! {
        #[test]
        fn a_substitution_is_refused(
            payload in prop::array::uniform9(0u8..32),
            at in 0usize..10,
            delta in 1u8..32,
        ) {
            let mut word = word_of(payload);
            word[at] ^= delta;
            prop_assert!(!is_valid(&word));
        }

        #[test]
        fn an_adjacent_swap_of_different_values_is_refused(
            payload in prop::array::uniform9(0u8..32),
            at in 0usize..9,
        ) {
            let mut word = word_of(payload);
            prop_assume!(word[at] != word[at + 1]);
            word.swap(at, at + 1);
            prop_assert!(!is_valid(&word));
        }
    }
}
