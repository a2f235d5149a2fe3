//! `GET /v1/users/{uid}/balance` and `GET /v1/templates/{sn}/stats`: the
//! projections, each with the position it reflects. They trail the event
//! log by what the relay and the projection workers have not applied yet.

use axum::Json;
use axum::extract::State;

use crate::api::AppState;
use crate::api::auth::principal::Principal;
use crate::api::http::error::{ApiError, ErrorBody};
use crate::api::http::path_param::ApiPath;
use crate::api::routes::coupons::UserPath;
use crate::api::routes::templates::SN;
use crate::domain::ids::{TemplateSn, UserId};
use crate::projections::read::{self, Balance, TemplateStats};
use crate::queries::templates as queries;

/// A user's coupons by status: count and face value (projection `balances`).
#[utoipa::path(get, path = "/v1/users/{uid}/balance", operation_id = "user_balance",
    tag = "projections", params(UserPath),
    security(("service" = [])),
    responses((status = 200, body = Balance), (status = 400, body = ErrorBody)))]
pub async fn balance(
    State(state): State<AppState>,
    _: Principal,
    ApiPath(user): ApiPath<UserId>,
) -> Result<Json<Balance>, ApiError> {
    // Lag-tolerant: a replica that keeps up (docs/design.md §17).
    let client = state.reads.pick().get().await?;
    Ok(Json(read::balance(&**client, user.as_str()).await?))
}

/// A template's coupons by status, liability and cost (projection `template_stats`).
#[utoipa::path(get, path = "/v1/templates/{sn}/stats", operation_id = "template_stats",
    tag = "projections", params(SN),
    security(("admin" = [])),
    responses((status = 200, body = TemplateStats), (status = 404, body = ErrorBody)))]
pub async fn template_stats(
    State(state): State<AppState>,
    _: Principal,
    ApiPath(sn): ApiPath<TemplateSn>,
) -> Result<Json<TemplateStats>, ApiError> {
    // Lag-tolerant: a replica that keeps up (docs/design.md §17).
    let client = state.reads.pick().get().await?;
    if !queries::exists(&**client, &sn).await? {
        return Err(ApiError::not_found("template", sn.as_str()));
    }
    Ok(Json(read::template_stats(&**client, sn.as_str()).await?))
}
