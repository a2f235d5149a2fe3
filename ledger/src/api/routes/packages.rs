//! Coupon packages (docs/design.md §13): `POST /v1/packages`, `GET /v1/packages` (a
//! page of them), `GET /v1/packages/{sn}`,
//! `POST /v1/packages/{sn}/activate` and `/stop`,
//! `POST /v1/packages/{sn}/channels {channel_id}` (admin), and
//! `POST /v1/packages/{sn}/claims {user_id}`, signed by a channel the
//! package lists, like a claim: all the package's coupons or none, each
//! recording the channel. Offline, a package is given by the codes of one
//! of its code batches (`POST /v1/redemptions`).

use axum::Json;
use axum::extract::State;
use axum::http::StatusCode;
use axum::response::Response;
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};

use crate::api::AppState;
use crate::api::auth::principal::Principal;
use crate::api::auth::shop_scope;
use crate::api::auth::signed_channel::SignedChannel;
use crate::api::http::context::Ctx;
use crate::api::http::error::{ApiError, ErrorBody};
use crate::api::http::extract::{ApiJson, ApiQuery, page_bounds, parse_json, status_filter};
use crate::api::http::path_param::ApiPath;
use crate::api::routes::package_jobs::{self, Queued};
use crate::api::routes::user_facts_body::user_facts_body;
use crate::commands::packages::{self, Giver, MAX_CHANNELS, MAX_COUPONS, NewPackage};
use crate::domain::events::PackageItem;
use crate::domain::ids::ChannelId;
use crate::domain::ids::{PackageSn, TemplateSn};
use crate::domain::package::PackageStatus;
use crate::domain::validity::{INSTANT_RULE, storable_instant};
use crate::exactly_once::idempotency::request_hash;
use crate::queries::coupons::CouponView;
use crate::queries::package_jobs::PackageJobView;
use crate::queries::page::page_of;
use crate::queries::templates::{IssueWindowView, MAX_PAGE};

/// Longest package name, in characters (after trimming).
const MAX_NAME_LEN: usize = 200;
use crate::write_model::package_row::{self, Package};

/// The most items one package lists.
pub const MAX_ITEMS: usize = 20;

#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct CreatePackage {
    #[schema(schema_with = crate::api::http::schemas::name::<MAX_NAME_LEN>)]
    pub name: String,
    /// 1 to 20 items; 1 to 10,000 coupons in all. A claim of more than 100
    /// runs as a job (202).
    #[schema(min_items = 1, max_items = 20)]
    pub items: Vec<PackageItem>,
    /// Claims of the package, at least 1.
    #[schema(schema_with = crate::api::http::schemas::range::<1, { i64::MAX }>)]
    pub total: i64,
    /// Claims one user may make, at least 1.
    #[schema(schema_with = crate::api::http::schemas::range::<1, { i32::MAX as i64 }>)]
    pub per_user_limit: i32,
    pub issue_window: IssueWindowView,
    /// Channels that may claim it (at most 100 here; more by
    /// `POST /v1/packages/{sn}/channels`). None: no channel may, until one
    /// is allowed, as for a template.
    #[serde(default)]
    #[schema(value_type = Vec<Uuid>)]
    pub channels: Vec<ChannelId>,
}

#[derive(Serialize, Deserialize, ToSchema)]
pub struct PackageView {
    #[schema(value_type = String)]
    pub sn: PackageSn,
    pub name: String,
    pub items: Vec<PackageItem>,
    pub total: i64,
    pub claimed: i64,
    pub per_user_limit: i32,
    pub issue_window: IssueWindowView,
    pub status: PackageStatus,
    pub created_at: DateTime<Utc>,
    /// The channels that may claim it, in id order (empty: none may).
    #[schema(value_type = Vec<Uuid>)]
    pub channels: Vec<ChannelId>,
}

impl PackageView {
    fn of(p: &Package) -> Self {
        PackageView {
            sn: p.sn.clone(),
            name: p.name.clone(),
            items: p.items.clone(),
            total: p.total,
            claimed: p.claimed,
            per_user_limit: p.per_user_limit,
            issue_window: IssueWindowView {
                begin: p.issue_window.0,
                end: p.issue_window.1,
            },
            status: p.status,
            created_at: p.created_at,
            channels: p.channels.clone(),
        }
    }
}

/// The request's shape, before any template is looked at; the issue
/// window as stored (to the microsecond, as the event's copy must be).
fn check(p: &CreatePackage) -> Result<(DateTime<Utc>, DateTime<Utc>), ApiError> {
    let name = p.name.trim();
    if name.is_empty() || name.chars().count() > MAX_NAME_LEN {
        return Err(ApiError::invalid_field("name: must be 1 to 200 characters"));
    }
    if p.items.is_empty() || p.items.len() > MAX_ITEMS {
        return Err(ApiError::invalid_field(format!(
            "items: must be 1 to {MAX_ITEMS}"
        )));
    }
    for (i, item) in p.items.iter().enumerate() {
        if TemplateSn::parse(item.template_sn.as_str()).is_none() {
            return Err(ApiError::invalid_field(format!(
                "items[{i}].template_sn: not a template sn"
            )));
        }
        if item.count < 1 {
            return Err(ApiError::invalid_field(format!(
                "items[{i}].count: must be at least 1"
            )));
        }
    }
    let coupons: i64 = p.items.iter().map(|i| i64::from(i.count)).sum();
    if coupons > i64::from(MAX_COUPONS) {
        return Err(ApiError::invalid_field(format!(
            "items: at most {MAX_COUPONS} coupons in all"
        )));
    }
    if p.total < 1 || p.per_user_limit < 1 {
        return Err(ApiError::invalid_field(
            "total and per_user_limit: must be at least 1",
        ));
    }
    let stored = |field: &str, t| {
        storable_instant(t)
            .ok_or_else(|| ApiError::invalid_field(format!("{field}: {INSTANT_RULE}")))
    };
    let window = (
        stored("issue_window.begin", p.issue_window.begin)?,
        stored("issue_window.end", p.issue_window.end)?,
    );
    if window.1 <= window.0 {
        return Err(ApiError::invalid_field(
            "issue_window: end must be after begin",
        ));
    }
    if p.channels.len() > MAX_CHANNELS {
        return Err(ApiError::invalid_field(format!(
            "channels: at most {MAX_CHANNELS}"
        )));
    }
    Ok(window)
}

/// Create a package (a draft).
#[utoipa::path(post, path = "/v1/packages", operation_id = "create_package",
    tag = "packages", request_body = CreatePackage,
    security(("admin" = [])),
    responses((status = 201, body = PackageView), (status = 400, body = ErrorBody),
        (status = 422, body = ErrorBody, description = "an item's template is unknown or void, \
            or lets a user hold fewer than the item's count, or a channel is unknown")))]
pub async fn create(
    State(state): State<AppState>,
    principal: Principal,
    ctx: Ctx,
    body: ApiJson<CreatePackage>,
) -> Result<Response, ApiError> {
    let window = check(&body.value)?;
    let sns: Vec<&str> = body
        .value
        .items
        .iter()
        .map(|i| i.template_sn.as_str())
        .collect();
    let client = state.pool.get().await?;
    shop_scope::check_templates(&**client, &principal, &sns).await?;
    drop(client);
    let (metadata, now) = (ctx.principal_metadata(), state.now());
    let p = &body.value;
    let (name, items, total, limit) = (
        p.name.trim().to_owned(),
        p.items.clone(),
        p.total,
        p.per_user_limit,
    );
    let channels = p.channels.clone();
    ctx.write(&state, "admin", &body.hash, StatusCode::CREATED, |tx| {
        Box::pin(async move {
            let new = NewPackage {
                name: &name,
                items: &items,
                total,
                per_user_limit: limit,
                issue_window: window,
                channels: &channels,
            };
            Ok(PackageView::of(
                &packages::create(tx, &new, &metadata, now).await?,
            ))
        })
    })
    .await
}

/// `GET /v1/packages` query: a page, optionally of one status.
#[derive(Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(deny_unknown_fields)]
pub struct ListQuery {
    /// `draft`, `active` or `stopped`.
    #[param(value_type = Option<PackageStatus>)]
    pub status: Option<String>,
    /// Default 0.
    #[param(value_type = Option<crate::api::http::schemas::Offset>, inline)]
    pub offset: Option<i64>,
    /// 1 to 200, default 50.
    #[param(value_type = Option<crate::api::http::schemas::TemplatePageLimit>, inline)]
    pub limit: Option<i64>,
}

page_of!(PackagePage {
    packages: PackageView,
    total: "Packages matching the query in all."
});

/// List packages, newest first, with the total count.
#[utoipa::path(get, path = "/v1/packages", operation_id = "list_packages",
    tag = "packages", params(ListQuery),
    security(("admin" = [])),
    responses((status = 200, body = PackagePage), (status = 400, body = ErrorBody)))]
pub async fn list(
    State(state): State<AppState>,
    principal: Principal,
    ApiQuery(q): ApiQuery<ListQuery>,
) -> Result<Json<PackagePage>, ApiError> {
    let status = status_filter::<PackageStatus>(q.status.as_deref())?;
    let bounds = page_bounds(q.offset, q.limit, MAX_PAGE)?;
    let client = state.pool.get().await?;
    let shops = principal.shop_filter();
    let page = crate::queries::packages::list(&**client, status, shops, bounds).await?;
    Ok(Json(page.map(|p| PackageView::of(&p)).into()))
}

/// The package's sn, in the path: how the OpenAPI document names what
/// `ApiPath<PackageSn>` parses.
#[derive(IntoParams)]
#[into_params(parameter_in = Path)]
pub struct PackagePath {
    #[param(value_type = PackageSn)]
    pub sn: String,
}

/// Read a package.
#[utoipa::path(get, path = "/v1/packages/{sn}", operation_id = "read_package",
    tag = "packages", params(PackagePath),
    security(("admin" = [])),
    responses((status = 200, body = PackageView), (status = 404, body = ErrorBody)))]
pub async fn read(
    State(state): State<AppState>,
    _: Principal,
    ApiPath(sn): ApiPath<PackageSn>,
) -> Result<Json<PackageView>, ApiError> {
    let client = state.pool.get().await?;
    let found = package_row::read(&**client, &sn).await?;
    let package = found.ok_or_else(|| ApiError::not_found("package", &sn))?;
    Ok(Json(PackageView::of(&package)))
}

async fn set_status(
    state: AppState,
    (_, ctx): (Principal, Ctx),
    sn: PackageSn,
    to: PackageStatus,
) -> Result<Response, ApiError> {
    let hash = request_hash(&[sn.as_str().as_bytes(), to.as_str().as_bytes()]);
    let (metadata, now) = (ctx.principal_metadata(), state.now());
    ctx.write(&state, "admin", &hash, StatusCode::OK, |tx| {
        Box::pin(async move {
            let package = packages::set_status(tx, &sn, to, &metadata, now).await?;
            Ok(PackageView::of(&package))
        })
    })
    .await
}

/// Activate a package: it can be claimed in its issue window.
#[utoipa::path(post, path = "/v1/packages/{sn}/activate", operation_id = "activate_package",
    tag = "packages", params(PackagePath),
    security(("admin" = [])),
    responses((status = 200, body = PackageView), (status = 404, body = ErrorBody)))]
pub async fn activate(
    State(state): State<AppState>,
    admin: Principal,
    ctx: Ctx,
    ApiPath(sn): ApiPath<PackageSn>,
) -> Result<Response, ApiError> {
    set_status(state, (admin, ctx), sn, PackageStatus::Active).await
}

/// Stop a package: claims and its codes are refused (422).
#[utoipa::path(post, path = "/v1/packages/{sn}/stop", operation_id = "stop_package",
    tag = "packages", params(PackagePath),
    security(("admin" = [])),
    responses((status = 200, body = PackageView), (status = 404, body = ErrorBody)))]
pub async fn stop(
    State(state): State<AppState>,
    admin: Principal,
    ctx: Ctx,
    ApiPath(sn): ApiPath<PackageSn>,
) -> Result<Response, ApiError> {
    set_status(state, (admin, ctx), sn, PackageStatus::Stopped).await
}

#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct AllowChannel {
    #[schema(value_type = Uuid)]
    pub channel_id: ChannelId,
}

/// Allow a channel to claim this package (its claims, signed by the
/// channel; its coupons record it). Allowing it again changes nothing.
#[utoipa::path(post, path = "/v1/packages/{sn}/channels", operation_id = "allow_package_channel",
    tag = "packages", params(PackagePath),
    request_body = AllowChannel, security(("admin" = [])),
    responses((status = 200, body = PackageView),
        (status = 404, body = ErrorBody, description = "no such package or channel")))]
pub async fn allow_channel(
    State(state): State<AppState>,
    _: Principal,
    ctx: Ctx,
    ApiPath(sn): ApiPath<PackageSn>,
    body: ApiJson<AllowChannel>,
) -> Result<Response, ApiError> {
    let (metadata, now, channel) = (ctx.principal_metadata(), state.now(), body.value.channel_id);
    ctx.write(&state, "admin", &body.hash, StatusCode::OK, |tx| {
        Box::pin(async move {
            let package = packages::allow_channel(tx, &sn, channel, &metadata, now).await?;
            Ok(PackageView::of(&package))
        })
    })
    .await
}

// The facts are checked against every item's template's eligibility
// (docs/design.md §15).
user_facts_body! {
    pub struct ClaimPackage {}
}

#[derive(Serialize, ToSchema)]
pub struct PackageClaimView {
    #[schema(value_type = String)]
    pub package_sn: PackageSn,
    pub coupons: Vec<CouponView>,
}

/// Claim a package's coupons for a user, all or none. Signed by the
/// channel like a claim (docs/design.md §6); the package must list the channel
/// (403 otherwise), and every coupon records it. A package of more than 100 coupons is
/// claimed by the issuance worker: 202 with the job, followed at
/// `GET /v1/package-jobs/{id}` (a refusal then is the job's, with the
/// status this route would have answered).
#[utoipa::path(post, path = "/v1/packages/{sn}/claims", operation_id = "claim_package",
    tag = "packages",
    params(PackagePath, ("X-Channel-Id" = Uuid, Header), ("X-Timestamp" = i64, Header),
           ("X-Nonce" = String, Header), ("X-Signature" = String, Header)),
    request_body = ClaimPackage,
    responses((status = 201, body = PackageClaimView),
        (status = 202, body = PackageJobView, description = "a package of more than 100 coupons: the claim has taken the package's, the user's and the templates' counts and is queued as a job that writes its coupons (it fails, giving them back, only if a template is stopped or voided meanwhile)"),
        (status = 401, body = ErrorBody),
        (status = 403, body = ErrorBody, description = "the package does not list this channel \
            (`forbidden`), the channel is disabled (`channel_disabled`), or an item's template's \
            eligibility refuses the user (`not_eligible`, the message names the rule)"),
        (status = 404, body = ErrorBody),
        (status = 409, body = ErrorBody, description = "the user holds the package's or an item template's per-user limit"),
        (status = 410, body = ErrorBody, description = "the package, or an item's template, is sold out: nothing was issued"),
        (status = 422, body = ErrorBody, description = "the package or an item's template does not issue now"),
        (status = 429, body = ErrorBody),
        (status = 503, body = ErrorBody, description = "a large package's job could not be queued (nothing was claimed; retry), or a store is down")))]
pub async fn claim(
    State(state): State<AppState>,
    ctx: Ctx,
    // Refused after the signature and the body, where the sn was parsed
    // before it was typed: an unsigned request is 401 whatever its path.
    sn: Result<ApiPath<PackageSn>, ApiError>,
    signed: SignedChannel,
) -> Result<Response, ApiError> {
    let input: ClaimPackage = parse_json(&signed.body)?;
    let facts = input.facts()?;
    let ApiPath(sn) = sn?;
    let now = signed.now;
    let scope = format!("channel:{}", signed.channel_id);
    let mut metadata = ctx.metadata(scope.clone());
    metadata.channel_id = Some(signed.channel_id);
    let hash = signed.request_hash();
    let (tz, user) = (state.tz, input.user_id);
    let giver = Giver::Channel(signed.channel_id);
    if package_jobs::runs_as_job(&state, &sn).await? {
        let queued = Queued {
            scope: &scope,
            hash: &hash,
            package_sn: &sn,
            user: &user,
            facts: &facts,
            code: None,
            giver,
            metadata,
        };
        return package_jobs::queue(&state, &ctx, queued).await;
    }
    ctx.write(&state, &scope, &hash, StatusCode::CREATED, |tx| {
        Box::pin(async move {
            let taken = packages::take(tx, &sn, &user, giver, now).await?;
            let coupons =
                packages::issue(tx, &taken, (&user, &facts), (now, tz), &metadata).await?;
            Ok(PackageClaimView {
                package_sn: sn,
                coupons: coupons.iter().map(CouponView::issued).collect(),
            })
        })
    })
    .await
}
