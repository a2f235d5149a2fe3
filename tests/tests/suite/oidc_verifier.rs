//! The OIDC verifier (`ledger/src/api/auth/oidc.rs`, docs/design.md §19)
//! against the test identity provider (`tests::idp`): RS256 and ES256
//! tokens name their operator; expired, early, foreign and forged ones are
//! turned down (401), without quoting the token; an unknown `kid` refetches
//! the keys at most once a minute, and concurrent first verifications fetch
//! them once; a provider that cannot be reached is 503.

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use ledger::api::auth::oidc::{Oidc, OidcConfig, OidcError, SignedIn};
use serde_json::{Value, json};
use tests::idp::Idp;

const AUDIENCE: &str = "couponledger";

fn config(issuer: &str) -> OidcConfig {
    OidcConfig {
        issuer: issuer.to_owned(),
        audience: AUDIENCE.into(),
        jwks_url: None,
        role_claim: "roles".into(),
        shop_claim: "shops".into(),
    }
}

fn oidc(idp: &Idp) -> Oidc {
    Oidc::new(config(&idp.issuer), reqwest::Client::new())
}

/// Why `token` was turned down as invalid; fails on any other outcome, or
/// when the reason quotes the token.
async fn invalid(oidc: &Oidc, token: &str) -> String {
    match oidc.verify(token).await {
        Err(OidcError::Invalid(why)) => {
            for part in token.split('.').filter(|p| p.len() > 8) {
                assert!(!why.contains(part), "the reason quotes the token: {why}");
            }
            why
        }
        other => panic!("expected Invalid, got {other:?}"),
    }
}

/// `claims` with `changes` laid over them.
fn with(mut claims: Value, changes: Value) -> Value {
    for (k, v) in changes.as_object().unwrap() {
        claims[k] = v.clone();
    }
    claims
}

#[tokio::test]
async fn rs256_and_es256_tokens_name_their_operator() {
    let idp = Idp::start().await.unwrap();
    let oidc = oidc(&idp);
    let alice = idp.claims(AUDIENCE, "alice", &["admin"], &["shop-1", "shop-2"]);
    assert_eq!(
        oidc.verify(&idp.token(alice)).await.unwrap(),
        SignedIn {
            name: "alice".into(),
            roles: vec!["admin".into()],
            shops: vec!["shop-1".into(), "shop-2".into()],
        }
    );
    let bob = with(
        idp.claims(AUDIENCE, "bob", &[], &[]),
        json!({"roles": "viewer", "preferred_username": null}),
    );
    let who = oidc.verify(&idp.token_es256(bob)).await.unwrap();
    assert_eq!(
        (who.name.as_str(), who.roles),
        ("id-bob", vec!["viewer".into()])
    );
    assert!(who.shops.is_empty());
    assert_eq!(idp.jwks_fetches(), 1, "the keys are fetched once and kept");
}

#[tokio::test]
async fn expired_early_and_foreign_tokens_are_invalid() {
    let idp = Idp::start().await.unwrap();
    let oidc = oidc(&idp);
    let good = idp.claims(AUDIENCE, "alice", &["admin"], &[]);
    let now = chrono::Utc::now().timestamp();
    let cases = [
        (json!({"exp": now - 120}), "expired"),
        (json!({"exp": null}), "no exp"),
        (json!({"nbf": now + 120}), "not valid yet"),
        (json!({"aud": "another-service"}), "another audience"),
        (json!({"aud": null}), "no aud"),
        (json!({"iss": "http://127.0.0.1:1"}), "another issuer"),
        (json!({"iss": null}), "no iss"),
    ];
    for (changes, why) in cases {
        let token = idp.token(with(good.clone(), changes.clone()));
        let said = invalid(&oidc, &token).await;
        assert!(said.contains(why), "{changes}: {said}");
    }
    // Within the minute of leeway, both ways.
    let skewed = with(good, json!({"exp": now - 30, "nbf": now + 30}));
    oidc.verify(&idp.token(skewed)).await.unwrap();
}

#[tokio::test]
async fn forged_tokens_are_invalid() {
    let idp = Idp::start().await.unwrap();
    let oidc = oidc(&idp);
    let claims = idp.claims(AUDIENCE, "mallory", &["admin"], &[]);
    let said = invalid(&oidc, &idp.token_alg_none(claims.clone())).await;
    assert!(said.contains("algorithm"), "{said}");
    let said = invalid(&oidc, &idp.token_hs256_with_public_key(claims.clone())).await;
    assert!(said.contains("RS256 or ES256"), "{said}");
    // A real signature over other claims.
    let signed = idp.token(idp.claims(AUDIENCE, "mallory", &[], &[]));
    let mut parts: Vec<String> = signed.split('.').map(str::to_owned).collect();
    parts[1] = URL_SAFE_NO_PAD.encode(claims.to_string());
    let said = invalid(&oidc, &parts.join(".")).await;
    assert!(said.contains("signature"), "{said}");
    // The EC key's signature, the header naming the RSA key.
    let es = idp.token_es256(claims.clone());
    let mut parts: Vec<String> = es.split('.').map(str::to_owned).collect();
    parts[0] = URL_SAFE_NO_PAD.encode(json!({"alg": "ES256", "kid": "rsa-1"}).to_string());
    let said = invalid(&oidc, &parts.join(".")).await;
    assert!(said.contains("does not match its key"), "{said}");
    // No kid at all.
    parts[0] = URL_SAFE_NO_PAD.encode(json!({"alg": "ES256"}).to_string());
    let said = invalid(&oidc, &parts.join(".")).await;
    assert!(said.contains("kid"), "{said}");
    invalid(&oidc, "not-a-jwt").await;
}

#[tokio::test]
async fn an_unknown_kid_refetches_the_keys_at_most_once_a_minute() {
    let idp = Idp::start().await.unwrap();
    let oidc = oidc(&idp);
    let claims = idp.claims(AUDIENCE, "alice", &[], &[]);
    oidc.verify(&idp.token(claims.clone())).await.unwrap();
    assert_eq!(idp.jwks_fetches(), 1);
    let said = invalid(&oidc, &idp.token_with_kid("rsa-2", claims.clone())).await;
    assert!(said.contains("kid"), "{said}");
    assert_eq!(
        idp.jwks_fetches(),
        2,
        "an unknown kid fetches the keys again"
    );
    invalid(&oidc, &idp.token_with_kid("rsa-3", claims.clone())).await;
    assert_eq!(idp.jwks_fetches(), 2, "but not twice within a minute");
    oidc.verify(&idp.token_es256(claims)).await.unwrap();
    assert_eq!(idp.jwks_fetches(), 2);
}

#[tokio::test]
async fn concurrent_first_verifications_fetch_the_keys_once() {
    let idp = Idp::start().await.unwrap();
    let oidc = oidc(&idp);
    let token = idp.token(idp.claims(AUDIENCE, "alice", &[], &[]));
    let unknown = idp.token_with_kid("nobody", idp.claims(AUDIENCE, "eve", &[], &[]));
    let verifications = (0..32).map(|i| oidc.verify(if i % 2 == 0 { &token } else { &unknown }));
    let outcomes = futures_util::future::join_all(verifications).await;
    for (i, outcome) in outcomes.iter().enumerate() {
        assert_eq!(outcome.is_ok(), i % 2 == 0, "{i}: {outcome:?}");
    }
    assert_eq!(idp.jwks_fetches(), 1);
}

#[tokio::test]
async fn a_configured_jwks_url_skips_discovery() {
    let idp = Idp::start().await.unwrap();
    let config = OidcConfig {
        jwks_url: Some(format!("{}/jwks", idp.issuer)),
        ..config(&idp.issuer)
    };
    let oidc = Oidc::new(config, reqwest::Client::new());
    let token = idp.token_es256(idp.claims(AUDIENCE, "alice", &[], &[]));
    assert_eq!(oidc.verify(&token).await.unwrap().name, "alice");
}

#[tokio::test]
async fn a_provider_out_of_reach_is_unavailable() {
    let idp = Idp::start().await.unwrap();
    let token = idp.token(idp.claims(AUDIENCE, "alice", &[], &[]));
    // A port nobody listens on once the listener is dropped.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let oidc = Oidc::new(
        config(&format!("http://127.0.0.1:{port}")),
        reqwest::Client::new(),
    );
    let outcome = oidc.verify(&token).await;
    assert!(
        matches!(outcome, Err(OidcError::Unavailable(_))),
        "{outcome:?}"
    );
}
