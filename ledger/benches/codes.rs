//! Redemption codes: generation written to a file against a baseline of
//! random strings written the same way, and verification per second on one
//! core (target ≥ 2,000,000 parse + decode a second).
//!
//! `cargo bench -p ledger --bench codes` — prints its figures; no criterion
//! statistics, since the interesting number is a throughput over millions.

use std::fs::File;
use std::hint::black_box;
use std::io::{BufWriter, Write};
use std::path::Path;
use std::time::Instant;

use ledger::codes::alphabet::ALPHABET;
use ledger::codes::{Code, CodeKey};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

const GENERATED: u64 = 2_000_000;
const VERIFIED: usize = 2_000_000;
const ROUNDS: usize = 3;

/// A random 10-character string of the alphabet, from 50 random bits.
fn random_string(rng: &mut StdRng) -> [u8; 10] {
    let bits: u64 = rng.random();
    std::array::from_fn(|i| ALPHABET[((bits >> (5 * i)) & 31) as usize])
}

/// Seconds to write `lines` lines made by `line` to `path`.
fn write_lines(path: &Path, lines: u64, mut line: impl FnMut(u64) -> [u8; 10]) -> f64 {
    let started = Instant::now();
    let mut out = BufWriter::with_capacity(1 << 16, File::create(path).unwrap());
    for i in 0..lines {
        out.write_all(&line(i)).unwrap();
        out.write_all(b"\n").unwrap();
    }
    out.into_inner().unwrap().sync_all().unwrap();
    started.elapsed().as_secs_f64()
}

fn generation(key: &CodeKey) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("codes.txt");
    let first = 1_000_000_000;
    let mut best = (f64::MAX, f64::MAX);
    for _ in 0..ROUNDS {
        let codes = write_lines(&path, GENERATED, |i| *key.encode(first + i).as_bytes());
        let mut rng = StdRng::seed_from_u64(1);
        let random = write_lines(&path, GENERATED, |_| random_string(&mut rng));
        best = (best.0.min(codes), best.1.min(random));
    }
    let (codes, random) = (GENERATED as f64 / best.0, GENERATED as f64 / best.1);
    println!("generation, {GENERATED} lines to a file (best of {ROUNDS}):");
    println!("  codes (encode + write):          {codes:>12.0} /s");
    println!("  baseline (random + write):       {random:>12.0} /s");
    println!(
        "  codes / baseline:                {:>12.3}",
        codes / random
    );
}

/// Best-of-`ROUNDS` rate of `verify` over `inputs`, and how many it accepted.
fn rate<T>(inputs: &[T], verify: impl Fn(&T) -> bool) -> (f64, usize) {
    let mut best = f64::MAX;
    let mut accepted = 0;
    for _ in 0..ROUNDS {
        let started = Instant::now();
        accepted = inputs.iter().filter(|s| verify(black_box(s))).count();
        best = best.min(started.elapsed().as_secs_f64());
    }
    (inputs.len() as f64 / best, accepted)
}

fn verification(key: &CodeKey) {
    let valid: Vec<String> = (0..VERIFIED as u64)
        .map(|s| key.encode(s * 977).to_string())
        .collect();
    let mut rng = StdRng::seed_from_u64(2);
    let random: Vec<String> = (0..VERIFIED)
        .map(|_| String::from_utf8(random_string(&mut rng).to_vec()).unwrap())
        .collect();
    let parsed_valid: Vec<Code> = valid.iter().map(|s| Code::parse(s).unwrap()).collect();
    let verify = |s: &String| Code::parse(s).ok().and_then(|c| key.decode(&c)).is_some();
    let (valid_rate, valid_ok) = rate(&valid, verify);
    let (random_rate, random_ok) = rate(&random, verify);
    let (decode_rate, _) = rate(&parsed_valid, |c| key.decode(c).is_some());
    let (parse_rate, parsed) = rate(&random, |s| Code::parse(s).is_ok());
    println!("verification on one core, {VERIFIED} inputs (best of {ROUNDS}):");
    println!("  valid codes, parse + decode:     {valid_rate:>12.0} /s  ({valid_ok} accepted)");
    println!("  valid codes, decode only:        {decode_rate:>12.0} /s");
    println!("  random strings, parse + decode:  {random_rate:>12.0} /s  ({random_ok} accepted)");
    println!("  random strings, parse only:      {parse_rate:>12.0} /s  ({parsed} pass the check)");
    println!(
        "  target ≥ 2,000,000 /s valid: {}",
        if valid_rate >= 2e6 { "met" } else { "NOT met" }
    );
}

fn main() {
    let key = CodeKey::derive("bench", &[7; 32]);
    generation(&key);
    verification(&key);
}
