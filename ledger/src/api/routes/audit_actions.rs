//! `GET /v1/audit/actions`: who did what (docs/design.md §19), from the
//! events: each event an operator's or an app's request wrote, with the
//! principal its metadata names, oldest first; the next page starts
//! `after` the last position shown.

use axum::Json;
use axum::extract::State;
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};

use crate::api::AppState;
use crate::api::http::error::{ApiError, ErrorBody};
use crate::api::http::extract::ApiQuery;
use crate::queries::actions::{self, Action, Filter, MAX_FILTER_LEN, MAX_PAGE};

#[derive(Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(deny_unknown_fields)]
pub struct ActionsQuery {
    /// An operator's name (at most 64 characters).
    #[param(value_type = Option<crate::api::http::schemas::FilterName>, inline)]
    pub operator: Option<String>,
    /// An app key's id or name (`service` for the service token; at most
    /// 64 characters).
    #[param(value_type = Option<crate::api::http::schemas::FilterName>, inline)]
    pub api_key: Option<String>,
    /// From this instant (RFC 3339), included.
    pub from: Option<DateTime<Utc>>,
    /// Before this instant, excluded.
    pub to: Option<DateTime<Utc>>,
    /// After this position (the `next_after` of the page before).
    pub after: Option<i64>,
    /// 1 to 500; default 100.
    #[param(value_type = Option<crate::api::http::schemas::ActionPageLimit>, inline)]
    pub limit: Option<i64>,
}

#[derive(Serialize, ToSchema)]
pub struct ActionPage {
    pub actions: Vec<Action>,
    /// The position to ask `after` for the next page; null at the end.
    pub next_after: Option<i64>,
}

/// Who did what: the events of operators' and apps' requests.
#[utoipa::path(get, path = "/v1/audit/actions", operation_id = "audit_actions", tag = "finance",
    params(ActionsQuery), security(("admin" = [])),
    responses((status = 200, body = ActionPage), (status = 400, body = ErrorBody)))]
pub async fn actions(
    State(state): State<AppState>,
    ApiQuery(q): ApiQuery<ActionsQuery>,
) -> Result<Json<ActionPage>, ApiError> {
    let limit = q.limit.unwrap_or(100);
    if !(1..=MAX_PAGE).contains(&limit) {
        return Err(ApiError::bad_request(format!("limit: 1 to {MAX_PAGE}")));
    }
    let long = [&q.operator, &q.api_key]
        .into_iter()
        .flatten()
        .any(|v| v.chars().count() > MAX_FILTER_LEN);
    if long {
        return Err(ApiError::bad_request(format!(
            "operator, api_key: at most {MAX_FILTER_LEN} characters"
        )));
    }
    let after = q.after.unwrap_or(0).max(0);
    let filter = Filter {
        operator: q.operator.as_deref(),
        api_key: q.api_key.as_deref(),
        from: q.from,
        to: q.to,
        after,
        limit,
    };
    let client = state.pool.get().await?;
    let actions = actions::list(&**client, &filter).await?;
    let full = i64::try_from(actions.len()).is_ok_and(|n| n == limit);
    let next_after = actions.last().filter(|_| full).map(|a| a.position);
    Ok(Json(ActionPage {
        actions,
        next_after,
    }))
}
