//! Bearer tokens (docs/design.md §7, §19): who a request's token names,
//! as a [`Principal`]. Tried in order: the named operators and the service
//! token (compared in constant time, each digest whatever the others say),
//! then app keys (`key_cache`), then, for a token shaped like a JWT, the
//! identity provider (`oidc`). A wrong token is counted against the
//! client's address (`token_limit`); the right one passes without waiting
//! on anything.

use std::net::{IpAddr, SocketAddr};
use std::time::Instant;

use axum::extract::ConnectInfo;
use axum::http::header::AUTHORIZATION;
use axum::http::request::Parts;
use subtle::{Choice, ConditionallySelectable, ConstantTimeEq};

use crate::api::AppState;
use crate::api::auth::key_cache::KeyState;
use crate::api::auth::oidc::{self, OidcError, SignedIn};
use crate::api::auth::principal::{Principal, SERVICE_KEY};
use crate::api::auth::token_limit::WrongToken;
use crate::api::http::error::ApiError;
use crate::commands::api_keys::{KEY_PREFIX, digest};
use crate::config::operators::Operator;
use crate::domain::events::KeyRef;
use crate::domain::ids::ShopId;
use crate::domain::key_scope::KeyScope;
use crate::domain::role::Role;
use strum::VariantArray;

/// Who the request's bearer token names; 401 without one (not counted:
/// nothing was tried), 401 `key_revoked` for a revoked key, 401 for a JWT
/// the identity provider did not sign as asked, 403 for any other token
/// (or 429 once its address sent too many): the same answers whichever
/// operators exist, so an answer reveals no name.
pub async fn authenticate(parts: &Parts, state: &AppState) -> Result<Principal, ApiError> {
    let given = parts
        .headers
        .get(AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(bearer)
        .ok_or_else(|| ApiError::Unauthorized("missing bearer token".into()))?;
    let digest = digest(given);
    if let Some(known) = state.tokens.principal(&digest) {
        return Ok(known);
    }
    // Only a key's shape is looked up: a sign-in JWT or a wrong token costs
    // no read of Postgres.
    let app_key = given.starts_with(KEY_PREFIX);
    let found = match app_key {
        true => state.keys.find(&state.pool, &digest, state.now()).await?,
        false => KeyState::Unknown,
    };
    match found {
        KeyState::Live(found) => {
            let key = KeyRef {
                id: found.id.to_string(),
                name: found.name,
            };
            let (scopes, rate_limit) = (found.scopes, found.rate_limit);
            return Ok(Principal::App {
                key,
                scopes,
                rate_limit,
            });
        }
        KeyState::Revoked => return Err(ApiError::KeyRevoked),
        KeyState::Unknown => {}
    }
    match &state.oidc {
        Some(provider) if !app_key && oidc::looks_like_jwt(given) => {
            match provider.verify(given).await {
                Ok(signed_in) => signed_in_operator(signed_in),
                Err(OidcError::Unavailable(why)) => Err(ApiError::Unavailable(why)),
                Err(OidcError::Invalid(why)) => {
                    wrong(parts, state).await?;
                    Err(ApiError::Unauthorized(format!(
                        "the sign-in token is not accepted: {why}"
                    )))
                }
            }
        }
        _ => {
            wrong(parts, state).await?;
            Err(ApiError::Forbidden("this token may not do that".into()))
        }
    }
}

/// Counts a wrong token against the peer; Err once the peer is limited.
async fn wrong(parts: &Parts, state: &AppState) -> Result<(), ApiError> {
    let metrics = &state.metrics.tokens;
    match state
        .token_limit
        .wrong_token(peer(parts), Instant::now())
        .await
    {
        WrongToken::Counted => {
            metrics.forbidden();
            Ok(())
        }
        WrongToken::Limited(limited) => {
            metrics.limited();
            Err(limited.into())
        }
    }
}

/// The operator a signed-in token names. Its role claim may list roles an
/// identity provider gives for other systems: those are passed over, and
/// of the ledger's roles the first in [`Role`]'s order (the widest) is
/// taken. No ledger role, or a merchant of no valid shop, is 403.
fn signed_in_operator(signed_in: SignedIn) -> Result<Principal, ApiError> {
    let role = Role::VARIANTS
        .iter()
        .copied()
        .find(|r| signed_in.roles.iter().any(|given| given == r.into_str()));
    let Some(role) = role else {
        let known = crate::domain::names::alternatives::<Role>();
        let message = format!("the sign-in token names no ledger role ({known})");
        return Err(ApiError::Forbidden(message));
    };
    let shops: Vec<ShopId> = match role.is_shop_scoped() {
        true => signed_in
            .shops
            .iter()
            .filter_map(|s| ShopId::parse(s).ok())
            .take(crate::config::operators::MAX_SHOPS)
            .collect(),
        false => Vec::new(),
    };
    if role.is_shop_scoped() && shops.is_empty() {
        return Err(ApiError::Forbidden(
            "a merchant's sign-in token names no shop".into(),
        ));
    }
    Ok(Principal::Operator {
        name: signed_in.name,
        role,
        shops,
    })
}

/// SHA-256 of a token: what is compared, so every comparison is of 32
/// bytes and timing reveals no token's length either.
type TokenDigest = [u8; 32];

/// The accepted tokens, kept as digests. `Debug` shows the operators'
/// names only.
#[derive(Clone)]
pub struct Tokens {
    operators: Vec<(Principal, TokenDigest)>,
    service: TokenDigest,
}

impl Tokens {
    /// `operators` non-empty (`serve` makes sure), names and tokens unique
    /// (`operators::parse` makes sure).
    pub fn new(operators: &[Operator], service: &str) -> Self {
        Self {
            operators: operators
                .iter()
                .map(|o| (operator(o), digest(&o.token)))
                .collect(),
            service: digest(service),
        }
    }

    /// The operator or the service whose token `given` is.
    fn principal(&self, given: &TokenDigest) -> Option<Principal> {
        let service = bool::from(self.service[..].ct_eq(&given[..]));
        let operator = self.operator(given).cloned();
        // Both compared whatever either says: timing tells neither.
        match (operator, service) {
            (Some(operator), _) => Some(operator),
            (None, true) => Some(Principal::App {
                key: KeyRef {
                    id: SERVICE_KEY.into(),
                    name: SERVICE_KEY.into(),
                },
                scopes: KeyScope::VARIANTS.to_vec(),
                rate_limit: None,
            }),
            (None, false) => None,
        }
    }

    /// The operator whose token `given` is. Every operator's digest is
    /// compared, without a branch on any outcome, so timing reveals neither
    /// a prefix nor which operator (if any) matched (docs/design.md §7).
    fn operator(&self, given: &TokenDigest) -> Option<&Principal> {
        let mut found = Choice::from(0);
        let mut index = 0u32;
        for (i, (_, token)) in self.operators.iter().enumerate() {
            let same = token[..].ct_eq(&given[..]);
            let i = u32::try_from(i).expect("at most 100 operators");
            index.conditional_assign(&i, same);
            found |= same;
        }
        let index = usize::try_from(index).expect("u32 fits usize");
        bool::from(found).then(|| &self.operators[index].0)
    }
}

fn operator(o: &Operator) -> Principal {
    Principal::Operator {
        name: o.name.clone(),
        role: o.role,
        shops: o.shops.clone(),
    }
}

impl std::fmt::Debug for Tokens {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let names: Vec<&str> = self.operators.iter().map(|(p, _)| p.name()).collect();
        f.debug_struct("Tokens")
            .field("operators", &names)
            .finish_non_exhaustive()
    }
}

/// The token of an `Authorization: Bearer <token>` value. The scheme is
/// case-insensitive and may be followed by more than one space (RFC 7235
/// §2.1; RFC 6750 §2.1).
pub(crate) fn bearer(value: &str) -> Option<&str> {
    let (scheme, token) = value.split_once(' ')?;
    let token = token.trim_start_matches(' ');
    (scheme.eq_ignore_ascii_case("bearer") && !token.is_empty()).then_some(token)
}

/// The connection's peer address (set by `server::serve`).
fn peer(parts: &Parts) -> Option<IpAddr> {
    let peer = parts.extensions.get::<ConnectInfo<SocketAddr>>();
    peer.map(|p| p.0.ip())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tokens() -> Tokens {
        let ops = crate::config::operators::parse(Some("alice:t-alice,bob:t-bob"), Some("t-admin"));
        Tokens::new(&ops.unwrap(), "t-service")
    }

    #[test]
    fn tokens_name_their_operator_and_nothing_else_matches() {
        let t = tokens();
        let name = |token: &str| t.operator(&digest(token)).map(|p| p.name().to_owned());
        assert_eq!(name("t-admin").as_deref(), Some("admin"));
        assert_eq!(name("t-alice").as_deref(), Some("alice"));
        assert_eq!(name("t-bob").as_deref(), Some("bob"));
        for wrong in ["t-service", "t-bo", "t-bobb", "", "T-BOB"] {
            assert_eq!(name(wrong), None, "{wrong}");
        }
        let service = t.principal(&digest("t-service")).unwrap();
        assert_eq!((service.name(), service.actor()), ("service", "service"));
    }

    #[test]
    fn the_bearer_scheme_is_case_insensitive() {
        for value in ["Bearer t", "bearer t", "BEARER t", "bEaReR  t"] {
            assert_eq!(bearer(value), Some("t"), "{value:?}");
        }
        for value in ["Bearer", "Bearer ", "Basic t", "Bearert", "Token t"] {
            assert_eq!(bearer(value), None, "{value:?}");
        }
    }

    #[test]
    fn debug_shows_names_and_no_token() {
        let shown = format!("{:?}", tokens());
        assert!(shown.contains("alice") && shown.contains("bob"), "{shown}");
        assert!(!shown.contains("t-"), "{shown}");
    }
}
