//! Webhooks (docs/design.md §21): `POST /v1/webhooks` makes an endpoint and
//! answers its signing secret once; list, read, change, disable, enable,
//! rotate the secret with an overlap, list deliveries, replay from a
//! position. Admin only (`webhooks:manage`).

use axum::Json;
use axum::extract::State;
use axum::http::StatusCode;
use axum::response::Response;
use chrono::Duration;
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};
use uuid::Uuid;

use crate::api::AppState;
use crate::api::http::context::Ctx;
use crate::api::http::error::{ApiError, ErrorBody};
use crate::api::http::extract::{ApiJson, ApiQuery};
use crate::api::http::path_param::ApiPath;
use crate::commands::webhooks::{self, NewWebhook, WebhookChange};
use crate::domain::webhook::{
    self as rules, DEFAULT_OVERLAP_SECS, EventTypes, MAX_OVERLAP_SECS, WebhookError, WebhookUrl,
};
use crate::queries::webhooks::{self as views, DeliveryStatus, DeliveryView, WebhookView};
use crate::webhooks::address_guard;

/// What the API needs of the webhooks' settings.
#[derive(Clone, Copy, Debug)]
pub struct WebhookSettings {
    /// `LEDGER_WEBHOOK_ALLOW_PRIVATE`.
    pub allow_private: bool,
    /// `LEDGER_WEBHOOK_RETRY_HOURS`: the default retry window.
    pub retry_hours: i32,
}

#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct CreateWebhook {
    /// `https://` and a public host (unless private addresses are allowed);
    /// at most 2,048 characters.
    #[schema(max_length = 2048, pattern = "^https://[^\\s/?#@]+(/[^\\s#]*)?$")]
    pub url: String,
    /// `["*"]` for every event type, or event type names (each known).
    #[schema(schema_with = crate::api::http::schemas::event_types)]
    pub event_types: Vec<String>,
    #[schema(max_length = 500)]
    pub description: Option<String>,
    /// Hours a delivery is retried before it is `failed` (1 to 168; absent:
    /// `LEDGER_WEBHOOK_RETRY_HOURS`).
    #[schema(minimum = 1, maximum = 168)]
    pub retry_hours: Option<i32>,
}

/// An endpoint as made, or its secret as rotated: the secret is shown in
/// this answer only.
#[derive(Serialize, ToSchema)]
pub struct WebhookSecret {
    pub id: Uuid,
    /// Signs every delivery (`Ledger-Signature`); null in an
    /// Idempotency-Key replay (the stored answer never holds it).
    pub secret: Option<String>,
    pub secret_shown: bool,
}

impl WebhookSecret {
    fn shown(id: Uuid, secret: String) -> Self {
        Self {
            id,
            secret: Some(secret),
            secret_shown: true,
        }
    }

    fn hidden(&self) -> Self {
        Self {
            id: self.id,
            secret: None,
            secret_shown: false,
        }
    }
}

#[derive(IntoParams)]
#[into_params(parameter_in = Path)]
pub struct WebhookPath {
    pub id: Uuid,
}

fn invalid(e: WebhookError) -> ApiError {
    ApiError::invalid_field(e.to_string())
}

/// The URL parsed and, for a name, resolved: every address public unless
/// private ones are allowed (a name that resolves to loopback is refused
/// here, and again at each delivery).
async fn checked_url(text: &str, settings: WebhookSettings) -> Result<WebhookUrl, ApiError> {
    let url = WebhookUrl::parse(text, settings.allow_private).map_err(invalid)?;
    if let Some(url::Host::Domain(host)) = url.as_url().host() {
        address_guard::resolve(host, settings.allow_private)
            .await
            .map_err(|e| ApiError::invalid_field(format!("url: {e}")))?;
    }
    Ok(url)
}

/// Make an endpoint; the answer holds its secret, shown only this once.
#[utoipa::path(post, path = "/v1/webhooks", operation_id = "create_webhook", tag = "webhooks",
    request_body = CreateWebhook, security(("admin" = [])),
    responses((status = 201, body = WebhookSecret),
        (status = 400, body = ErrorBody, description = "a bad field, named: a URL that is not https, \
            names a private address or does not resolve; an unknown event type; retry_hours out of range"),
        (status = 409, body = ErrorBody, description = "100 endpoints exist (`too_many_webhooks`)")))]
pub async fn create(
    State(state): State<AppState>,
    ctx: Ctx,
    body: ApiJson<CreateWebhook>,
) -> Result<Response, ApiError> {
    let asked = &body.value;
    let settings = state.webhooks;
    let new = NewWebhook {
        url: checked_url(&asked.url, settings).await?,
        event_types: EventTypes::parse(&asked.event_types).map_err(invalid)?,
        description: rules::description(asked.description.clone()).map_err(invalid)?,
        retry_hours: rules::retry_hours(asked.retry_hours.unwrap_or(settings.retry_hours))
            .map_err(invalid)?,
    };
    let by = ctx.principal_metadata();
    let by = by.operator.unwrap_or(by.actor);
    let (secrets, now) = (state.secrets.clone(), state.now());
    let status = StatusCode::CREATED;
    ctx.write_stored_as(
        &state,
        "admin",
        &body.hash,
        status,
        |tx| {
            Box::pin(async move {
                let keys = (secrets.keys(), by.as_str());
                let (id, secret) = webhooks::create(tx, &new, keys, now).await?;
                Ok(WebhookSecret::shown(id, secret))
            })
        },
        WebhookSecret::hidden,
    )
    .await
}

#[derive(Serialize, ToSchema)]
pub struct WebhookList {
    pub webhooks: Vec<WebhookView>,
}

/// Every endpoint (at most 100) with how its deliveries stand; never a secret.
#[utoipa::path(get, path = "/v1/webhooks", operation_id = "list_webhooks", tag = "webhooks",
    security(("admin" = [])), responses((status = 200, body = WebhookList)))]
pub async fn list(State(state): State<AppState>) -> Result<Json<WebhookList>, ApiError> {
    let client = state.pool.get().await?;
    let webhooks = views::list(&**client, state.now()).await?;
    Ok(Json(WebhookList { webhooks }))
}

/// One endpoint.
#[utoipa::path(get, path = "/v1/webhooks/{id}", operation_id = "read_webhook", tag = "webhooks",
    params(WebhookPath), security(("admin" = [])),
    responses((status = 200, body = WebhookView), (status = 404, body = ErrorBody)))]
pub async fn read(
    State(state): State<AppState>,
    ApiPath(id): ApiPath<Uuid>,
) -> Result<Json<WebhookView>, ApiError> {
    let client = state.pool.get().await?;
    let view = views::read(&**client, id, state.now()).await?;
    view.map(Json)
        .ok_or_else(|| ApiError::not_found("webhook", id))
}

/// A change: each field given replaces the stored one (`description`
/// null clears it).
#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct ChangeWebhook {
    #[schema(max_length = 2048, pattern = "^https://[^\\s/?#@]+(/[^\\s#]*)?$")]
    pub url: Option<String>,
    #[schema(schema_with = crate::api::http::schemas::event_types_or_null)]
    pub event_types: Option<Vec<String>>,
    #[serde(default, deserialize_with = "crate::domain::patch_field::present")]
    #[schema(max_length = 500)]
    pub description: Option<Option<String>>,
    #[schema(minimum = 1, maximum = 168)]
    pub retry_hours: Option<i32>,
}

/// Change an endpoint's URL, event types, description or retry window.
#[utoipa::path(patch, path = "/v1/webhooks/{id}", operation_id = "change_webhook",
    tag = "webhooks", params(WebhookPath), request_body = ChangeWebhook,
    security(("admin" = [])),
    responses((status = 200, body = WebhookView),
        (status = 400, body = ErrorBody, description = "a bad field, named"),
        (status = 404, body = ErrorBody)))]
pub async fn change(
    State(state): State<AppState>,
    ctx: Ctx,
    ApiPath(id): ApiPath<Uuid>,
    body: ApiJson<ChangeWebhook>,
) -> Result<Response, ApiError> {
    let asked = &body.value;
    let settings = state.webhooks;
    let url = match &asked.url {
        Some(text) => Some(checked_url(text, settings).await?),
        None => None,
    };
    let event_types = asked.event_types.as_deref().map(EventTypes::parse);
    let description = asked.description.clone().map(rules::description);
    let change = WebhookChange {
        url,
        event_types: event_types.transpose().map_err(invalid)?,
        description: description.transpose().map_err(invalid)?,
        retry_hours: asked
            .retry_hours
            .map(rules::retry_hours)
            .transpose()
            .map_err(invalid)?,
    };
    let now = state.now();
    ctx.write(&state, "admin", &body.hash, StatusCode::OK, |tx| {
        Box::pin(async move {
            webhooks::change(tx, id, &change, now).await?;
            view_in(tx, id, now).await
        })
    })
    .await
}

/// The endpoint as the transaction sees it.
async fn view_in(
    tx: &deadpool_postgres::Transaction<'_>,
    id: Uuid,
    now: chrono::DateTime<chrono::Utc>,
) -> Result<WebhookView, ApiError> {
    let view = views::read(&**tx, id, now).await?;
    view.ok_or_else(|| ApiError::not_found("webhook", id))
}

/// Stop delivering to the endpoint: events while it is disabled are not
/// queued for it (`replay` sends them later if wanted).
#[utoipa::path(post, path = "/v1/webhooks/{id}/disable", operation_id = "disable_webhook",
    tag = "webhooks", params(WebhookPath), security(("admin" = [])),
    responses((status = 200, body = WebhookView), (status = 404, body = ErrorBody)))]
pub async fn disable(
    state: State<AppState>,
    ctx: Ctx,
    ApiPath(id): ApiPath<Uuid>,
) -> Result<Response, ApiError> {
    set_enabled(state, ctx, id, false).await
}

/// Deliver to the endpoint again, from the events after now on.
#[utoipa::path(post, path = "/v1/webhooks/{id}/enable", operation_id = "enable_webhook",
    tag = "webhooks", params(WebhookPath), security(("admin" = [])),
    responses((status = 200, body = WebhookView), (status = 404, body = ErrorBody)))]
pub async fn enable(
    state: State<AppState>,
    ctx: Ctx,
    ApiPath(id): ApiPath<Uuid>,
) -> Result<Response, ApiError> {
    set_enabled(state, ctx, id, true).await
}

async fn set_enabled(
    State(state): State<AppState>,
    ctx: Ctx,
    id: Uuid,
    enabled: bool,
) -> Result<Response, ApiError> {
    let now = state.now();
    let action: &[u8] = if enabled { b"enable" } else { b"disable" };
    let hash = crate::exactly_once::idempotency::request_hash(&[id.as_bytes(), action]);
    ctx.write(&state, "admin", &hash, StatusCode::OK, |tx| {
        Box::pin(async move {
            webhooks::set_enabled(tx, id, enabled, now).await?;
            view_in(tx, id, now).await
        })
    })
    .await
}

#[derive(Deserialize, ToSchema, Default)]
#[serde(deny_unknown_fields)]
pub struct RotateWebhookSecret {
    /// Seconds the old secret keeps signing beside the new one (0 to
    /// 604,800; absent: a day), so receivers can switch without a gap.
    #[schema(schema_with = crate::api::http::schemas::range_or_null::<0, MAX_OVERLAP_SECS>)]
    pub overlap_secs: Option<i64>,
}

/// A new signing secret; during the overlap each delivery carries a
/// `v1=` signature by each secret.
#[utoipa::path(post, path = "/v1/webhooks/{id}/secret", operation_id = "rotate_webhook_secret",
    tag = "webhooks", params(WebhookPath), request_body = RotateWebhookSecret,
    security(("admin" = [])),
    responses((status = 200, body = WebhookSecret),
        (status = 400, body = ErrorBody, description = "overlap_secs out of range"),
        (status = 404, body = ErrorBody)))]
pub async fn rotate(
    State(state): State<AppState>,
    ctx: Ctx,
    ApiPath(id): ApiPath<Uuid>,
    body: ApiJson<RotateWebhookSecret>,
) -> Result<Response, ApiError> {
    let secs = body.value.overlap_secs.unwrap_or(DEFAULT_OVERLAP_SECS);
    if !(0..=MAX_OVERLAP_SECS).contains(&secs) {
        return Err(ApiError::invalid_field(format!(
            "overlap_secs: 0 to {MAX_OVERLAP_SECS}"
        )));
    }
    let (secrets, now) = (state.secrets.clone(), state.now());
    ctx.write_stored_as(
        &state,
        "admin",
        &body.hash,
        StatusCode::OK,
        |tx| {
            Box::pin(async move {
                let keys = (secrets.keys(), Duration::seconds(secs));
                let secret = webhooks::rotate(tx, id, keys, now).await?;
                Ok(WebhookSecret::shown(id, secret))
            })
        },
        WebhookSecret::hidden,
    )
    .await
}

#[derive(Deserialize, IntoParams)]
#[serde(deny_unknown_fields)]
#[into_params(parameter_in = Query)]
pub struct DeliveryQuery {
    /// Only deliveries in this state.
    pub status: Option<DeliveryStatus>,
    /// Deliveries with an id below this (the next page: the last id seen).
    #[param(minimum = 1)]
    pub before: Option<i64>,
    /// 1 to 500 (default 100).
    #[param(minimum = 1, maximum = 500)]
    pub limit: Option<i64>,
}

#[derive(Serialize, ToSchema)]
pub struct DeliveryList {
    /// Newest first.
    pub deliveries: Vec<DeliveryView>,
}

/// An endpoint's deliveries, newest first: each event owed, its attempts,
/// the receiver's last answer.
#[utoipa::path(get, path = "/v1/webhooks/{id}/deliveries", operation_id = "list_webhook_deliveries",
    tag = "webhooks", params(WebhookPath, DeliveryQuery), security(("admin" = [])),
    responses((status = 200, body = DeliveryList),
        (status = 400, body = ErrorBody, description = "an unknown status, a limit or before out of range"),
        (status = 404, body = ErrorBody)))]
pub async fn deliveries(
    State(state): State<AppState>,
    ApiPath(id): ApiPath<Uuid>,
    ApiQuery(query): ApiQuery<DeliveryQuery>,
) -> Result<Json<DeliveryList>, ApiError> {
    let limit = query.limit.unwrap_or(100);
    if !(1..=views::MAX_PAGE).contains(&limit) {
        return Err(ApiError::invalid_field("limit: 1 to 500"));
    }
    if query.before.is_some_and(|b| b < 1) {
        return Err(ApiError::invalid_field(
            "before: a delivery's id, 1 or more",
        ));
    }
    let client = state.pool.get().await?;
    if views::read(&**client, id, state.now()).await?.is_none() {
        return Err(ApiError::not_found("webhook", id));
    }
    let page = (query.status, query.before);
    let deliveries = views::deliveries(&**client, id, page, limit).await?;
    Ok(Json(DeliveryList { deliveries }))
}

#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct Replay {
    /// Every event from this position on (to the log's head now) is sent
    /// again, delivered ones included.
    #[schema(minimum = 0)]
    pub from_position: i64,
}

#[derive(Serialize, ToSchema)]
pub struct ReplayQueued {
    pub from_position: i64,
    /// The log's head when asked: the last position the replay sends.
    pub until_position: i64,
}

/// Send again every event the endpoint wants from a position on; the
/// sender queues them in steps (`replay` on the endpoint shows the rest).
#[utoipa::path(post, path = "/v1/webhooks/{id}/replay", operation_id = "replay_webhook",
    tag = "webhooks", params(WebhookPath), request_body = Replay, security(("admin" = [])),
    responses((status = 202, body = ReplayQueued),
        (status = 400, body = ErrorBody, description = "from_position below 0"),
        (status = 404, body = ErrorBody)))]
pub async fn replay(
    State(state): State<AppState>,
    ctx: Ctx,
    ApiPath(id): ApiPath<Uuid>,
    body: ApiJson<Replay>,
) -> Result<Response, ApiError> {
    let from = body.value.from_position;
    if from < 0 {
        return Err(ApiError::invalid_field("from_position: 0 or more"));
    }
    let now = state.now();
    ctx.write(&state, "admin", &body.hash, StatusCode::ACCEPTED, |tx| {
        Box::pin(async move {
            let until = webhooks::replay(tx, id, from, now).await?;
            Ok(ReplayQueued {
                from_position: from,
                until_position: until,
            })
        })
    })
    .await
}
