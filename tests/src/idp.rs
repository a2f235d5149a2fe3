//! A test identity provider (OIDC) on loopback, for operators' single
//! sign-on (docs/design.md §19, `ledger/src/api/auth/oidc.rs`). It makes
//! its keys when it starts, an RSA key (RS256, kid `rsa-1`) and an EC P-256
//! key (ES256, kid `ec-1`), serves its discovery document and key set, and
//! signs the tokens a test asks for, good ones and the forgeries the
//! verifier must turn down. The RSA key comes from the `openssl` command
//! line (ring makes no RSA keys; a crate that does would cost the tests'
//! build more than a few process starts cost a test).

use std::process::Stdio;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use anyhow::{Context, anyhow, ensure};
use axum::Json;
use axum::routing::get;
use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use jsonwebtoken::{Algorithm, EncodingKey, Header};
use ring::signature::{ECDSA_P256_SHA256_FIXED_SIGNING, EcdsaKeyPair, KeyPair};
use serde_json::{Value, json};
use tokio::io::AsyncWriteExt;
use tokio::net::TcpListener;
use tokio::process::Command;

pub const RSA_KID: &str = "rsa-1";
pub const EC_KID: &str = "ec-1";

/// A running identity provider; it stops serving when dropped.
pub struct Idp {
    /// `http://127.0.0.1:PORT`: the `iss` of its tokens, and where its
    /// discovery document is (`/.well-known/openid-configuration`).
    pub issuer: String,
    rsa: EncodingKey,
    ec: EncodingKey,
    /// What a forger would take for an HMAC secret (the classic RS256 to
    /// HS256 confusion).
    rsa_public_pem: Vec<u8>,
    fetches: Arc<AtomicUsize>,
    server: tokio::task::JoinHandle<()>,
}

impl Drop for Idp {
    fn drop(&mut self) {
        self.server.abort();
    }
}

impl Idp {
    /// Makes the keys and serves `/.well-known/openid-configuration` and
    /// `/jwks` on a free loopback port.
    pub async fn start() -> anyhow::Result<Idp> {
        let rsa = RsaKey::generate().await?;
        let ec = EcKey::generate()?;
        let listener = TcpListener::bind("127.0.0.1:0").await?;
        let issuer = format!("http://{}", listener.local_addr()?);
        let discovery = json!({
            "issuer": issuer,
            "jwks_uri": format!("{issuer}/jwks"),
            "id_token_signing_alg_values_supported": ["RS256", "ES256"],
        });
        let jwks = json!({ "keys": [rsa.jwk, ec.jwk] });
        let fetches = Arc::new(AtomicUsize::new(0));
        let counted = fetches.clone();
        let app = axum::Router::new()
            .route(
                "/.well-known/openid-configuration",
                get(move || async move { Json(discovery) }),
            )
            .route(
                "/jwks",
                get(move || async move {
                    counted.fetch_add(1, Ordering::SeqCst);
                    Json(jwks)
                }),
            );
        let server = tokio::spawn(async move {
            let _ = axum::serve(listener, app).await;
        });
        Ok(Idp {
            issuer,
            rsa: rsa.signing,
            ec: ec.signing,
            rsa_public_pem: rsa.public_pem,
            fetches,
            server,
        })
    }

    /// How many times `/jwks` was served.
    pub fn jwks_fetches(&self) -> usize {
        self.fetches.load(Ordering::SeqCst)
    }

    /// Signed with RS256 by the RSA key (kid `rsa-1`).
    pub fn token(&self, claims: Value) -> String {
        sign(Algorithm::RS256, RSA_KID, &self.rsa, &claims)
    }

    /// Signed with ES256 by the EC key (kid `ec-1`).
    pub fn token_es256(&self, claims: Value) -> String {
        sign(Algorithm::ES256, EC_KID, &self.ec, &claims)
    }

    /// Signed with RS256 by the RSA key, but naming the key `kid`.
    pub fn token_with_kid(&self, kid: &str, claims: Value) -> String {
        sign(Algorithm::RS256, kid, &self.rsa, &claims)
    }

    /// Unsecured (`"alg": "none"`, RFC 7519 §6), with an empty signature.
    /// It names the RSA key's kid, so turning it down must come from the
    /// algorithm and not from a missing key.
    pub fn token_alg_none(&self, claims: Value) -> String {
        let header = json!({ "alg": "none", "typ": "JWT", "kid": RSA_KID });
        let encode = |v: &Value| URL_SAFE_NO_PAD.encode(v.to_string());
        format!("{}.{}.", encode(&header), encode(&claims))
    }

    /// HS256 with the RSA public key's PEM as the HMAC secret, naming the
    /// RSA key: what a verifier that lets the token pick the algorithm
    /// would accept.
    pub fn token_hs256_with_public_key(&self, claims: Value) -> String {
        let secret = EncodingKey::from_secret(&self.rsa_public_pem);
        sign(Algorithm::HS256, RSA_KID, &secret, &claims)
    }

    /// Claims valid for five minutes from now, issued by this IdP for
    /// `audience`, naming `name` (`preferred_username`; `sub` is another
    /// id, as providers' are) with `roles` and `shops`.
    pub fn claims(&self, audience: &str, name: &str, roles: &[&str], shops: &[&str]) -> Value {
        let now = chrono::Utc::now().timestamp();
        json!({
            "iss": self.issuer,
            "aud": audience,
            "sub": format!("id-{name}"),
            "preferred_username": name,
            "iat": now,
            "nbf": now,
            "exp": now + 300,
            "roles": roles,
            "shops": shops,
        })
    }
}

fn sign(alg: Algorithm, kid: &str, key: &EncodingKey, claims: &Value) -> String {
    let mut header = Header::new(alg);
    header.kid = Some(kid.to_owned());
    jsonwebtoken::encode(&header, claims, key).expect("the test IdP's keys sign any claims")
}

/// A key pair: the signing half, and the public half as a JWK.
struct RsaKey {
    signing: EncodingKey,
    public_pem: Vec<u8>,
    jwk: Value,
}

impl RsaKey {
    async fn generate() -> anyhow::Result<Self> {
        let private_pem = openssl(
            &[
                "genpkey",
                "-algorithm",
                "RSA",
                "-pkeyopt",
                "rsa_keygen_bits:2048",
            ],
            b"",
        )
        .await?;
        // jsonwebtoken (through ring) signs with a PKCS#1 DER key.
        let pkcs1 = openssl(&["rsa", "-traditional", "-outform", "DER"], &private_pem).await?;
        let public_pem = openssl(&["rsa", "-pubout"], &private_pem).await?;
        let modulus = openssl(&["rsa", "-modulus", "-noout"], &private_pem).await?;
        let modulus = String::from_utf8(modulus)?;
        let hex_n = modulus
            .trim()
            .strip_prefix("Modulus=")
            .context("openssl rsa -modulus")?;
        let n = hex::decode(hex_n).context("the modulus in hex")?;
        Ok(RsaKey {
            signing: EncodingKey::from_rsa_der(&pkcs1),
            public_pem,
            // genpkey's public exponent is 65537 (AQAB) unless told otherwise.
            jwk: json!({
                "kty": "RSA", "kid": RSA_KID, "use": "sig", "alg": "RS256",
                "n": URL_SAFE_NO_PAD.encode(n), "e": "AQAB",
            }),
        })
    }
}

struct EcKey {
    signing: EncodingKey,
    jwk: Value,
}

impl EcKey {
    fn generate() -> anyhow::Result<Self> {
        let alg = &ECDSA_P256_SHA256_FIXED_SIGNING;
        let rng = ring::rand::SystemRandom::new();
        let pkcs8 = EcdsaKeyPair::generate_pkcs8(alg, &rng).map_err(|_| anyhow!("EC key"))?;
        let pair = EcdsaKeyPair::from_pkcs8(alg, pkcs8.as_ref(), &rng)
            .map_err(|e| anyhow!("EC key: {e}"))?;
        // The uncompressed point: 0x04, then x and y, 32 bytes each.
        let point = pair.public_key().as_ref();
        ensure!(
            point.len() == 65 && point[0] == 4,
            "an uncompressed P-256 point"
        );
        let (x, y) = point[1..].split_at(32);
        Ok(EcKey {
            signing: EncodingKey::from_ec_der(pkcs8.as_ref()),
            jwk: json!({
                "kty": "EC", "kid": EC_KID, "use": "sig", "alg": "ES256", "crv": "P-256",
                "x": URL_SAFE_NO_PAD.encode(x), "y": URL_SAFE_NO_PAD.encode(y),
            }),
        })
    }
}

/// `openssl args`, given `input`; its standard output.
async fn openssl(args: &[&str], input: &[u8]) -> anyhow::Result<Vec<u8>> {
    let mut child = Command::new("openssl")
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .context("running openssl (the test IdP makes its RSA key with it)")?;
    // A couple of kilobytes at most: the pipe takes them before openssl reads.
    let mut stdin = child.stdin.take().context("openssl's stdin")?;
    stdin.write_all(input).await?;
    drop(stdin);
    let out = child.wait_with_output().await?;
    ensure!(
        out.status.success(),
        "openssl {}: {}",
        args.join(" "),
        String::from_utf8_lossy(&out.stderr)
    );
    Ok(out.stdout)
}
