//! `POST /v1/channels`: create a distribution channel and its signing
//! secret; `GET /v1/channels`, `GET /v1/channels/{id}`: read them (never a
//! secret). Disable, enable and rotate: `channel_lifecycle`.

use axum::extract::State;
use axum::http::StatusCode;
use axum::response::Response;
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};
use uuid::Uuid;

use crate::api::AppState;
use crate::api::auth::principal::Principal;
use crate::api::http::context::Ctx;
use crate::api::http::error::{ApiError, ErrorBody};
use crate::api::http::extract::ApiJson;
use crate::api::http::path_param::ApiPath;
use crate::commands::channels;
use crate::domain::ids::ChannelId;
use crate::queries;
use crate::queries::channels::ChannelView;

const MAX_NAME_LEN: usize = 200;

#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct CreateChannel {
    #[schema(schema_with = crate::api::http::schemas::name::<MAX_NAME_LEN>)]
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
#[utoipa::path(post, path = "/v1/channels", operation_id = "create_channel",
    tag = "channels", request_body = CreateChannel,
    security(("admin" = [])),
    responses((status = 201, body = CreatedChannel), (status = 400, body = ErrorBody)))]
pub async fn create(
    State(state): State<AppState>,
    _: Principal,
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
    let (metadata, now, name) = (ctx.principal_metadata(), state.now(), name.to_owned());
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

#[derive(Serialize, ToSchema)]
pub struct ChannelList {
    pub channels: Vec<ChannelView>,
}

/// Every channel (at most 1,000), by name, with its status: the console
/// lists them, names a template's channels and offers them to allow.
#[utoipa::path(get, path = "/v1/channels", operation_id = "list_channels", tag = "channels",
    security(("admin" = [])),
    responses((status = 200, body = ChannelList), (status = 401, body = ErrorBody),
        (status = 403, body = ErrorBody)))]
pub async fn list(
    State(state): State<AppState>,
    _: Principal,
) -> Result<axum::Json<ChannelList>, ApiError> {
    let client = state.pool.get().await?;
    let channels = queries::channels::list(&**client, state.now()).await?;
    Ok(axum::Json(ChannelList { channels }))
}

/// The channel's id, in the path: how the OpenAPI document names what
/// `ApiPath<ChannelId>` parses.
#[derive(IntoParams)]
#[into_params(parameter_in = Path)]
pub struct ChannelPath {
    /// The channel's id.
    pub id: Uuid,
}

/// One channel: its status and the age of its secrets, never a secret.
#[utoipa::path(get, path = "/v1/channels/{id}", operation_id = "read_channel",
    tag = "channels", params(ChannelPath),
    security(("admin" = [])),
    responses((status = 200, body = ChannelView), (status = 404, body = ErrorBody)))]
pub async fn read(
    State(state): State<AppState>,
    _: Principal,
    ApiPath(id): ApiPath<ChannelId>,
) -> Result<axum::Json<ChannelView>, ApiError> {
    let client = state.pool.get().await?;
    let view = queries::channels::read(&**client, id, state.now()).await?;
    view.map(axum::Json)
        .ok_or_else(|| ApiError::not_found("channel", id))
}
