//! `/v1/templates/{sn}/channels`: which channels may issue a template.

use axum::extract::State;
use axum::http::StatusCode;
use axum::response::Response;
use serde::Deserialize;
use utoipa::{IntoParams, ToSchema};
use uuid::Uuid;

use crate::api::AppState;
use crate::api::auth::principal::Principal;
use crate::api::http::context::Ctx;
use crate::api::http::error::{ApiError, ErrorBody};
use crate::api::http::extract::ApiJson;
use crate::api::http::path_param::ApiPath;
use crate::commands::templates;
use crate::domain::ids::{ChannelId, TemplateSn};
use crate::queries::templates::TemplateView;

use super::templates::{SN, current};

#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct AllowChannel {
    #[schema(value_type = Uuid)]
    pub channel_id: ChannelId,
}

/// Allow a channel to issue this template.
#[utoipa::path(post, path = "/v1/templates/{sn}/channels", operation_id = "allow_channel",
    tag = "templates", request_body = AllowChannel, params(SN),
    security(("admin" = [])),
    responses((status = 200, body = TemplateView), (status = 404, body = ErrorBody),
        (status = 409, body = ErrorBody)))]
pub async fn allow_channel(
    State(state): State<AppState>,
    _: Principal,
    ctx: Ctx,
    ApiPath(sn): ApiPath<TemplateSn>,
    body: ApiJson<AllowChannel>,
) -> Result<Response, ApiError> {
    let (metadata, now, channel) = (ctx.principal_metadata(), state.now(), body.value.channel_id);
    let today = state.today();
    let changed = sn.clone();
    let response = ctx
        .write(&state, "admin", &body.hash, StatusCode::OK, |tx| {
            Box::pin(async move {
                templates::allow_channel(tx, &sn, channel, &metadata, now).await?;
                current(tx, &sn, today).await
            })
        })
        .await;
    // The channel's claims enter this process's gate at once (until then
    // they are written alone).
    state.flash.template_changed(&changed).await;
    response
}

/// The template's serial number and a channel's id, in the path: how the
/// OpenAPI document names what `ApiPath<TemplateSn>` and `ApiPath<ChannelId>`
/// parse.
#[derive(IntoParams)]
#[into_params(parameter_in = Path)]
pub struct TemplateChannel {
    /// The template's serial number.
    pub sn: String,
    /// The channel's id.
    pub id: Uuid,
}

/// Remove a channel from the template: it can no longer claim it (403, as
/// any channel not on the list). 404 when the template is unknown or the
/// channel is not on its list.
#[utoipa::path(delete, path = "/v1/templates/{sn}/channels/{id}", operation_id = "remove_template_channel",
    tag = "templates",
    params(TemplateChannel), security(("admin" = [])),
    responses((status = 200, body = TemplateView), (status = 404, body = ErrorBody)))]
pub async fn remove_channel(
    State(state): State<AppState>,
    _: Principal,
    ctx: Ctx,
    // The channel's id first: a malformed one is refused (400) before an sn
    // that names nothing (404), as when both were parsed together.
    ApiPath(channel): ApiPath<ChannelId>,
    ApiPath(sn): ApiPath<TemplateSn>,
) -> Result<Response, ApiError> {
    let hash = crate::exactly_once::idempotency::request_hash(&[
        sn.as_str().as_bytes(),
        b"remove channel",
        channel.0.as_bytes(),
    ]);
    let (metadata, now, changed) = (ctx.principal_metadata(), state.now(), sn.clone());
    let today = state.today();
    let response = ctx
        .write(&state, "admin", &hash, StatusCode::OK, |tx| {
            Box::pin(async move {
                templates::remove_channel(tx, &sn, channel, &metadata, now).await?;
                current(tx, &sn, today).await
            })
        })
        .await;
    // This process's gate stops admitting the channel at once; the others
    // within their cache's 2 s, and their batches refuse it meanwhile.
    state.flash.template_changed(&changed).await;
    response
}
