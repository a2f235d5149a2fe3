//! Single sign-on's settings (docs/design.md §19): the `LEDGER_OIDC_*`
//! variables, read with the rest of the configuration; `api/auth/oidc.rs`
//! verifies tokens with them.

#[derive(Clone, Debug)]
pub struct OidcConfig {
    /// `LEDGER_OIDC_ISSUER`, e.g. `https://idp.example.com/realms/x`.
    pub issuer: String,
    /// `LEDGER_OIDC_AUDIENCE`.
    pub audience: String,
    /// `LEDGER_OIDC_JWKS_URL`; None: the issuer's discovery document's `jwks_uri`.
    pub jwks_url: Option<String>,
    /// `LEDGER_OIDC_ROLE_CLAIM` (default `roles`).
    pub role_claim: String,
    /// `LEDGER_OIDC_SHOP_CLAIM` (default `shops`).
    pub shop_claim: String,
}
