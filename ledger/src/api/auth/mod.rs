//! Who may call, and what (docs/design.md §19): the one table of each
//! route's permission ([`route_rules`]), enforced on every route by
//! [`authorize`], which names the caller ([`principal`]) from its bearer
//! token ([`tokens`]: operators, the service token, app keys through
//! [`key_cache`], each key's own rate through [`key_limit`], sign-in tokens through [`oidc`]) and keeps merchants to
//! their shops ([`shop_scope`]). Channel signatures ([`signature`]) are
//! checked by [`signed_channel`] with the channel's opened secret
//! ([`secret_cache`]). The limits on failures: bad signatures
//! ([`auth_limit`]), wrong tokens ([`token_limit`]), unknown codes
//! ([`guess_limit`]), the last two shared across processes through Redis
//! windows ([`shared_windows`]).

pub mod auth_limit;
pub mod authorize;
pub mod guess_limit;
pub mod key_cache;
pub mod key_limit;
pub mod nonce;
pub mod oidc;
pub mod principal;
pub mod route_rules;
pub mod secret_cache;
pub mod shared_windows;
pub mod shop_scope;
pub mod signature;
pub mod signed_channel;
pub mod token_limit;
pub mod tokens;
