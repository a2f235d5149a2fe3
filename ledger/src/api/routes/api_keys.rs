//! App keys (docs/design.md §19): `POST /v1/api-keys` makes one and answers
//! the key once; list and read (never the key); rotate with an overlap;
//! revoke. Admin only (`keys:manage`).

use axum::Json;
use axum::extract::State;
use axum::http::StatusCode;
use axum::response::Response;
use chrono::{DateTime, Duration, Utc};
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};
use uuid::Uuid;

use crate::api::AppState;
use crate::api::http::context::Ctx;
use crate::api::http::error::{ApiError, ErrorBody};
use crate::api::http::extract::ApiJson;
use crate::api::http::path_param::ApiPath;
use crate::commands::api_keys::{self, MAX_KEYS, MAX_OVERLAP_SECS};
use crate::config::operators::valid_name;
use crate::domain::key_scope::{KeyScope, MAX_SCOPES};
use crate::domain::names::alternatives;
use crate::domain::rate_limit::Bucket;
use crate::queries::api_keys::{self as views, ApiKeyView};

/// A key's name as `config::operators::valid_name` takes it.
fn key_name() -> utoipa::openapi::Object {
    let max = crate::config::operators::MAX_NAME_LEN;
    utoipa::openapi::ObjectBuilder::new()
        .schema_type(utoipa::openapi::Type::String)
        .pattern(Some(format!("^[A-Za-z0-9._-]{{1,{max}}}$")))
        .build()
}

#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct CreateKey {
    #[schema(schema_with = key_name)]
    /// 1 to 64 of `A-Za-z0-9._-`, unique among live keys: the app's name
    /// in events and the audit.
    pub name: String,
    /// `orders`, `wallets:read`, `redemptions`, `reports:read` (1 to 100).
    #[schema(schema_with = crate::api::http::schemas::scopes)]
    pub scopes: Vec<String>,
    /// The key's own request rate, per server (a token bucket: `per_second`
    /// and `burst`, each 1 to 1,000,000); absent: none. Past it: 429.
    pub rate_limit: Option<Bucket>,
}

/// A key as made or rotated: the key is shown in this answer only.
#[derive(Serialize, ToSchema)]
pub struct IssuedKey {
    pub id: Uuid,
    pub name: String,
    /// The bearer token the app sends; null in an Idempotency-Key replay
    /// (the stored answer never holds it).
    pub key: Option<String>,
    pub key_shown: bool,
}

impl IssuedKey {
    fn shown(id: Uuid, name: String, key: String) -> Self {
        let key = Some(key);
        Self {
            id,
            name,
            key,
            key_shown: true,
        }
    }

    /// What a replay answers: the key is never stored.
    fn hidden(&self) -> Self {
        let name = self.name.clone();
        Self {
            id: self.id,
            name,
            key: None,
            key_shown: false,
        }
    }
}

/// The key's id, in the path.
#[derive(IntoParams)]
#[into_params(parameter_in = Path)]
pub struct KeyPath {
    pub id: Uuid,
}

/// The scopes asked for: each known, at least one, at most [`MAX_SCOPES`].
fn scopes(asked: &[String]) -> Result<Vec<KeyScope>, ApiError> {
    if asked.is_empty() || asked.len() > MAX_SCOPES {
        return Err(ApiError::invalid_field(format!(
            "scopes: 1 to {MAX_SCOPES} of {}",
            alternatives::<KeyScope>()
        )));
    }
    let unknown: Vec<&str> = asked
        .iter()
        .filter(|s| s.parse::<KeyScope>().is_err())
        .map(String::as_str)
        .collect();
    if !unknown.is_empty() {
        let known = alternatives::<KeyScope>();
        return Err(ApiError::invalid_field(format!(
            "scopes: unknown {unknown:?} (scopes: {known})"
        )));
    }
    let mut scopes: Vec<KeyScope> = asked.iter().filter_map(|s| s.parse().ok()).collect();
    scopes.sort();
    scopes.dedup();
    Ok(scopes)
}

/// Make an app key with its scopes; the answer holds the key, shown only
/// this once.
#[utoipa::path(post, path = "/v1/api-keys", operation_id = "create_api_key", tag = "keys",
    request_body = CreateKey, security(("admin" = [])),
    responses((status = 201, body = IssuedKey),
        (status = 400, body = ErrorBody, description = "a bad name, an unknown scope (named), or more than 100 scopes"),
        (status = 409, body = ErrorBody, description = "a live key has the name (`key_name_taken`), or 1,000 keys are live (`too_many_keys`)")))]
pub async fn create(
    State(state): State<AppState>,
    ctx: Ctx,
    body: ApiJson<CreateKey>,
) -> Result<Response, ApiError> {
    let name = body.value.name.clone();
    if !valid_name(&name) {
        return Err(ApiError::invalid_field(
            "name: 1 to 64 of A-Z a-z 0-9 . _ -",
        ));
    }
    let scopes = scopes(&body.value.scopes)?;
    let rate_limit = body.value.rate_limit;
    let rate_limit = rate_limit.map(|b| b.validate("rate_limit")).transpose();
    let rate_limit = rate_limit.map_err(|e| ApiError::invalid_field(e.to_string()))?;
    let (metadata, now) = (ctx.principal_metadata(), state.now());
    let status = StatusCode::CREATED;
    let hash = &body.hash;
    ctx.write_stored_as(
        &state,
        "admin",
        hash,
        status,
        |tx| {
            Box::pin(async move {
                let key = (name.as_str(), &scopes[..], rate_limit);
                let made = api_keys::create(tx, key, &metadata, now).await?;
                Ok(IssuedKey::shown(made.id, name, made.key))
            })
        },
        IssuedKey::hidden,
    )
    .await
}

#[derive(Serialize, ToSchema)]
pub struct KeyList {
    pub keys: Vec<ApiKeyView>,
}

/// Every key, live ones first (the 1,000 live ones and the most recent
/// revoked ones, up to 2,000 in all), never a key.
#[utoipa::path(get, path = "/v1/api-keys", operation_id = "list_api_keys", tag = "keys",
    security(("admin" = [])), responses((status = 200, body = KeyList)))]
pub async fn list(State(state): State<AppState>) -> Result<Json<KeyList>, ApiError> {
    let client = state.pool.get().await?;
    let keys = views::list(&**client, state.now(), 2 * MAX_KEYS).await?;
    Ok(Json(KeyList { keys }))
}

/// One key: scopes, times, when it was last used; never the key.
#[utoipa::path(get, path = "/v1/api-keys/{id}", operation_id = "read_api_key", tag = "keys",
    params(KeyPath), security(("admin" = [])),
    responses((status = 200, body = ApiKeyView), (status = 404, body = ErrorBody)))]
pub async fn read(
    State(state): State<AppState>,
    ApiPath(id): ApiPath<Uuid>,
) -> Result<Json<ApiKeyView>, ApiError> {
    let client = state.pool.get().await?;
    let key = views::read(&**client, id, state.now()).await?;
    key.map(Json)
        .ok_or_else(|| ApiError::not_found("api key", id))
}

#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct Rotate {
    /// Seconds the old key keeps working (0 to 604,800: a week).
    #[schema(schema_with = crate::api::http::schemas::range::<0, MAX_OVERLAP_SECS>)]
    pub overlap_secs: i64,
}

/// A new key for the same app; the old one keeps working for
/// `overlap_secs`, then is 401 `key_revoked`.
#[utoipa::path(post, path = "/v1/api-keys/{id}/rotate", operation_id = "rotate_api_key",
    tag = "keys", params(KeyPath), request_body = Rotate, security(("admin" = [])),
    responses((status = 200, body = IssuedKey), (status = 400, body = ErrorBody),
        (status = 404, body = ErrorBody), (status = 409, body = ErrorBody, description = "the key is revoked (`key_revoked`)")))]
pub async fn rotate(
    State(state): State<AppState>,
    ctx: Ctx,
    ApiPath(id): ApiPath<Uuid>,
    body: ApiJson<Rotate>,
) -> Result<Response, ApiError> {
    let secs = body.value.overlap_secs;
    if !(0..=MAX_OVERLAP_SECS).contains(&secs) {
        return Err(ApiError::invalid_field(format!(
            "overlap_secs: 0 to {MAX_OVERLAP_SECS}"
        )));
    }
    let (metadata, now) = (ctx.principal_metadata(), state.now());
    let overlap = Duration::seconds(secs);
    ctx.write_stored_as(
        &state,
        "admin",
        &body.hash,
        StatusCode::OK,
        |tx| {
            Box::pin(async move {
                let made = api_keys::rotate(tx, id, overlap, &metadata, now).await?;
                Ok(IssuedKey::shown(id, made.name, made.key))
            })
        },
        IssuedKey::hidden,
    )
    .await
}

#[derive(Serialize, ToSchema)]
pub struct Revoked {
    pub id: Uuid,
    pub revoked_at: Option<DateTime<Utc>>,
}

/// Revoke the key (both its secrets): every server refuses it within 5 s
/// (401 `key_revoked`). Revoking a revoked key answers it as it is.
#[utoipa::path(post, path = "/v1/api-keys/{id}/revoke", operation_id = "revoke_api_key",
    tag = "keys", params(KeyPath), security(("admin" = [])),
    responses((status = 200, body = Revoked), (status = 404, body = ErrorBody)))]
pub async fn revoke(
    State(state): State<AppState>,
    ctx: Ctx,
    ApiPath(id): ApiPath<Uuid>,
) -> Result<Response, ApiError> {
    let (metadata, now) = (ctx.principal_metadata(), state.now());
    let hash = crate::exactly_once::idempotency::request_hash(&[id.as_bytes()]);
    ctx.write(&state, "admin", &hash, StatusCode::OK, move |tx| {
        Box::pin(async move {
            api_keys::revoke(tx, id, &metadata, now).await?;
            let key = crate::queries::api_keys::read(&**tx, id, now).await?;
            let key = key.ok_or_else(|| ApiError::not_found("api key", id))?;
            Ok(Revoked {
                id,
                revoked_at: key.revoked_at,
            })
        })
    })
    .await
}
