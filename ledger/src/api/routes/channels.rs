//! `POST /v1/channels`: create a distribution channel and its signing secret.

use axum::extract::State;
use axum::http::StatusCode;
use axum::response::Response;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;
use uuid::Uuid;

use crate::api::AppState;
use crate::api::auth::tokens::Admin;
use crate::api::http::context::Ctx;
use crate::api::http::error::{ApiError, ErrorBody};
use crate::api::http::extract::ApiJson;
use crate::commands::channels;

const MAX_NAME_LEN: usize = 200;

#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct CreateChannel {
    pub name: String,
}

#[derive(Serialize, ToSchema)]
pub struct CreatedChannel {
    pub id: Uuid,
    pub name: String,
    /// The HMAC secret: shown once, in the first answer; store it on the
    /// channel's side. null in an Idempotency-Key replay.
    pub secret: Option<String>,
    /// true in the first answer; false in a replay, whose secret is null
    /// (the stored response never holds the secret).
    pub secret_shown: bool,
}

/// Create a channel; the answer carries its secret, shown only this once: an
/// Idempotency-Key replay answers the channel with `secret: null,
/// secret_shown: false`.
#[utoipa::path(post, path = "/v1/channels", tag = "channels", request_body = CreateChannel,
    security(("admin" = [])),
    responses((status = 201, body = CreatedChannel), (status = 400, body = ErrorBody)))]
pub async fn create(
    State(state): State<AppState>,
    admin: Admin,
    ctx: Ctx,
    body: ApiJson<CreateChannel>,
) -> Result<Response, ApiError> {
    let name = body.value.name.trim();
    if name.is_empty() || name.chars().count() > MAX_NAME_LEN {
        return Err(ApiError::BadRequest {
            code: "invalid_field",
            message: "name: must be 1 to 200 characters".into(),
        });
    }
    let (metadata, now, name) = (ctx.admin_metadata(&admin), state.now(), name.to_owned());
    let secrets = state.secrets.clone();
    // The answer a replay gets: the channel without its secret.
    let replayable = |answer: &CreatedChannel| CreatedChannel {
        id: answer.id,
        name: answer.name.clone(),
        secret: None,
        secret_shown: false,
    };
    let status = StatusCode::CREATED;
    ctx.write_stored_as(
        &state,
        "admin",
        &body.hash,
        status,
        |tx| {
            Box::pin(async move {
                let created = channels::create(tx, secrets.keys(), &name, &metadata, now).await?;
                Ok(CreatedChannel {
                    id: created.id,
                    name,
                    secret: Some(created.secret),
                    secret_shown: true,
                })
            })
        },
        replayable,
    )
    .await
}

/// A channel, without its secret.
#[derive(Serialize, ToSchema)]
pub struct ChannelView {
    pub id: Uuid,
    pub name: String,
    pub created_at: chrono::DateTime<chrono::Utc>,
}

#[derive(Serialize, ToSchema)]
pub struct ChannelList {
    pub channels: Vec<ChannelView>,
}

/// The most channels listed.
pub const MAX_LISTED: i64 = 1_000;

/// Every channel (at most 1,000), by name: the console names a template's
/// channels and offers them to allow.
#[utoipa::path(get, path = "/v1/channels", tag = "channels",
    security(("admin" = [])),
    responses((status = 200, body = ChannelList), (status = 401, body = ErrorBody),
        (status = 403, body = ErrorBody)))]
pub async fn list(
    State(state): State<AppState>,
    _: Admin,
) -> Result<axum::Json<ChannelList>, ApiError> {
    let client = state.pool.get().await?;
    let rows = client
        .query(
            "SELECT id, name, created_at FROM channels ORDER BY name, id LIMIT $1",
            &[&MAX_LISTED],
        )
        .await?;
    let channels = rows
        .iter()
        .map(|r| ChannelView {
            id: r.get(0),
            name: r.get(1),
            created_at: r.get(2),
        })
        .collect();
    Ok(axum::Json(ChannelList { channels }))
}
