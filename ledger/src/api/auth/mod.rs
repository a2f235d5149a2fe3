//! Who may call: bearer tokens ([`tokens`]), channel signatures
//! ([`signature`]) checked with the channel's opened secret
//! ([`secret_cache`]), and the limits on failures: bad signatures
//! ([`auth_limit`]), wrong tokens ([`token_limit`]), unknown codes
//! ([`guess_limit`]), the last two shared across processes through Redis
//! windows ([`shared_windows`]).

pub mod auth_limit;
pub mod guess_limit;
pub mod nonce;
pub mod secret_cache;
pub mod shared_windows;
pub mod signature;
pub mod signed_channel;
pub mod token_limit;
pub mod tokens;
