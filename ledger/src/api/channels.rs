//! `POST /v1/channels`: create a distribution channel and its signing secret.

use axum::extract::State;
use axum::http::StatusCode;
use axum::response::Response;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;
use uuid::Uuid;

use super::AppState;
use super::auth::Admin;
use super::context::Ctx;
use super::error::{ApiError, ErrorBody};
use super::extract::ApiJson;
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
    /// The HMAC secret: shown once, here; store it on the channel's side.
    pub secret: String,
}

/// Create a channel; the answer carries its secret, shown only this once.
#[utoipa::path(post, path = "/v1/channels", tag = "channels", request_body = CreateChannel,
    security(("admin" = [])),
    responses((status = 201, body = CreatedChannel), (status = 400, body = ErrorBody)))]
pub async fn create(
    State(state): State<AppState>,
    _: Admin,
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
    let (metadata, now, name) = (ctx.metadata("admin"), state.now(), name.to_owned());
    ctx.write(&state, "admin", &body.hash, StatusCode::CREATED, |tx| {
        Box::pin(async move {
            let created = channels::create(tx, &name, &metadata, now).await?;
            Ok(CreatedChannel {
                id: created.id,
                name,
                secret: created.secret,
            })
        })
    })
    .await
}
