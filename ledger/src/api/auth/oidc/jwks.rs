//! The identity provider's keys (docs/design.md §19): its key set (JWKS),
//! found through `LEDGER_OIDC_JWKS_URL` or the issuer's discovery
//! document, fetched with bounds on time and size, and read into the
//! signing keys [`super::Oidc`] can use.

use std::sync::Arc;
use std::time::Duration;

use jsonwebtoken::{Algorithm, DecodingKey};
use serde::Deserialize;
use serde_json::Value;

use super::OidcConfig;

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

/// The provider's key set: from `jwks_url`, or from the `jwks_uri` of
/// the issuer's discovery document (kept in `jwks_uri` once found, and
/// forgotten when it fails, in case the provider moved it).
pub(super) async fn fetch(
    http: &reqwest::Client,
    config: &OidcConfig,
    jwks_uri: &mut Option<String>,
) -> Result<Vec<Arc<Key>>, String> {
    let uri = match (&config.jwks_url, jwks_uri.as_ref()) {
        (Some(configured), _) => configured.clone(),
        (None, Some(discovered)) => discovered.clone(),
        (None, None) => jwks_uri.insert(discover(http, config).await?).clone(),
    };
    let body = get(http, &uri).await.inspect_err(|_| *jwks_uri = None)?;
    keys_of(&body).inspect_err(|_| *jwks_uri = None)
}

/// The `jwks_uri` of the issuer's discovery document (OpenID Connect
/// Discovery §4), whose `issuer` must be the configured one (§4.3): a
/// document for another issuer would lend its keys to this one.
async fn discover(http: &reqwest::Client, config: &OidcConfig) -> Result<String, String> {
    #[derive(Deserialize)]
    struct Discovery {
        issuer: String,
        jwks_uri: String,
    }
    let issuer = config.issuer.trim_end_matches('/');
    let url = format!("{issuer}/.well-known/openid-configuration");
    let body = get(http, &url).await?;
    let document: Discovery = serde_json::from_slice(&body)
        .map_err(|e| format!("{url} is not a discovery document: {e}"))?;
    if document.issuer.trim_end_matches('/') != issuer {
        return Err(format!(
            "{url} names the issuer {:?}, not {:?}",
            document.issuer, config.issuer
        ));
    }
    Ok(document.jwks_uri)
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
pub(super) struct Key {
    pub(super) kid: String,
    pub(super) alg: Algorithm,
    pub(super) decoding: DecodingKey,
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
pub(super) fn keys_of(body: &[u8]) -> Result<Vec<Arc<Key>>, String> {
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

#[cfg(test)]
pub(super) mod tests {
    use serde_json::json;

    use super::*;

    /// A JWK of an RSA signing key named `kid` (not a real key: its numbers are tiny).
    pub(in crate::api::auth::oidc) fn rsa(kid: &str) -> Value {
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
}
