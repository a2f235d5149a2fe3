//! Bearer-token auth for the admin and service roles (docs/design.md §7). The
//! admin role has named operators; the [`Admin`] extractor yields the one
//! whose token came (§7 "Operators"). A wrong token is counted against the
//! client's address (`token_limit`); the right one is compared first and
//! passes without waiting on anything.

use std::net::{IpAddr, SocketAddr};
use std::time::Instant;

use axum::extract::{ConnectInfo, FromRequestParts};
use axum::http::header::AUTHORIZATION;
use axum::http::request::Parts;
use sha2::{Digest, Sha256};
use subtle::{Choice, ConditionallySelectable, ConstantTimeEq};

use crate::api::AppState;
use crate::api::auth::token_limit::WrongToken;
use crate::api::http::error::ApiError;
use crate::config::operators::Operator;

/// The caller is an operator (templates, channels, issuance jobs): the
/// operator's name, recorded in the metadata of the events it causes.
pub struct Admin {
    operator: String,
}

impl Admin {
    /// The operator's name (`admin` for `LEDGER_ADMIN_TOKEN`).
    pub fn operator(&self) -> &str {
        &self.operator
    }
}

/// The caller is a trusted internal service (orders, user queries).
pub struct Service;

/// The caller reads what a service may read, as a service or as an operator
/// (the console's coupon lookup).
pub struct Reader;

impl FromRequestParts<AppState> for Admin {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> Result<Self, ApiError> {
        let tokens = &state.tokens;
        let operator = check(parts, state, |given| tokens.operator(given)).await?;
        Ok(Admin {
            operator: operator.to_owned(),
        })
    }
}

impl FromRequestParts<AppState> for Service {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> Result<Self, ApiError> {
        service(parts, state).await.map(|()| Service)
    }
}

impl FromRequestParts<AppState> for Reader {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> Result<Self, ApiError> {
        let tokens = &state.tokens;
        check(parts, state, |given| {
            // Both compared whatever the first says: timing tells neither.
            let service = tokens.service[..].ct_eq(&given[..]);
            let admin = tokens.operator(given).is_some();
            (bool::from(service) | admin).then_some(())
        })
        .await
        .map(|()| Reader)
    }
}

/// The service token's check, for a route that takes it or another
/// credential (a channel's signature).
pub(crate) async fn service(parts: &Parts, state: &AppState) -> Result<(), ApiError> {
    let tokens = &state.tokens;
    check(parts, state, |given| {
        bool::from(tokens.service[..].ct_eq(&given[..])).then_some(())
    })
    .await
}

/// SHA-256 of a token: what is compared, so every comparison is of 32
/// bytes and timing reveals no token's length either.
type TokenDigest = [u8; 32];

fn digest(token: &str) -> TokenDigest {
    Sha256::digest(token.as_bytes()).into()
}

/// The accepted tokens, kept as digests. `Debug` shows the operators'
/// names only.
#[derive(Clone)]
pub struct Tokens {
    operators: Vec<(String, TokenDigest)>,
    service: TokenDigest,
}

impl Tokens {
    /// `operators` non-empty (`serve` makes sure), names and tokens unique
    /// (`operators::parse` makes sure).
    pub fn new(operators: &[Operator], service: &str) -> Self {
        Self {
            operators: operators
                .iter()
                .map(|o| (o.name.clone(), digest(&o.token)))
                .collect(),
            service: digest(service),
        }
    }

    /// The operator whose token `given` is. Every operator's digest is
    /// compared, without a branch on any outcome, so timing reveals neither
    /// a prefix nor which operator (if any) matched (docs/design.md §7).
    fn operator(&self, given: &TokenDigest) -> Option<&str> {
        let mut found = Choice::from(0);
        let mut index = 0u32;
        for (i, (_, token)) in self.operators.iter().enumerate() {
            let same = token[..].ct_eq(&given[..]);
            let i = u32::try_from(i).expect("at most 100 operators");
            index.conditional_assign(&i, same);
            found |= same;
        }
        let index = usize::try_from(index).expect("u32 fits usize");
        bool::from(found).then(|| self.operators[index].0.as_str())
    }
}

impl std::fmt::Debug for Tokens {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let names: Vec<&str> = self.operators.iter().map(|(n, _)| n.as_str()).collect();
        f.debug_struct("Tokens")
            .field("operators", &names)
            .finish_non_exhaustive()
    }
}

/// What `matched` makes of the request's bearer token (its digest). A
/// missing one is 401 (not counted: nothing was tried); a wrong one 403, or
/// 429 once its address sent too many: the same answers whichever
/// operators exist, so an answer reveals no name.
async fn check<T>(
    parts: &Parts,
    state: &AppState,
    matched: impl FnOnce(&TokenDigest) -> Option<T>,
) -> Result<T, ApiError> {
    let given = parts
        .headers
        .get(AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(bearer)
        .ok_or_else(|| ApiError::Unauthorized("missing bearer token".into()))?;
    if let Some(right) = matched(&digest(given)) {
        return Ok(right);
    }
    let metrics = &state.metrics.tokens;
    match state
        .token_limit
        .wrong_token(peer(parts), Instant::now())
        .await
    {
        WrongToken::Counted => {
            metrics.forbidden();
            Err(ApiError::Forbidden("this token may not do that".into()))
        }
        WrongToken::Limited(limited) => {
            metrics.limited();
            Err(limited.into())
        }
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
        assert_eq!(t.operator(&digest("t-admin")), Some("admin"));
        assert_eq!(t.operator(&digest("t-alice")), Some("alice"));
        assert_eq!(t.operator(&digest("t-bob")), Some("bob"));
        for wrong in ["t-service", "t-bo", "t-bobb", "", "T-BOB"] {
            assert_eq!(t.operator(&digest(wrong)), None, "{wrong}");
        }
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
