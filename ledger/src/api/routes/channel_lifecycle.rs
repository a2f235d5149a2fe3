//! A channel's lifecycle (docs/design.md §15): `POST /v1/channels/{id}/disable`,
//! `/enable`, and `/secret` (rotate, answering the new secret once).

use axum::extract::State;
use axum::http::StatusCode;
use axum::response::Response;
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;
use uuid::Uuid;

use super::channels::ChannelPath;
use crate::api::AppState;
use crate::api::auth::principal::Principal;
use crate::api::http::context::Ctx;
use crate::api::http::error::{ApiError, ErrorBody};
use crate::api::http::extract::ApiJson;
use crate::api::http::path_param::ApiPath;
use crate::commands::channel_lifecycle;
use crate::domain::channel::{self, ChannelStatus};
use crate::domain::ids::ChannelId;
use crate::queries;
use crate::queries::channels::ChannelView;

/// Disable a channel: its signed requests (claims, redemptions, package
/// claims, package-job reads) answer 403 `channel_disabled`, in every
/// `serve` process within 5 s. Disabling a disabled channel changes nothing.
#[utoipa::path(post, path = "/v1/channels/{id}/disable", operation_id = "disable_channel",
    tag = "channels", params(ChannelPath),
    security(("admin" = [])),
    responses((status = 200, body = ChannelView), (status = 404, body = ErrorBody)))]
pub async fn disable(
    State(state): State<AppState>,
    admin: Principal,
    ctx: Ctx,
    ApiPath(id): ApiPath<ChannelId>,
) -> Result<Response, ApiError> {
    change_status(state, ctx, &admin, id, ChannelStatus::Disabled).await
}

/// Enable a disabled channel again: its signed requests are served.
/// Enabling an active channel changes nothing.
#[utoipa::path(post, path = "/v1/channels/{id}/enable", operation_id = "enable_channel",
    tag = "channels", params(ChannelPath),
    security(("admin" = [])),
    responses((status = 200, body = ChannelView), (status = 404, body = ErrorBody)))]
pub async fn enable(
    State(state): State<AppState>,
    admin: Principal,
    ctx: Ctx,
    ApiPath(id): ApiPath<ChannelId>,
) -> Result<Response, ApiError> {
    change_status(state, ctx, &admin, id, ChannelStatus::Active).await
}

async fn change_status(
    state: AppState,
    ctx: Ctx,
    _: &Principal,
    id: ChannelId,
    to: ChannelStatus,
) -> Result<Response, ApiError> {
    let hash = crate::exactly_once::idempotency::request_hash(&[
        id.to_string().as_bytes(),
        to.as_str().as_bytes(),
    ]);
    let (metadata, now) = (ctx.principal_metadata(), state.now());
    let response = ctx
        .write(&state, "admin", &hash, StatusCode::OK, |tx| {
            Box::pin(async move {
                channel_lifecycle::set_status(tx, id, to, &metadata, now).await?;
                current(tx, id, now).await
            })
        })
        .await;
    // This process refuses (or serves) the channel at once; others within
    // the secret cache's TTL.
    state.secrets.forget(id);
    response
}

/// The channel as the write left it.
async fn current(
    tx: &deadpool_postgres::Transaction<'_>,
    id: ChannelId,
    now: DateTime<Utc>,
) -> Result<ChannelView, ApiError> {
    let view = queries::channels::read(&**tx, id, now).await?;
    view.ok_or_else(|| ApiError::Internal(anyhow::anyhow!("channel {id} written is not there")))
}

#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct RotateSecret {
    /// How long the replaced secret keeps verifying signatures, in seconds:
    /// 0 to 2592000 (30 days); absent: 86400 (a day).
    #[schema(schema_with = crate::api::http::schemas::range_or_null::<0, { channel::MAX_OVERLAP_SECS }>)]
    pub overlap_secs: Option<i64>,
}

#[derive(Serialize, ToSchema)]
pub struct RotatedSecret {
    pub id: Uuid,
    /// The new HMAC secret: shown once, in this answer; null in an
    /// Idempotency-Key replay.
    pub secret: Option<String>,
    /// true in the first answer; false in a replay, whose secret is null.
    pub secret_shown: bool,
    pub secret_created_at: DateTime<Utc>,
    /// The replaced secret verifies signatures until then (exclusive).
    pub previous_secret_valid_until: DateTime<Utc>,
}

/// Rotate the channel's secret: the answer carries the new secret, shown
/// only this once; the replaced one keeps verifying until
/// `previous_secret_valid_until`. Only the latest replaced secret overlaps:
/// rotating again ends the one before at once.
#[utoipa::path(post, path = "/v1/channels/{id}/secret", operation_id = "rotate_channel_secret",
    tag = "channels", params(ChannelPath),
    request_body = RotateSecret, security(("admin" = [])),
    responses((status = 200, body = RotatedSecret), (status = 404, body = ErrorBody)))]
pub async fn rotate(
    State(state): State<AppState>,
    _: Principal,
    ctx: Ctx,
    ApiPath(channel_id): ApiPath<ChannelId>,
    body: ApiJson<RotateSecret>,
) -> Result<Response, ApiError> {
    let overlap =
        channel::overlap(body.value.overlap_secs).map_err(|message| ApiError::BadRequest {
            code: "invalid_field",
            message,
        })?;
    let (metadata, now, secrets) = (ctx.principal_metadata(), state.now(), state.secrets.clone());
    // The answer a replay gets: the times, without the secret.
    let replayable = |a: &RotatedSecret| RotatedSecret {
        secret: None,
        secret_shown: false,
        ..*a
    };
    let response = ctx
        .write_stored_as(
            &state,
            "admin",
            &body.hash,
            StatusCode::OK,
            |tx| {
                Box::pin(async move {
                    let keys = secrets.keys();
                    let r =
                        channel_lifecycle::rotate(tx, keys, channel_id, overlap, &metadata, now);
                    let rotated = r.await?;
                    Ok(RotatedSecret {
                        id: channel_id.0,
                        secret: Some(rotated.secret),
                        secret_shown: true,
                        secret_created_at: rotated.rotated_at,
                        previous_secret_valid_until: rotated.previous_valid_until,
                    })
                })
            },
            replayable,
        )
        .await;
    state.secrets.forget(channel_id);
    response
}
