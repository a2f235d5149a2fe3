//! Operators' single sign-on (docs/design.md §19): an operator's bearer token
//! may be a JWT that the identity provider (OIDC) signed. [`Oidc::verify`]
//! checks it against the keys the provider publishes (its JWKS) and says
//! whom it names ([`SignedIn`]): a name, roles and shops, from claims.
//!
//! Only RS256 and ES256 are accepted, with the key the header's `kid` names
//! and of the algorithm's type; `exp` (required), `nbf`, `iss` and `aud` are
//! checked with 60 s of leeway. The keys are kept in memory: a token naming
//! an unknown `kid` fetches them again at most once a minute, one fetch at a
//! time, so made-up `kid`s cannot make the ledger hammer the provider
//! ([`jwks_cache`]); [`jwks`] fetches and reads the key set. No token, nor
//! any part of one, is logged or quoted in an error.

mod jwks;
mod jwks_cache;

use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Instant;

use jsonwebtoken::errors::{Error as JwtError, ErrorKind};
use jsonwebtoken::{Algorithm, Validation};

use self::jwks::Key;
use self::jwks_cache::{Cache, Fetch, Lookup};
use serde_json::Value;

/// Clocks of the ledger and the provider differ by a little; a minute is
/// what the design allows (§19), and no more.
const LEEWAY_SECS: u64 = 60;

pub use crate::config::sign_in::OidcConfig;

/// Who a valid token names: `preferred_username`, else `sub`; the role
/// claim's values (a string or an array of strings; absent: empty) and the
/// shop claim's (same).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SignedIn {
    pub name: String,
    pub roles: Vec<String>,
    pub shops: Vec<String>,
}

#[derive(Debug, thiserror::Error)]
pub enum OidcError {
    /// The token is not accepted (maps to 401): the message says why in
    /// plain words, never quoting the token.
    #[error("{0}")]
    Invalid(String),
    /// The keys could not be fetched (maps to 503).
    #[error("the identity provider's keys could not be fetched: {0}")]
    Unavailable(String),
}

fn invalid(why: impl Into<String>) -> OidcError {
    OidcError::Invalid(why.into())
}

/// The verifier: the settings, the cached keys, and the lock that lets one
/// fetch run at a time.
pub struct Oidc {
    config: OidcConfig,
    http: reqwest::Client,
    cache: Mutex<Cache>,
    /// Held while fetching; holds the `jwks_uri` discovery found, so the
    /// discovery document is read once, not at every fetch.
    refresh: tokio::sync::Mutex<Option<String>>,
}

impl std::fmt::Debug for Oidc {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Oidc")
            .field("config", &self.config)
            .finish_non_exhaustive()
    }
}

impl Oidc {
    /// Fetches nothing yet: the first token does.
    pub fn new(config: OidcConfig, http: reqwest::Client) -> Self {
        Self {
            config,
            http,
            cache: Mutex::new(Cache::default()),
            refresh: tokio::sync::Mutex::new(None),
        }
    }

    /// Who `token` names, if the provider signed it for this ledger and it
    /// is valid now.
    pub async fn verify(&self, token: &str) -> Result<SignedIn, OidcError> {
        if !looks_like_jwt(token) {
            return Err(invalid("the token is not a JWT"));
        }
        // An unreadable header, or one naming an algorithm the library does
        // not know (`none` among them), fails here.
        let header = jsonwebtoken::decode_header(token)
            .map_err(|_| invalid("the token's header is unreadable or names no known algorithm"))?;
        if !matches!(header.alg, Algorithm::RS256 | Algorithm::ES256) {
            return Err(invalid("the token's algorithm is not RS256 or ES256"));
        }
        let kid = header
            .kid
            .ok_or_else(|| invalid("the token's header names no key (kid)"))?;
        let named = self.keys_named(&kid).await?;
        // The header's algorithm must be the key's: an RSA key never checks
        // an ES256 signature, nor the reverse.
        let key = named
            .iter()
            .find(|k| k.alg == header.alg)
            .ok_or_else(|| invalid("the token's algorithm does not match its key's type"))?;
        let data = jsonwebtoken::decode::<Value>(token, &key.decoding, &self.validation(key.alg))
            .map_err(rejected)?;
        signed_in(&data.claims, &self.config)
    }

    /// What the claims must satisfy: one algorithm (the library checks the
    /// key's family against each one listed), `iss` and `aud` required, as
    /// the library skips either check when the claim is absent.
    fn validation(&self, alg: Algorithm) -> Validation {
        let mut v = Validation::new(alg);
        v.leeway = LEEWAY_SECS;
        v.validate_exp = true;
        v.validate_nbf = true;
        v.set_issuer(&[&self.config.issuer]);
        v.set_audience(&[&self.config.audience]);
        v.set_required_spec_claims(&["exp", "iss", "aud"]);
        v
    }

    /// The cached keys named `kid`, fetching the key set first when the
    /// cache says so. Concurrent callers wait for one fetch and use its
    /// outcome rather than each fetching.
    async fn keys_named(&self, kid: &str) -> Result<Vec<Arc<Key>>, OidcError> {
        let arrived = Instant::now();
        let found = self.cache().lookup(kid, arrived, arrived);
        let mut jwks_uri = match found {
            Lookup::Fetch(_) => self.refresh.lock().await,
            // Old keys serve, rather than wait, while another verification
            // loads new ones.
            Lookup::Stale(ref keys) => match self.refresh.try_lock() {
                Ok(refresh) => refresh,
                Err(_) => return Ok(keys.clone()),
            },
            settled => return settled.answer(),
        };
        // Another verification may have fetched while this one waited.
        let reason = match self.cache().lookup(kid, arrived, Instant::now()) {
            Lookup::Fetch(reason) => reason,
            Lookup::Stale(_) => Fetch::Load,
            settled => return settled.answer(),
        };
        let fetched = jwks::fetch(&self.http, &self.config, &mut jwks_uri).await;
        if let Err(why) = &fetched {
            tracing::warn!(error = %why, "the identity provider's keys could not be fetched");
        }
        self.cache().record(fetched, reason, Instant::now());
        drop(jwks_uri);
        // The keys are now newer than the token: the lookup asks for no
        // other fetch (and would answer "unknown kid" if it did).
        self.cache().lookup(kid, arrived, Instant::now()).answer()
    }

    fn cache(&self) -> MutexGuard<'_, Cache> {
        self.cache.lock().unwrap_or_else(|p| p.into_inner())
    }
}

/// Why the library turned a token down, in words that quote none of it.
fn rejected(e: JwtError) -> OidcError {
    match e.kind() {
        ErrorKind::ExpiredSignature => invalid("the token has expired"),
        ErrorKind::ImmatureSignature => invalid("the token is not valid yet (nbf)"),
        ErrorKind::InvalidIssuer => invalid("the token was issued by another issuer"),
        ErrorKind::InvalidAudience => invalid("the token is meant for another audience"),
        ErrorKind::InvalidSignature => invalid("the token's signature does not verify"),
        ErrorKind::InvalidAlgorithm => {
            invalid("the token's algorithm does not match its key's type")
        }
        ErrorKind::MissingRequiredClaim(claim) => invalid(format!(
            "the token has no {claim} claim (or not in the form JWT requires)"
        )),
        _ => invalid("the token is malformed"),
    }
}

/// Who the verified claims name. The library checks `nbf` only when it is
/// a whole number of seconds and skips it otherwise, so any other `nbf` is
/// turned down here rather than ignored.
fn signed_in(claims: &Value, config: &OidcConfig) -> Result<SignedIn, OidcError> {
    if claims.get("nbf").is_some_and(|nbf| nbf.as_u64().is_none()) {
        return Err(invalid("the token's nbf is not a whole number of seconds"));
    }
    let name = ["preferred_username", "sub"]
        .into_iter()
        .find_map(|claim| claims.get(claim)?.as_str().filter(|n| !n.trim().is_empty()))
        .ok_or_else(|| invalid("the token names nobody (no preferred_username or sub)"))?;
    Ok(SignedIn {
        name: name.to_owned(),
        roles: strings(claims, &config.role_claim)?,
        shops: strings(claims, &config.shop_claim)?,
    })
}

/// A claim's values: one string, or an array of strings; none when absent.
fn strings(claims: &Value, claim: &str) -> Result<Vec<String>, OidcError> {
    let not_strings = || {
        invalid(format!(
            "the token's {claim} claim is not a string or a list of strings"
        ))
    };
    match claims.get(claim) {
        None | Some(Value::Null) => Ok(Vec::new()),
        Some(Value::String(one)) => Ok(vec![one.clone()]),
        Some(Value::Array(many)) => many
            .iter()
            .map(|v| v.as_str().map(str::to_owned))
            .collect::<Option<Vec<String>>>()
            .ok_or_else(not_strings),
        Some(_) => Err(not_strings()),
    }
}

/// Whether a bearer token has a JWT's shape (three base64url parts
/// separated by dots), so callers only try OIDC for such tokens. The third
/// part may be empty: an unsigned JWT is still a JWT, and [`Oidc::verify`]
/// turns it down saying so.
pub fn looks_like_jwt(token: &str) -> bool {
    let base64url = |part: &str| {
        part.bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
    };
    let mut parts = token.split('.');
    match (parts.next(), parts.next(), parts.next(), parts.next()) {
        (Some(header), Some(payload), Some(signature), None) => {
            !header.is_empty()
                && !payload.is_empty()
                && [header, payload, signature].into_iter().all(base64url)
        }
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn config() -> OidcConfig {
        OidcConfig {
            issuer: "https://idp.example.com/realms/x".into(),
            audience: "ledger".into(),
            jwks_url: None,
            role_claim: "roles".into(),
            shop_claim: "shops".into(),
        }
    }

    fn roles_of(claims: Value) -> Result<Vec<String>, OidcError> {
        signed_in(&claims, &config()).map(|s| s.roles)
    }

    #[test]
    fn the_role_claim_is_a_string_an_array_or_absent() {
        let one = roles_of(json!({"sub": "s", "roles": "admin"})).unwrap();
        assert_eq!(one, ["admin"]);
        let many = roles_of(json!({"sub": "s", "roles": ["admin", "viewer"]})).unwrap();
        assert_eq!(many, ["admin", "viewer"]);
        assert!(roles_of(json!({"sub": "s"})).unwrap().is_empty());
        assert!(
            roles_of(json!({"sub": "s", "roles": null}))
                .unwrap()
                .is_empty()
        );
        assert!(
            roles_of(json!({"sub": "s", "roles": []}))
                .unwrap()
                .is_empty()
        );
        for odd in [
            json!(1),
            json!({"a": "b"}),
            json!(["admin", 2]),
            json!(true),
        ] {
            let e = roles_of(json!({"sub": "s", "roles": odd})).unwrap_err();
            assert!(matches!(e, OidcError::Invalid(_)), "{odd}");
        }
    }

    #[test]
    fn the_claims_named_in_the_config_are_read() {
        let config = OidcConfig {
            role_claim: "https://ledger/roles".into(),
            shop_claim: "tenants".into(),
            ..config()
        };
        let claims =
            json!({"sub": "s", "https://ledger/roles": ["a"], "tenants": "shop-1", "roles": ["x"]});
        let who = signed_in(&claims, &config).unwrap();
        assert_eq!(
            (who.roles, who.shops),
            (vec!["a".into()], vec!["shop-1".into()])
        );
    }

    #[test]
    fn the_name_is_preferred_username_else_sub() {
        let both = json!({"sub": "f3a1", "preferred_username": "alice", "shops": ["s1", "s2"]});
        let who = signed_in(&both, &config()).unwrap();
        assert_eq!(
            who,
            SignedIn {
                name: "alice".into(),
                roles: vec![],
                shops: vec!["s1".into(), "s2".into()],
            }
        );
        let sub_only = json!({"sub": "f3a1"});
        assert_eq!(signed_in(&sub_only, &config()).unwrap().name, "f3a1");
        let blank = json!({"sub": "f3a1", "preferred_username": " "});
        assert_eq!(signed_in(&blank, &config()).unwrap().name, "f3a1");
        for nobody in [
            json!({}),
            json!({"sub": ""}),
            json!({"preferred_username": 7}),
        ] {
            assert!(signed_in(&nobody, &config()).is_err(), "{nobody}");
        }
    }

    #[test]
    fn an_nbf_that_is_not_whole_seconds_is_turned_down() {
        assert!(signed_in(&json!({"sub": "s", "nbf": 1_700_000_000}), &config()).is_ok());
        for odd in [json!("1700000000"), json!(1.7e9), json!(-1)] {
            assert!(
                signed_in(&json!({"sub": "s", "nbf": odd}), &config()).is_err(),
                "{odd}"
            );
        }
    }

    #[test]
    fn jwt_shapes() {
        for jwt in ["eyJh.eyJz.c2ln", "a-_0.B.", "a.b.c"] {
            assert!(looks_like_jwt(jwt), "{jwt}");
        }
        for not in [
            "",
            "opaque-api-key",
            "a.b",
            "a.b.c.d",
            ".b.c",
            "a..c",
            "a.b.c=",
            "a.b+/.c",
            "a. b.c",
        ] {
            assert!(!looks_like_jwt(not), "{not}");
        }
    }

    #[test]
    fn errors_quote_no_token() {
        let e = rejected(jsonwebtoken::errors::ErrorKind::InvalidSignature.into());
        assert_eq!(e.to_string(), "the token's signature does not verify");
        let e = rejected(ErrorKind::MissingRequiredClaim("exp".into()).into());
        assert!(
            e.to_string().starts_with("the token has no exp claim"),
            "{e}"
        );
    }
}
