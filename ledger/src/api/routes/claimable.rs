//! `GET /v1/users/{uid}/claimable?channel_id=`: the templates a user can
//! still claim from a channel, paged (docs/design.md §15, "What apps can
//! read").

use axum::Json;
use axum::extract::State;
use serde::Deserialize;
use utoipa::IntoParams;
use uuid::Uuid;

use crate::api::AppState;
use crate::api::auth::principal::Principal;
use crate::api::http::error::{ApiError, ErrorBody};
use crate::api::http::extract::{self, ApiQuery};
use crate::api::http::path_param::ApiPath;
use crate::api::routes::coupons::UserPath;
use crate::domain::eligibility::UserFacts;
use crate::domain::ids::{ChannelId, UserId};
use crate::queries::claimable::{self, Asker, ClaimablePage, MAX_PAGE};

/// Which channel the user would claim through, the page, and what the
/// caller vouches for about the user (as a claim's body would).
#[derive(Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(deny_unknown_fields)]
pub struct ClaimableQuery {
    /// The channel the user would claim through.
    #[param(required = true, value_type = Uuid)]
    pub channel_id: Option<String>,
    /// Default 0.
    #[param(value_type = Option<crate::api::http::schemas::Offset>, inline)]
    pub offset: Option<i64>,
    /// 1 to 200, default 50.
    #[param(value_type = Option<crate::api::http::schemas::ClaimablePageLimit>, inline)]
    pub limit: Option<i64>,
    /// The user's tags, comma-separated (at most 100, each 1 to 64 bytes).
    #[param(value_type = Option<crate::api::http::schemas::TagList>, inline)]
    pub user_tags: Option<String>,
    /// The user's region.
    #[param(value_type = Option<crate::api::http::schemas::Region>, inline)]
    pub region: Option<String>,
    /// Whether the user is new (for templates for new users only).
    pub new_user: Option<bool>,
}

/// The active templates this user can still claim from the channel now:
/// in their issue window, their coupons not already expired, listing the
/// channel (an enabled one), the user eligible as far as the given facts
/// and the allow-list tell, under the per-user limit, stock left. Newest
/// first, paged; 404 for an unknown channel.
#[utoipa::path(get, path = "/v1/users/{uid}/claimable", operation_id = "user_claimable",
    tag = "coupons",
    params(UserPath, ClaimableQuery), security(("service" = []), ("admin" = [])),
    responses((status = 200, body = ClaimablePage), (status = 400, body = ErrorBody),
        (status = 404, body = ErrorBody)))]
pub async fn claimable(
    State(state): State<AppState>,
    _: Principal,
    ApiPath(user): ApiPath<UserId>,
    ApiQuery(q): ApiQuery<ClaimableQuery>,
) -> Result<Json<ClaimablePage>, ApiError> {
    let channel = match q.channel_id.as_deref() {
        None => return Err(ApiError::invalid_field("channel_id: required")),
        Some(raw) => raw
            .parse::<Uuid>()
            .map(ChannelId)
            .map_err(|_| ApiError::invalid_field("channel_id: must be a channel's id (a UUID)"))?,
    };
    let bounds = extract::page_bounds(q.offset, q.limit, MAX_PAGE)?;
    let tags: Option<Vec<String>> = q
        .user_tags
        .as_deref()
        .filter(|t| !t.trim().is_empty())
        .map(|t| t.split(',').map(|s| s.trim().to_owned()).collect());
    let facts = UserFacts::parse(tags.as_deref(), q.region.as_deref(), q.new_user)?;
    let asker = Asker {
        user: &user,
        channel,
        facts: &facts,
        now: state.now(),
    };
    let client = state.pool.get().await?;
    let page = claimable::claimable(&**client, &asker, bounds).await?;
    Ok(Json(page.ok_or_else(|| {
        ApiError::not_found("channel", channel.0)
    })?))
}
