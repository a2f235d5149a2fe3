//! AES-256 (encryption only) whose clones share one key schedule, interned
//! for the life of the process.
//!
//! The `fpe` crate's FF1 clones its block cipher for the PRF and again for
//! each of the 10 rounds: 11 clones a code. `aes::Aes256Enc` is 960 bytes
//! (its software fallback's schedule shares the space), so copying it was
//! 40% of a decryption (670 ns). Behind an `Arc` a clone was a reference
//! count, but its atomic increment and decrement were still three quarters
//! of FF1's own time (a profile put most of `FF1::decrypt`'s samples on its
//! `lock inc` / `lock dec`). Here a clone copies a `&'static`: each key's
//! schedule is expanded once, the first time the key is seen, and kept in
//! a process-wide registry keyed by the key.
//!
//! Bounded: a process derives one FF1 key per configured secret key (the
//! current one and an old one), so it interns a handful. Past
//! [`MAX_INTERNED`] keys a schedule is shared behind an `Arc` instead
//! (correct, slower), so nothing grows the registry without end. The
//! cipher is still the `aes` crate's: this type only forwards to it.

use std::collections::HashMap;
use std::sync::{Arc, LazyLock, Mutex};

use aes::Aes256Enc;
use aes::cipher::consts::{U16, U32};
use aes::cipher::{
    BlockCipher, BlockClosure, BlockEncrypt, BlockSizeUser, Key, KeyInit, KeySizeUser,
};

/// Schedules kept for the process, at most: 960 bytes each.
pub(crate) const MAX_INTERNED: usize = 64;

static INTERNED: LazyLock<Registry> = LazyLock::new(|| Registry::new(MAX_INTERNED));

#[derive(Clone)]
pub(crate) struct SharedAes256(Schedule);

#[derive(Clone)]
enum Schedule {
    Interned(&'static Aes256Enc),
    /// Past the registry's bound.
    Counted(Arc<Aes256Enc>),
}

/// The interned schedules, by key.
struct Registry {
    max: usize,
    schedules: Mutex<HashMap<Key<Aes256Enc>, &'static Aes256Enc>>,
}

impl Registry {
    fn new(max: usize) -> Self {
        Self {
            max,
            schedules: Mutex::new(HashMap::new()),
        }
    }

    /// The schedule of `key`, expanded and leaked on its first call; None
    /// once `max` keys are interned and `key` is not one of them.
    fn get(&self, key: &Key<Aes256Enc>) -> Option<&'static Aes256Enc> {
        // A map left by a panicking holder is still a valid map.
        let mut schedules = self.schedules.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(schedule) = schedules.get(key) {
            return Some(schedule);
        }
        if schedules.len() >= self.max {
            return None;
        }
        let schedule: &'static Aes256Enc = Box::leak(Box::new(Aes256Enc::new(key)));
        schedules.insert(*key, schedule);
        Some(schedule)
    }
}

impl SharedAes256 {
    fn from_registry(registry: &Registry, key: &Key<Self>) -> Self {
        SharedAes256(match registry.get(key) {
            Some(schedule) => Schedule::Interned(schedule),
            None => Schedule::Counted(Arc::new(Aes256Enc::new(key))),
        })
    }
}

impl BlockSizeUser for SharedAes256 {
    type BlockSize = U16;
}

impl BlockCipher for SharedAes256 {}

impl KeySizeUser for SharedAes256 {
    type KeySize = U32;
}

impl KeyInit for SharedAes256 {
    fn new(key: &Key<Self>) -> Self {
        Self::from_registry(&INTERNED, key)
    }
}

impl BlockEncrypt for SharedAes256 {
    #[inline]
    fn encrypt_with_backend(&self, f: impl BlockClosure<BlockSize = U16>) {
        match &self.0 {
            Schedule::Interned(schedule) => schedule.encrypt_with_backend(f),
            Schedule::Counted(schedule) => schedule.encrypt_with_backend(f),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use aes::cipher::generic_array::GenericArray;

    /// FIPS-197 appendix C.3: the AES-256 example vector.
    fn fips_197(cipher: &SharedAes256) {
        let mut block = GenericArray::from(std::array::from_fn(|i| (i as u8) * 0x11));
        cipher.encrypt_block(&mut block);
        let expected = [
            0x8e, 0xa2, 0xb7, 0xca, 0x51, 0x67, 0x45, 0xbf, 0xea, 0xfc, 0x49, 0x90, 0x4b, 0x49,
            0x60, 0x89,
        ];
        assert_eq!(block.as_slice(), expected);
    }

    fn fips_key() -> Key<Aes256Enc> {
        let key: [u8; 32] = std::array::from_fn(|i| i as u8);
        key.into()
    }

    #[test]
    fn encrypts_as_aes_256() {
        fips_197(&SharedAes256::new(&fips_key()));
    }

    #[test]
    fn a_key_is_expanded_once_and_its_clones_share_it() {
        let registry = Registry::new(2);
        let a = SharedAes256::from_registry(&registry, &fips_key());
        let again = SharedAes256::from_registry(&registry, &fips_key());
        let (Schedule::Interned(a), Schedule::Interned(again), Schedule::Interned(clone)) =
            (&a.0, &again.0, &a.clone().0)
        else {
            panic!("interned below the bound");
        };
        assert!(std::ptr::eq(*a, *again) && std::ptr::eq(*a, *clone));
    }

    #[test]
    fn past_the_bound_a_schedule_is_counted_and_still_aes() {
        let registry = Registry::new(1);
        let first = SharedAes256::from_registry(&registry, &[9; 32].into());
        let past = SharedAes256::from_registry(&registry, &fips_key());
        assert!(matches!(first.0, Schedule::Interned(_)));
        assert!(matches!(past.0, Schedule::Counted(_)));
        assert_eq!(registry.schedules.lock().unwrap().len(), 1);
        fips_197(&past);
        let interned = SharedAes256::from_registry(&registry, &[9; 32].into());
        assert!(
            matches!(interned.0, Schedule::Interned(_)),
            "known keys still are"
        );
    }
}
