//! Operators' single sign-on (docs/design.md §19): an operator's bearer token
//! may be a JWT that the identity provider (OIDC) signed. [`Oidc::verify`]
//! checks it against the keys the provider publishes (its JWKS) and says
//! whom it names ([`SignedIn`]): a name, roles and shops, from claims.
//!
//! Only RS256 and ES256 are accepted, with the key the header's `kid` names
//! and of the algorithm's type; `exp` (required), `nbf`, `iss` and `aud` are
//! checked with 60 s of leeway. The keys are kept in memory: a token naming
//! an unknown `kid` fetches them again at most once a minute, one fetch at a
//! time, so made-up `kid`s cannot make the ledger hammer the provider. No
//! token, nor any part of one, is logged or quoted in an error.

use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use jsonwebtoken::errors::{Error as JwtError, ErrorKind};
use jsonwebtoken::{Algorithm, DecodingKey, Validation};
use serde::Deserialize;
use serde_json::Value;

/// Clocks of the ledger and the provider differ by a little; a minute is
/// what the design allows (§19), and no more.
const LEEWAY_SECS: u64 = 60;

/// An unknown `kid` refetches the keys at most this often: anyone can send
/// tokens with made-up `kid`s, and each must not become a request to the
/// provider.
const REFETCH_AFTER: Duration = Duration::from_secs(60);

/// After a failed fetch, the next is tried this soon: with no keys,
/// operators are locked out, so a blip of the provider should not cost a
/// minute; a few seconds still spare a provider that is down.
const RETRY_AFTER_FAILURE: Duration = Duration::from_secs(5);

/// Keys older than this are fetched again before use, so a key the provider
/// withdrew (rotated out, or compromised) stops being accepted within the
/// hour even when no unknown `kid` comes along.
const KEYS_MAX_AGE: Duration = Duration::from_secs(3600);

/// A fetch that hangs would hold every verification waiting on it.
const FETCH_TIMEOUT: Duration = Duration::from_secs(5);

/// Real discovery documents and key sets are a few kilobytes; the bound
/// keeps a misbehaving or hostile endpoint from making the ledger buffer
/// without end.
const MAX_BODY: usize = 1 << 20;

/// Providers publish a handful of keys (current, next, previous). Every
/// verification scans them, and they live as long as the process: a key set
/// of thousands would cost memory and time on every request for nothing.
const MAX_KEYS: usize = 100;

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
        let fetched = self.fetch_keys(&mut jwks_uri).await;
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

    /// The provider's key set: from `jwks_url`, or from the `jwks_uri` of
    /// the issuer's discovery document (kept in `jwks_uri` once found, and
    /// forgotten when it fails, in case the provider moved it).
    async fn fetch_keys(&self, jwks_uri: &mut Option<String>) -> Result<Vec<Arc<Key>>, String> {
        let uri = match (&self.config.jwks_url, jwks_uri.as_ref()) {
            (Some(configured), _) => configured.clone(),
            (None, Some(discovered)) => discovered.clone(),
            (None, None) => jwks_uri.insert(self.discover().await?).clone(),
        };
        let body = get(&self.http, &uri)
            .await
            .inspect_err(|_| *jwks_uri = None)?;
        keys_of(&body).inspect_err(|_| *jwks_uri = None)
    }

    /// The `jwks_uri` of the issuer's discovery document (OpenID Connect
    /// Discovery §4), whose `issuer` must be the configured one (§4.3): a
    /// document for another issuer would lend its keys to this one.
    async fn discover(&self) -> Result<String, String> {
        #[derive(Deserialize)]
        struct Discovery {
            issuer: String,
            jwks_uri: String,
        }
        let issuer = self.config.issuer.trim_end_matches('/');
        let url = format!("{issuer}/.well-known/openid-configuration");
        let body = get(&self.http, &url).await?;
        let document: Discovery = serde_json::from_slice(&body)
            .map_err(|e| format!("{url} is not a discovery document: {e}"))?;
        if document.issuer.trim_end_matches('/') != issuer {
            return Err(format!(
                "{url} names the issuer {:?}, not {:?}",
                document.issuer, self.config.issuer
            ));
        }
        Ok(document.jwks_uri)
    }
}

/// The body `url` answers with, at most [`MAX_BODY`] bytes, within
/// [`FETCH_TIMEOUT`].
async fn get(http: &reqwest::Client, url: &str) -> Result<Vec<u8>, String> {
    let failed = |e: reqwest::Error| format!("{url}: {}", crate::logging::chain(&e));
    let mut response = http
        .get(url)
        .header(reqwest::header::ACCEPT, "application/json")
        .timeout(FETCH_TIMEOUT)
        .send()
        .await
        .map_err(failed)?
        .error_for_status()
        .map_err(failed)?;
    let too_large = || format!("{url} answered more than {MAX_BODY} bytes");
    if response
        .content_length()
        .is_some_and(|n| n > MAX_BODY as u64)
    {
        return Err(too_large());
    }
    let mut body = Vec::new();
    while let Some(chunk) = response.chunk().await.map_err(failed)? {
        if body.len() + chunk.len() > MAX_BODY {
            return Err(too_large());
        }
        body.extend_from_slice(&chunk);
    }
    Ok(body)
}

/// One key the provider publishes for signing, ready to check signatures.
struct Key {
    kid: String,
    alg: Algorithm,
    decoding: DecodingKey,
}

/// The fields of a JWK (RFC 7517 §4, RFC 7518 §6) that pick and make a key.
#[derive(Deserialize)]
struct Jwk {
    kid: Option<String>,
    kty: String,
    #[serde(rename = "use")]
    usage: Option<String>,
    alg: Option<String>,
    crv: Option<String>,
    n: Option<String>,
    e: Option<String>,
    x: Option<String>,
    y: Option<String>,
}

/// The signing keys of a JWKS document, at most [`MAX_KEYS`]. Keys this
/// verifier cannot use (encryption keys, other types or curves, no `kid`)
/// are left out one by one: a provider may publish them beside its signing
/// keys, and they must not make the whole set unreadable.
fn keys_of(body: &[u8]) -> Result<Vec<Arc<Key>>, String> {
    #[derive(Deserialize)]
    struct Jwks {
        keys: Vec<Value>,
    }
    let jwks: Jwks =
        serde_json::from_slice(body).map_err(|e| format!("the key set is not a JWKS: {e}"))?;
    let usable: Vec<Arc<Key>> = jwks
        .keys
        .into_iter()
        .filter_map(|k| key_of(serde_json::from_value(k).ok()?).map(Arc::new))
        .take(MAX_KEYS + 1)
        .collect();
    if usable.len() > MAX_KEYS {
        tracing::warn!(
            kept = MAX_KEYS,
            "the identity provider publishes too many keys"
        );
    }
    Ok(usable.into_iter().take(MAX_KEYS).collect())
}

/// The key a JWK describes, if it is for signatures with RS256 (an RSA key)
/// or ES256 (an EC key on P-256) and says no other algorithm.
fn key_of(jwk: Jwk) -> Option<Key> {
    if jwk.usage.as_deref().is_some_and(|u| u != "sig") {
        return None;
    }
    let (alg, name) = match (jwk.kty.as_str(), jwk.crv.as_deref()) {
        ("RSA", _) => (Algorithm::RS256, "RS256"),
        ("EC", Some("P-256")) => (Algorithm::ES256, "ES256"),
        _ => return None,
    };
    if jwk.alg.as_deref().is_some_and(|a| a != name) {
        return None;
    }
    let decoding = match alg {
        Algorithm::RS256 => DecodingKey::from_rsa_components(jwk.n.as_deref()?, jwk.e.as_deref()?),
        _ => DecodingKey::from_ec_components(jwk.x.as_deref()?, jwk.y.as_deref()?),
    };
    Some(Key {
        kid: jwk.kid?,
        alg,
        decoding: decoding.ok()?,
    })
}

/// The keys in memory and when they were fetched.
#[derive(Default)]
struct Cache {
    keys: Vec<Arc<Key>>,
    /// When the last successful fetch ended.
    fetched: Option<Instant>,
    /// When an unknown `kid` last made the keys be fetched.
    refetched: Option<Instant>,
    /// The last fetch, if it failed and none succeeded since: when, and why.
    failed: Option<(Instant, String)>,
}

/// What the cache makes of a `kid`.
enum Lookup {
    /// The keys with that `kid` (one, unless the provider reuses a `kid`
    /// across key types).
    Found(Vec<Arc<Key>>),
    /// The keys with that `kid`, but older than [`KEYS_MAX_AGE`]: load the
    /// key set, unless another verification is loading it.
    Stale(Vec<Arc<Key>>),
    /// Fetch the key set, then look again.
    Fetch(Fetch),
    /// Not a key of the provider's: its keys are newer than the token, or
    /// an unknown `kid` had them fetched less than a minute ago.
    Unknown,
    /// A fetch failed moments ago, for this reason.
    Down(String),
}

/// Why the keys are fetched: only refetches for unknown `kid`s, which
/// anyone can cause, are held to one a minute.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Fetch {
    /// None yet, or older than [`KEYS_MAX_AGE`].
    Load,
    /// The keys are fresh, but the token names none of them.
    Refetch,
}

impl Cache {
    /// `kid` for a token that came at `arrived`.
    fn lookup(&self, kid: &str, arrived: Instant, now: Instant) -> Lookup {
        let named: Vec<Arc<Key>> = self.keys.iter().filter(|k| k.kid == kid).cloned().collect();
        let since = |at: Instant| now.saturating_duration_since(at);
        let fresh = self.fetched.is_some_and(|at| since(at) < KEYS_MAX_AGE);
        let failed = self
            .failed
            .as_ref()
            .filter(|(at, _)| since(*at) < RETRY_AFTER_FAILURE);
        // Old keys serve while the provider cannot be reached.
        if !named.is_empty() && (fresh || failed.is_some()) {
            return Lookup::Found(named);
        }
        if let Some((_, why)) = failed {
            return Lookup::Down(why.clone());
        }
        if !fresh {
            return if named.is_empty() {
                Lookup::Fetch(Fetch::Load)
            } else {
                Lookup::Stale(named)
            };
        }
        let newer = self.fetched.is_some_and(|at| at >= arrived);
        let refetched = self.refetched.is_some_and(|at| since(at) < REFETCH_AFTER);
        if newer || refetched {
            Lookup::Unknown
        } else {
            Lookup::Fetch(Fetch::Refetch)
        }
    }

    /// A fetch's outcome: new keys replace all the old (a withdrawn key is
    /// forgotten); a failure keeps them.
    fn record(&mut self, fetched: Result<Vec<Arc<Key>>, String>, reason: Fetch, now: Instant) {
        if reason == Fetch::Refetch {
            self.refetched = Some(now);
        }
        match fetched {
            Ok(keys) => {
                self.keys = keys;
                self.fetched = Some(now);
                self.failed = None;
            }
            Err(why) => self.failed = Some((now, why)),
        }
    }
}

impl Lookup {
    /// The answer; a fetch asked for after one was made leaves the `kid`
    /// unknown.
    fn answer(self) -> Result<Vec<Arc<Key>>, OidcError> {
        match self {
            Lookup::Found(keys) | Lookup::Stale(keys) => Ok(keys),
            Lookup::Fetch(_) | Lookup::Unknown => Err(unknown_kid()),
            Lookup::Down(why) => Err(OidcError::Unavailable(why)),
        }
    }
}

fn unknown_kid() -> OidcError {
    invalid("the token's key (kid) is not one the identity provider publishes")
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

    fn rsa(kid: &str) -> Value {
        json!({"kty": "RSA", "kid": kid, "use": "sig", "alg": "RS256", "n": "AQAB", "e": "AQAB"})
    }

    #[test]
    fn only_signing_keys_of_rs256_and_es256_are_kept() {
        let jwks = json!({"keys": [
            rsa("rsa-1"),
            {"kty": "EC", "kid": "ec-1", "crv": "P-256", "x": "AQAB", "y": "AQAB"},
            {"kty": "RSA", "kid": "enc", "use": "enc", "n": "AQAB", "e": "AQAB"},
            {"kty": "RSA", "kid": "ps", "alg": "PS256", "n": "AQAB", "e": "AQAB"},
            {"kty": "EC", "kid": "p384", "crv": "P-384", "x": "AQAB", "y": "AQAB"},
            {"kty": "OKP", "kid": "ed", "crv": "Ed25519", "x": "AQAB"},
            {"kty": "oct", "kid": "hmac", "k": "AQAB"},
            {"kty": "RSA", "n": "AQAB", "e": "AQAB"},
            {"kty": "RSA", "kid": "no-n", "e": "AQAB"},
            "not a key"
        ]});
        let keys = keys_of(jwks.to_string().as_bytes()).unwrap();
        let kept: Vec<(&str, Algorithm)> = keys.iter().map(|k| (k.kid.as_str(), k.alg)).collect();
        assert_eq!(
            kept,
            [("rsa-1", Algorithm::RS256), ("ec-1", Algorithm::ES256)]
        );
        assert!(keys_of(b"{\"nokeys\": []}").is_err());
    }

    #[test]
    fn at_most_max_keys_are_kept() {
        let many: Vec<Value> = (0..MAX_KEYS + 5).map(|i| rsa(&format!("k{i}"))).collect();
        let keys = keys_of(json!({ "keys": many }).to_string().as_bytes()).unwrap();
        assert_eq!(keys.len(), MAX_KEYS);
    }

    fn cache_with(kid: &str, at: Instant) -> Cache {
        let keys = keys_of(json!({ "keys": [rsa(kid)] }).to_string().as_bytes());
        let mut cache = Cache::default();
        cache.record(keys, Fetch::Load, at);
        cache
    }

    fn fetch(lookup: Lookup) -> Option<Fetch> {
        match lookup {
            Lookup::Fetch(reason) => Some(reason),
            _ => None,
        }
    }

    #[test]
    fn an_unknown_kid_refetches_at_most_once_a_minute() {
        let t0 = Instant::now();
        let s = Duration::from_secs;
        let empty = Cache::default().lookup("k", t0, t0);
        assert_eq!(fetch(empty), Some(Fetch::Load));
        let mut cache = cache_with("k", t0);
        assert!(matches!(cache.lookup("k", t0, t0), Lookup::Found(ref k) if k.len() == 1));
        // A token that came before the fetch ended: the keys are news to it.
        assert!(matches!(cache.lookup("other", t0, t0), Lookup::Unknown));
        let t1 = t0 + s(1);
        assert_eq!(fetch(cache.lookup("other", t1, t1)), Some(Fetch::Refetch));
        cache.record(Err("down".into()), Fetch::Refetch, t1);
        cache.record(keys_of(br#"{"keys": []}"#), Fetch::Load, t1 + s(10));
        assert!(matches!(
            cache.lookup("k", t1 + s(11), t1 + s(11)),
            Lookup::Unknown
        ));
        let t2 = t1 + REFETCH_AFTER - s(1);
        assert!(matches!(cache.lookup("other", t2, t2), Lookup::Unknown));
        let t3 = t1 + REFETCH_AFTER;
        assert_eq!(fetch(cache.lookup("other", t3, t3)), Some(Fetch::Refetch));
    }

    #[test]
    fn old_keys_are_loaded_again_and_serve_while_the_provider_is_down() {
        let t0 = Instant::now();
        let mut cache = cache_with("k", t0);
        let t1 = t0 + Duration::from_secs(600);
        assert!(matches!(cache.lookup("k", t1, t1), Lookup::Found(_)));
        let old = t0 + KEYS_MAX_AGE;
        assert!(matches!(cache.lookup("k", old, old), Lookup::Stale(ref k) if k.len() == 1));
        assert_eq!(fetch(cache.lookup("other", old, old)), Some(Fetch::Load));
        cache.record(Err("down".into()), Fetch::Load, old);
        assert!(matches!(cache.lookup("k", old, old), Lookup::Found(_)));
        assert!(matches!(cache.lookup("other", old, old), Lookup::Down(ref why) if why == "down"));
        let later = old + RETRY_AFTER_FAILURE;
        assert!(matches!(cache.lookup("k", later, later), Lookup::Stale(_)));
        assert_eq!(
            fetch(cache.lookup("other", later, later)),
            Some(Fetch::Load)
        );
        cache.record(keys_of(br#"{"keys": []}"#), Fetch::Load, later);
        let withdrawn = cache.lookup("k", later, later);
        assert!(
            matches!(withdrawn, Lookup::Unknown),
            "a withdrawn key is forgotten"
        );
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
