//! Who a request is from, once its bearer token held (docs/design.md §19):
//! an operator with a role (and a merchant's shops), or an app key with
//! its scopes. `authorize` puts it in the request's extensions; handlers
//! take it as an extractor, and `Ctx` writes it into events' metadata.

use axum::extract::FromRequestParts;
use axum::http::request::Parts;

use crate::api::http::error::ApiError;
use crate::domain::events::KeyRef;
use crate::domain::ids::ShopId;
use crate::domain::key_scope::KeyScope;
use crate::domain::permission::Permission;
use crate::domain::rate_limit::Bucket;
use crate::domain::role::Role;

#[derive(Clone, Debug)]
pub enum Principal {
    Operator {
        name: String,
        role: Role,
        /// A merchant's shops; empty for every other role.
        shops: Vec<ShopId>,
    },
    App {
        key: KeyRef,
        scopes: Vec<KeyScope>,
        /// The key's own request rate; None: none (the service token).
        rate_limit: Option<Bucket>,
    },
}

/// The id and name the service token's key goes by.
pub const SERVICE_KEY: &str = "service";

impl Principal {
    /// Whether the role or a scope grants `permission`.
    pub fn may(&self, permission: Permission) -> bool {
        match self {
            Self::Operator { role, .. } => role.may(permission),
            Self::App { scopes, .. } => scopes.iter().any(|s| s.grants().contains(&permission)),
        }
    }

    /// The operator's or the key's name.
    pub fn name(&self) -> &str {
        match self {
            Self::Operator { name, .. } => name,
            Self::App { key, .. } => &key.name,
        }
    }

    /// The shops a merchant is limited to; None for everyone else.
    pub fn merchant_shops(&self) -> Option<&[ShopId]> {
        match self {
            Self::Operator { role, shops, .. } if role.is_shop_scoped() => Some(shops),
            _ => None,
        }
    }

    /// A merchant's shops as a list filter binds them; None for everyone else.
    pub fn shop_filter(&self) -> Option<Vec<String>> {
        let shops = self.merchant_shops()?;
        Some(shops.iter().map(|s| s.as_str().to_owned()).collect())
    }

    /// The events' `actor`: the kind of caller (`admin` for operators, as
    /// before roles; `service` for apps).
    pub fn actor(&self) -> &'static str {
        match self {
            Self::Operator { .. } => "admin",
            Self::App { .. } => "service",
        }
    }

    /// What a code-guess budget is kept by: each key has its own.
    pub fn guess_key(&self) -> String {
        match self {
            Self::Operator { name, .. } => format!("operator:{name}"),
            Self::App { key, .. } => format!("key:{}", key.id),
        }
    }

    /// Refuses `shop` unless the caller is not a merchant or it is one of
    /// the merchant's shops (a template of no shop is the platform's).
    pub fn check_shop(&self, shop: Option<&ShopId>) -> Result<(), ApiError> {
        let Some(mine) = self.merchant_shops() else {
            return Ok(());
        };
        match shop {
            Some(shop) if mine.contains(shop) => Ok(()),
            Some(shop) => Err(ApiError::ShopScope(format!(
                "shop {shop} is not one of this merchant's"
            ))),
            None => Err(ApiError::ShopScope(
                "the platform's own templates are not a merchant's".into(),
            )),
        }
    }
}

impl Principal {
    /// The shop a new template of this caller belongs to: what it asked
    /// for, and for a merchant one of its shops (its only one when it
    /// names none; it must name one when it has several).
    pub fn forced_shop(&self, asked: Option<String>) -> Result<Option<String>, ApiError> {
        let Some(mine) = self.merchant_shops() else {
            return Ok(asked);
        };
        match (asked, mine) {
            (None, [only]) => Ok(Some(only.as_str().to_owned())),
            (None, _) => {
                let names: Vec<&str> = mine.iter().map(ShopId::as_str).collect();
                let message = format!(
                    "shop_id: one of this merchant's shops ({})",
                    names.join(", ")
                );
                Err(ApiError::BadRequest {
                    code: "invalid_field",
                    message,
                })
            }
            (Some(shop), _) if mine.iter().any(|m| m.as_str() == shop) => Ok(Some(shop)),
            (Some(_), _) => Err(ApiError::ShopScope(
                "shop_id: not one of this merchant's shops".into(),
            )),
        }
    }
}

impl<S: Send + Sync> FromRequestParts<S> for Principal {
    type Rejection = ApiError;

    /// Set by `authorize` for every route whose rule takes a bearer token.
    async fn from_request_parts(parts: &mut Parts, _: &S) -> Result<Self, ApiError> {
        parts
            .extensions
            .get::<Principal>()
            .cloned()
            .ok_or_else(|| ApiError::Unauthorized("missing bearer token".into()))
    }
}
