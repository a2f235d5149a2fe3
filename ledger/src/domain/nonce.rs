//! The lifetime of a channel request's nonce (docs/design.md §6): a signed
//! request is accepted within ±[`WINDOW_SECS`] of the server's clock, and
//! its nonce is remembered for [`TTL_SECS`], beyond that window both ways,
//! so a replay is refused for as long as its timestamp could still pass.
//! `api/auth/nonce.rs` spends nonces; the flash gate spends them in its
//! admission script with the same lifetime.

/// How far a request's `X-Timestamp` may be from the server's clock.
pub const WINDOW_SECS: i64 = 300;

/// How long a spent nonce is remembered (Redis keys expire after it).
pub const TTL_SECS: u64 = 2 * WINDOW_SECS as u64;

/// The parts of a nonce's Redis key (under the store's prefix): one key per
/// channel and nonce, shared by the API and the flash gate.
pub fn key_parts<'a>(channel: &'a str, nonce: &'a str) -> [&'a str; 3] {
    ["nonce", channel, nonce]
}
