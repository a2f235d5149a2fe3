//! Operators signed in through the company's identity provider (docs/design.md
//! §19), played by a JWKS this test serves on loopback with keys it makes:
//! a token's role claim decides what it may do, its name is the operator's
//! in the events, and every token the provider did not sign as asked is 401.

use reqwest::Method;
use serde_json::{Value, json};
use tests::access::{assert_forbidden, call};
use tests::idp::Idp;
use tests::{Env, Server, template_body};

const AUDIENCE: &str = "couponledger";

async fn server(env: &Env, idp: &Idp) -> Server {
    let vars = [
        ("LEDGER_OIDC_ISSUER", idp.issuer.as_str()),
        ("LEDGER_OIDC_AUDIENCE", AUDIENCE),
    ];
    Server::start_with(env, &vars).await.unwrap()
}

#[tokio::test(flavor = "multi_thread")]
async fn a_finance_token_reads_liability_and_may_not_change_a_template() {
    let env = Env::new().await.unwrap();
    let idp = Idp::start().await.unwrap();
    let server = server(&env, &idp).await;
    // A provider lists roles for other systems too: they are passed over.
    let finance = idp.token(idp.claims(AUDIENCE, "fiona", &["offline_access", "finance"], &[]));
    let liability = call(
        &server,
        &finance,
        Method::GET,
        "/v1/reports/liability?as_of=now",
        None,
    )
    .await;
    assert_eq!(liability.0, 200, "{}", liability.1);
    let create = call(
        &server,
        &finance,
        Method::POST,
        "/v1/templates",
        Some(&template_body(5, 1)),
    )
    .await;
    assert_forbidden("finance creates a template", &create, "templates:write");
    // An ops token (ES256) writes, and the events name who signed in.
    let ops = idp.token_es256(idp.claims(AUDIENCE, "oscar", &["ops"], &[]));
    let (status, made) = call(
        &server,
        &ops,
        Method::POST,
        "/v1/templates",
        Some(&template_body(5, 1)),
    )
    .await;
    assert_eq!(status, 201, "{made}");
    let client = env.db.client().await.unwrap();
    let stream = format!("template-{}", made["sn"].as_str().unwrap());
    let sql = "SELECT metadata FROM events WHERE stream_id = $1";
    let meta: Value = client.query_one(sql, &[&stream]).await.unwrap().get(0);
    assert_eq!(
        (&meta["operator"], &meta["role"]),
        (&json!("oscar"), &json!("ops")),
        "{meta}"
    );
    let me = call(&server, &ops, Method::GET, "/v1/me", None).await.1;
    assert_eq!(
        (&me["name"], &me["role"]),
        (&json!("oscar"), &json!("ops")),
        "{me}"
    );
    let none = idp.token(idp.claims(AUDIENCE, "nobody", &["offline_access"], &[]));
    let refused = call(&server, &none, Method::GET, "/v1/templates", None).await;
    assert_eq!(refused.0, 403, "no ledger role: {}", refused.1);
}

#[tokio::test(flavor = "multi_thread")]
async fn tokens_the_provider_did_not_sign_as_asked_are_401() {
    let env = Env::new().await.unwrap();
    let idp = Idp::start().await.unwrap();
    let server = server(&env, &idp).await;
    let claims = idp.claims(AUDIENCE, "ann", &["admin"], &[]);
    let good = idp.token(claims.clone());
    assert_eq!(
        call(&server, &good, Method::GET, "/v1/templates", None)
            .await
            .0,
        200
    );
    let fetched = idp.jwks_fetches();
    let now = chrono::Utc::now().timestamp();
    let mut expired = claims.clone();
    expired["exp"] = json!(now - 120);
    let mut wrong_audience = claims.clone();
    wrong_audience["aud"] = json!("another-app");
    for (what, token) in [
        ("expired", idp.token(expired)),
        ("wrong audience", idp.token(wrong_audience)),
        ("unknown kid", idp.token_with_kid("rsa-9", claims.clone())),
        ("alg none", idp.token_alg_none(claims.clone())),
        (
            "HS256 with the public key",
            idp.token_hs256_with_public_key(claims.clone()),
        ),
    ] {
        let (status, body) = call(&server, &token, Method::GET, "/v1/templates", None).await;
        assert_eq!(status, 401, "{what}: {body}");
        assert!(
            !body.to_string().contains(&token),
            "{what}: the answer quotes no token"
        );
    }
    // The unknown kid made one refetch; a second within the minute makes none.
    assert_eq!(idp.jwks_fetches(), fetched + 1);
    let again = idp.token_with_kid("rsa-10", claims);
    assert_eq!(
        call(&server, &again, Method::GET, "/v1/templates", None)
            .await
            .0,
        401
    );
    assert_eq!(idp.jwks_fetches(), fetched + 1);
}
