//! `GET /v1/me`: who the bearer token names and what it may do, from the
//! one permission table: the console shows only what the caller may do.

use axum::Json;
use serde::Serialize;
use strum::VariantArray;
use utoipa::ToSchema;

use crate::api::auth::principal::Principal;
use crate::api::http::error::ErrorBody;
use crate::domain::permission::Permission;

#[derive(Serialize, ToSchema)]
pub struct Me {
    /// The operator's or the app key's name.
    pub name: String,
    /// `operator` or `api_key`.
    pub kind: String,
    /// An operator's role.
    pub role: Option<String>,
    /// A merchant's shops.
    pub shops: Vec<String>,
    /// An app key's id.
    pub key_id: Option<String>,
    /// Every permission granted (`templates:write`, ...).
    pub permissions: Vec<String>,
}

/// The caller, its role or key, and its permissions.
#[utoipa::path(get, path = "/v1/me", operation_id = "me", tag = "keys",
    security(("admin" = []), ("service" = [])),
    responses((status = 200, body = Me), (status = 401, body = ErrorBody)))]
pub async fn me(principal: Principal) -> Json<Me> {
    let permissions = Permission::VARIANTS
        .iter()
        .filter(|&&p| principal.may(p))
        .map(ToString::to_string)
        .collect();
    let (kind, role, shops, key_id) = match &principal {
        Principal::Operator { role, shops, .. } => (
            "operator",
            Some(role.to_string()),
            shops.iter().map(|s| s.as_str().to_owned()).collect(),
            None,
        ),
        Principal::App { key, .. } => ("api_key", None, Vec::new(), Some(key.id.clone())),
    };
    Json(Me {
        name: principal.name().to_owned(),
        kind: kind.into(),
        role,
        shops,
        key_id,
        permissions,
    })
}
