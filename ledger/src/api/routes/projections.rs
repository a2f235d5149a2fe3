//! `GET /v1/users/{uid}/balance` and `GET /v1/templates/{sn}/stats`: the
//! projections, each with the position it reflects. They trail the event
//! log by what the relay and the projection workers have not applied yet.

use axum::Json;
use axum::extract::State;
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};

use crate::api::AppState;
use crate::api::auth::principal::Principal;
use crate::api::http::error::{ApiError, ErrorBody};
use crate::api::http::extract::ApiQuery;
use crate::api::http::path_param::ApiPath;
use crate::api::routes::coupons::UserPath;
use crate::api::routes::templates::SN;
use crate::domain::ids::{TemplateSn, UserId};
use crate::domain::wallet_order::{self, DEFAULT_EXPIRING_WITHIN_DAYS};
use crate::projections::read::{self, Balance, TemplateStats};
use crate::queries::template_budget::{self, BudgetView};
use crate::queries::templates as queries;
use crate::queries::wallet::{self, ExpiringSoon};

/// How far ahead `/balance` looks for coupons about to expire.
#[derive(Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(deny_unknown_fields)]
pub struct BalanceQuery {
    /// 1 to 366 days, default 3.
    #[param(value_type = Option<crate::api::http::schemas::WithinDays>, inline)]
    pub expiring_within_days: Option<i64>,
}

/// A user's balance: the projection's counts and face values by status,
/// and what expires soon (read from the coupons themselves).
#[derive(Serialize, ToSchema)]
pub struct UserBalance {
    #[serde(flatten)]
    pub balance: Balance,
    pub expiring_soon: ExpiringSoon,
}

/// A user's coupons by status: count and face value (projection
/// `balances`), and the unused ones expiring within the days asked.
#[utoipa::path(get, path = "/v1/users/{uid}/balance", operation_id = "user_balance",
    tag = "projections", params(UserPath, BalanceQuery),
    security(("service" = [])),
    responses((status = 200, body = UserBalance), (status = 400, body = ErrorBody)))]
pub async fn balance(
    State(state): State<AppState>,
    _: Principal,
    ApiPath(user): ApiPath<UserId>,
    ApiQuery(q): ApiQuery<BalanceQuery>,
) -> Result<Json<UserBalance>, ApiError> {
    let days = q
        .expiring_within_days
        .map_or(Ok(DEFAULT_EXPIRING_WITHIN_DAYS), wallet_order::within_days)
        .map_err(ApiError::invalid_field)?;
    // Lag-tolerant: a replica that keeps up (docs/design.md §17).
    let client = state.reads.pick().get().await?;
    let balance = read::balance(&**client, user.as_str()).await?;
    let expiring_soon = wallet::expiring_soon(&**client, user.as_str(), days, state.now()).await?;
    Ok(Json(UserBalance {
        balance,
        expiring_soon,
    }))
}

/// A template's numbers: the projection's, and its budget's (read from the
/// write model, which guards it).
#[derive(Serialize, ToSchema)]
pub struct TemplateNumbers {
    #[serde(flatten)]
    pub stats: TemplateStats,
    /// Spent, reserved and left of its budget (docs/design.md §15,
    /// "Budgets"); absent: no budget.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub budget: Option<BudgetView>,
}

/// A template's coupons by status, liability and cost (projection
/// `template_stats`), and its budget's spent, reserved and left.
#[utoipa::path(get, path = "/v1/templates/{sn}/stats", operation_id = "template_stats",
    tag = "projections", params(SN),
    security(("admin" = [])),
    responses((status = 200, body = TemplateNumbers), (status = 404, body = ErrorBody)))]
pub async fn template_stats(
    State(state): State<AppState>,
    _: Principal,
    ApiPath(sn): ApiPath<TemplateSn>,
) -> Result<Json<TemplateNumbers>, ApiError> {
    // Lag-tolerant: a replica that keeps up (docs/design.md §17).
    let client = state.reads.pick().get().await?;
    if !queries::exists(&**client, &sn).await? {
        return Err(ApiError::not_found("template", sn.as_str()));
    }
    let stats = read::template_stats(&**client, sn.as_str()).await?;
    let budget = template_budget::view_of(&**client, sn.as_str(), state.today()).await?;
    Ok(Json(TemplateNumbers { stats, budget }))
}
