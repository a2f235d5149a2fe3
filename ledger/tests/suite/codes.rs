//! Redemption codes through the public API: round trips, no collisions,
//! forgeries refused at the expected rate, typos refused before the key.

use std::collections::HashSet;

use ledger::codes::alphabet::ALPHABET;
use ledger::codes::{CODE_LEN, Code, CodeError, CodeKey, MAX_SERIALS};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

fn key(id: &str, byte: u8) -> CodeKey {
    CodeKey::derive(id, &[byte; 32])
}

/// The codes of `serials`, each checked to decode back to its serial.
fn codes_of(key: &CodeKey, serials: impl Iterator<Item = u64>) -> Vec<[u8; CODE_LEN]> {
    serials
        .map(|serial| {
            let code = key.encode(serial);
            assert_eq!(key.decode(&code), Some(serial), "{code}");
            *code.as_bytes()
        })
        .collect()
}

#[test]
fn a_million_serials_round_trip_to_distinct_codes() {
    let key = key("k1", 1);
    let codes = codes_of(&key, 0..1_000_000);
    assert!(codes.iter().flatten().all(|c| ALPHABET.contains(c)));
    let distinct: HashSet<[u8; CODE_LEN]> = codes.iter().copied().collect();
    assert_eq!(distinct.len(), codes.len());
    let text = std::str::from_utf8(&codes[123_456]).unwrap();
    assert_eq!(Code::parse(text).map(|c| key.decode(&c)), Ok(Some(123_456)));
}

#[test]
fn keys_and_serial_ranges_share_no_code() {
    let (a, b) = (key("a", 1), key("b", 2));
    let n = 100_000;
    let of_a: HashSet<_> = codes_of(&a, 0..n).into_iter().collect();
    let of_b = codes_of(&b, 0..n);
    assert!(
        of_b.iter().all(|c| !of_a.contains(c)),
        "two keys share a code"
    );
    let last_range = codes_of(&a, MAX_SERIALS - n..MAX_SERIALS);
    assert!(
        last_range.iter().all(|c| !of_a.contains(c)),
        "two ranges share a code"
    );
}

/// 10^7 random strings of the alphabet: each passes with probability 2^-19
/// under one key (5 check bits + 14 tag bits), 2^-18 under either of two.
#[test]
fn random_strings_pass_at_the_expected_rate() {
    let (current, old) = (key("current", 3), key("old", 4));
    let mut rng = StdRng::seed_from_u64(2026);
    let tries = 10_000_000u32;
    let (mut checked, mut one_key, mut two_keys) = (0, 0, 0);
    for _ in 0..tries {
        let bits: u64 = rng.random();
        let chars: [u8; CODE_LEN] =
            std::array::from_fn(|i| ALPHABET[(bits >> (5 * i)) as usize & 31]);
        let Ok(code) = Code::parse(std::str::from_utf8(&chars).unwrap()) else {
            continue;
        };
        checked += 1;
        let by_current = current.decode(&code).is_some();
        one_key += u32::from(by_current);
        two_keys += u32::from(by_current || old.decode(&code).is_some());
    }
    let expected = f64::from(tries) / f64::from(1 << 19);
    println!(
        "{tries} random strings: {checked} pass the check character (expected {:.0})",
        f64::from(tries) / 32.0
    );
    println!("accepted under one key: {one_key} (expected {expected:.1})");
    println!(
        "accepted under either of two keys: {two_keys} (expected {:.1})",
        2.0 * expected
    );
    // Twice the two-key expectation: far above it only if the scheme leaks.
    let bound = 4.0 * expected;
    assert!(f64::from(two_keys) <= bound, "{two_keys} > {bound:.0}");
    assert!(one_key <= two_keys);
}

/// Every one-character typo and every adjacent swap of 100,000 genuine
/// codes is refused by `Code::parse` alone, before any key is used.
#[test]
fn every_typo_of_a_genuine_code_is_refused_by_parse() {
    let key = key("k1", 1);
    let (mut typos, mut swaps) = (0u64, 0u64);
    for serial in (0..100_000).map(|i| i * 21_474) {
        let code = *key.encode(serial).as_bytes();
        for at in 0..CODE_LEN {
            for &other in ALPHABET.iter().filter(|&&c| c != code[at]) {
                let mut typo = code;
                typo[at] = other;
                assert_refused(&typo);
                typos += 1;
            }
        }
        for at in (0..CODE_LEN - 1).filter(|&i| code[i] != code[i + 1]) {
            let mut swapped = code;
            swapped.swap(at, at + 1);
            assert_refused(&swapped);
            swaps += 1;
        }
    }
    assert_eq!(typos, 100_000 * 31 * 10);
    println!("refused {typos} substitutions and {swaps} adjacent swaps");
}

fn assert_refused(chars: &[u8; CODE_LEN]) {
    let text = std::str::from_utf8(chars).unwrap();
    assert_eq!(Code::parse(text), Err(CodeError::Check), "{text}");
}
