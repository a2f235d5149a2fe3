//! The HTTP API v1 (docs/design.md §7): axum handlers, documented by
//! OpenAPI, in three rooms:
//!
//! - [`http`]: the plumbing every route shares: the server, the one error
//!   type and its JSON shape, extractors, the request context
//!   (correlation id, Idempotency-Key, the command transaction), the
//!   request log and metrics, the OpenAPI extras, health, the console.
//! - [`auth`]: who may call: bearer tokens, channel signatures through one
//!   `SignedChannel` extractor (signature, then the nonce spent), and the
//!   limits on failed signatures, wrong tokens and guessed codes.
//! - [`routes`]: one file per resource.
//!
//! This file holds what every handler shares ([`AppState`]) and the one
//! list of routes, from which both the router and the OpenAPI document
//! are made.

pub mod auth;
pub mod http;
pub mod routes;

use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use axum::extract::DefaultBodyLimit;
use axum::routing::get;
use chrono::{DateTime, Utc};
use chrono_tz::Tz;
use deadpool_postgres::Pool;
use utoipa::OpenApi;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use self::auth::tokens::Tokens;
use self::auth::{auth_limit, guess_limit, secret_cache, token_limit};
use self::http::error::{self, ApiError};
use self::http::openapi::{self, BearerAuth};
use self::http::{admin, health, request_log, request_metrics};
use self::routes::{
    allow_lists, api_keys, audit, audit_actions, channel_lifecycle, channels, claimable, claims,
    code_batches, coupons, history, issuance_jobs, me, orders, package_jobs, packages, projections,
    redemptions, reports, template_changes, template_channels, templates, webhooks, workers,
};
use crate::messaging::lazy_publisher::LazyPublisher;
use crate::observability::metrics::Metrics;
use crate::observability::queue_metrics;
use crate::redis_link::RedisHandle;
use axum::http::{HeaderValue, header};
use tower_http::set_header::SetResponseHeaderLayer;

/// Largest JSON body accepted (uploads have their own limit). Sized for the
/// largest request the API takes: a quote or lock of the most lines an order
/// may have (`domain::order::MAX_LINES`, 1,000) of realistic size (~130
/// bytes a line, ids of 20 characters) fits with room to spare.
pub const BODY_LIMIT: usize = 256 * 1024;
/// A request still running after this is answered 408 and dropped.
const REQUEST_TIMEOUT: Duration = Duration::from_secs(30);

/// What every handler shares, behind one `Arc`: axum clones the state for
/// each extractor of each request, and a clone is then one reference count.
#[derive(Clone)]
pub struct AppState(Arc<Shared>);

impl AppState {
    pub fn new(shared: Shared) -> Self {
        Self(Arc::new(shared))
    }
}

impl std::ops::Deref for AppState {
    type Target = Shared;

    fn deref(&self) -> &Shared {
        &self.0
    }
}

pub struct Shared {
    pub pool: Pool,
    /// Lag-tolerant reads: a replica while it keeps up, else `pool`.
    pub reads: crate::db::read_pool::ReadPool,
    pub redis: RedisHandle,
    pub tokens: Tokens,
    /// App keys by digest, re-read at most every 2 s (revocations).
    pub keys: auth::key_cache::KeyCache,
    /// Each app key's own request rate (per process).
    pub key_limit: auth::key_limit::KeyLimit,
    /// Operators' sign-in tokens, when `LEDGER_OIDC_ISSUER` is set.
    pub oidc: Option<auth::oidc::Oidc>,
    /// The SHA-256 of `LEDGER_METRICS_TOKEN`: when set, `/metrics` needs it.
    pub metrics_token: Option<[u8; 32]>,
    pub tz: Tz,
    pub amqp_url: String,
    pub metrics: Arc<Metrics>,
    pub secrets: Arc<secret_cache::SecretCache>,
    pub auth_limit: Arc<auth_limit::AuthLimit>,
    /// Code batches as redemptions find them (a stop here forgets its batch).
    pub code_batches: crate::commands::batch_cache::BatchCache,
    /// Failed redemptions per user and address (against guessing codes).
    pub guess_limit: Arc<guess_limit::GuessLimit>,
    /// Wrong bearer tokens per client address.
    pub token_limit: Arc<token_limit::TokenLimit>,
    /// Publishes to `coupon.issuance`: bulk-issuance chunks and package
    /// jobs (connects on first use).
    pub chunks: Arc<LazyPublisher>,
    pub upload_max_bytes: u64,
    /// Longest an upload's body is waited for between bytes.
    pub upload_idle: Duration,
    /// The flash-sale gate and group commit of claims.
    pub flash: Arc<crate::flash::Flash>,
    /// RabbitMQ's management API (queue depths, dead letters).
    pub management: queue_metrics::Management,
    /// The SSRF guard's setting and the default retry window (design §21).
    pub webhooks: routes::webhooks::WebhookSettings,
}

impl Shared {
    /// Now, to the microsecond (see [`crate::store::now`]).
    pub fn now(&self) -> DateTime<Utc> {
        crate::store::now()
    }

    /// The business day now (`LEDGER_TZ`): a budget's day.
    pub fn today(&self) -> chrono::NaiveDate {
        self.now().with_timezone(&self.tz).date_naive()
    }
}

#[derive(OpenApi)]
#[openapi(
    info(
        title = "couponledger",
        description = "Event-sourced coupon ledger, API v1. Every error answers \
            `{\"error\": {\"code\", \"message\"}}` (ErrorBody); on every route an \
            unknown path answers 404, another method 405 (`method_not_allowed`, with \
            `Allow`), and a request running over 30 s 408."
    ),
    // The domain's newtypes, which parameters name by `$ref` (a
    // parameter's schema does not bring its own into the components).
    components(schemas(
        error::ErrorBody,
        crate::domain::ids::TemplateSn,
        crate::domain::ids::PackageSn,
        crate::domain::ids::UserId,
        crate::domain::ids::ShopId,
        crate::domain::ids::OrderId,
        crate::domain::money::Money,
        crate::domain::money::Currency,
        crate::domain::terms::Kind,
        crate::domain::terms::Stacking,
        crate::domain::terms::RefundPolicy,
        crate::domain::template_status::TemplateStatus,
        crate::domain::package::PackageStatus,
        crate::domain::code_batch::CodeBatchStatus,
        crate::domain::coupon_state::CouponStatus,
        crate::domain::issuance::IssuanceJobStatus,
    )),
    modifiers(&BearerAuth)
)]
struct ApiDoc;

/// The routes and their OpenAPI document, from the same list. Every route
/// but the file upload and a batch's codes is bounded by
/// [`REQUEST_TIMEOUT`]; those stream for as long as their bodies do.
pub fn routes() -> (Router<AppState>, utoipa::openapi::OpenApi) {
    let (timed, mut doc) = OpenApiRouter::with_openapi(ApiDoc::openapi())
        .routes(routes!(health::healthz))
        .routes(routes!(health::readyz))
        .routes(routes!(health::metrics))
        .routes(routes!(templates::create, templates::list))
        .routes(routes!(templates::read, template_changes::update))
        .routes(routes!(templates::activate))
        .routes(routes!(templates::stop))
        .routes(routes!(templates::void))
        .routes(routes!(template_changes::quota))
        .routes(routes!(allow_lists::read_file))
        .merge(channel_routes())
        .merge(app_routes())
        .routes(routes!(claims::claim))
        .routes(routes!(orders::quote))
        .routes(routes!(orders::lock))
        .routes(routes!(orders::confirm))
        .routes(routes!(orders::cancel))
        .routes(routes!(orders::refunds))
        .routes(routes!(orders::read))
        .routes(routes!(coupons::read))
        .routes(routes!(coupons::events))
        .routes(routes!(coupons::void))
        .routes(routes!(projections::balance))
        .routes(routes!(projections::template_stats))
        .routes(routes!(history::template_history))
        .routes(routes!(history::template_events))
        .routes(routes!(issuance_jobs::read_job))
        .routes(routes!(issuance_jobs::cancel))
        .routes(routes!(issuance_jobs::report))
        .routes(routes!(reports::liability))
        .routes(routes!(audit::status))
        .routes(routes!(audit_actions::actions))
        .routes(routes!(me::me))
        .merge(key_routes())
        .merge(webhook_routes())
        .routes(routes!(workers::status))
        .routes(routes!(code_batches::create, code_batches::list))
        .routes(routes!(code_batches::read))
        .routes(routes!(code_batches::stop))
        .routes(routes!(redemptions::redeem))
        .routes(routes!(packages::create, packages::list))
        .routes(routes!(packages::read))
        .routes(routes!(packages::activate))
        .routes(routes!(packages::stop))
        .routes(routes!(packages::allow_channel))
        .routes(routes!(packages::claim))
        .routes(routes!(package_jobs::read))
        .split_for_parts();
    // Untimed: a large upload, or a batch's millions of codes, streams for
    // as long as its body does.
    let (uploads, upload_doc) = OpenApiRouter::new()
        .routes(routes!(issuance_jobs::upload, issuance_jobs::list))
        .routes(routes!(code_batches::codes))
        .routes(routes!(allow_lists::upload, allow_lists::read))
        .split_for_parts();
    doc.merge(upload_doc);
    check_every_route_has_a_rule(&doc);
    utoipa::Modify::modify(&openapi::CommonAnswers, &mut doc);
    utoipa::Modify::modify(&openapi::NoNul, &mut doc);
    utoipa::Modify::modify(&openapi::NonEmptyBodies, &mut doc);
    utoipa::Modify::modify(&openapi::ClosedVariants, &mut doc);
    utoipa::Modify::modify(&http::openapi_links::Links, &mut doc);
    utoipa::Modify::modify(&openapi::Permissions, &mut doc);
    let timed = timed.layer(tower_http::timeout::TimeoutLayer::with_status_code(
        axum::http::StatusCode::REQUEST_TIMEOUT,
        REQUEST_TIMEOUT,
    ));
    (timed.merge(uploads), doc)
}

/// Every operation of the document has its rule in `route_rules` (and
/// nothing else): a route added without one stops the server from being
/// built, so every test fails until it has one.
fn check_every_route_has_a_rule(doc: &utoipa::openapi::OpenApi) {
    let mut operations = 0;
    for (path, item) in &doc.paths.paths {
        for method in openapi::methods(item) {
            let found = auth::route_rules::find(&method, path);
            assert!(
                found.is_some(),
                "{method} {path} has no rule in api/auth/route_rules.rs"
            );
            operations += 1;
        }
    }
    let rules = auth::route_rules::RULES.len();
    assert_eq!(
        operations, rules,
        "route_rules.rs has rules for routes that do not exist"
    );
}

/// Webhook endpoints and their deliveries (docs/design.md §21).
fn webhook_routes() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(webhooks::create, webhooks::list))
        .routes(routes!(webhooks::read, webhooks::change))
        .routes(routes!(webhooks::disable))
        .routes(routes!(webhooks::enable))
        .routes(routes!(webhooks::rotate))
        .routes(routes!(webhooks::deliveries))
        .routes(routes!(webhooks::replay))
}

/// App keys (docs/design.md §19).
fn key_routes() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(api_keys::create, api_keys::list))
        .routes(routes!(api_keys::read))
        .routes(routes!(api_keys::rotate))
        .routes(routes!(api_keys::revoke))
}

/// The channels' routes and a template's list of channels (docs/design.md §15).
fn channel_routes() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(template_channels::allow_channel))
        .routes(routes!(template_channels::remove_channel))
        .routes(routes!(channels::create, channels::list))
        .routes(routes!(channels::read))
        .routes(routes!(channel_lifecycle::disable))
        .routes(routes!(channel_lifecycle::enable))
        .routes(routes!(channel_lifecycle::rotate))
}

/// What apps read with the service token (docs/design.md §15): a
/// template's terms, a user's wallet with them, what a user can claim.
fn app_routes() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(templates::terms))
        .routes(routes!(coupons::of_user))
        .routes(routes!(claimable::claimable))
}

pub fn router(state: AppState) -> Router {
    let (routes, openapi) = routes();
    let openapi = Arc::new(openapi);
    // On the API's routes only (the matched route names the rule): the
    // document and the console's shell are open.
    let authorize = axum::middleware::from_fn_with_state(state.clone(), auth::authorize::authorize);
    routes
        .route_layer(authorize)
        .route(
            "/openapi.json",
            get(move || {
                let doc = openapi.clone();
                async move { axum::Json(doc.as_ref().clone()) }
            }),
        )
        .merge(admin::routes())
        .fallback(not_found)
        .method_not_allowed_fallback(method_not_allowed)
        .layer(axum::middleware::from_fn_with_state(
            state.clone(),
            request_metrics::record,
        ))
        .layer(axum::middleware::from_fn(request_log::log))
        .layer(DefaultBodyLimit::max(BODY_LIMIT))
        // Answers hold secrets shown once (a channel's, a rotation's),
        // wallets and reports: no cache keeps one (the console's assets
        // set their own).
        .layer(SetResponseHeaderLayer::if_not_present(
            header::CACHE_CONTROL,
            HeaderValue::from_static("no-store"),
        ))
        .with_state(state)
}

async fn not_found() -> ApiError {
    ApiError::NotFound("no such route".into())
}

/// Longest method name an answer repeats (the metrics' label is bounded
/// apart: `request_metrics::method_label`).
const MAX_METHOD_SHOWN: usize = 32;

/// 405 naming the method that came (`TRACE`, an extension method cut to
/// [`MAX_METHOD_SHOWN`]); axum adds the `Allow` header listing the route's
/// methods.
async fn method_not_allowed(method: axum::http::Method) -> ApiError {
    let name = method.as_str();
    let shown = name.get(..MAX_METHOD_SHOWN).unwrap_or(name);
    ApiError::MethodNotAllowed(shown.to_owned())
}

pub use self::http::server::serve;

pub async fn shutdown_signal() {
    let ctrl_c = tokio::signal::ctrl_c();
    let mut term = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate())
        .expect("a SIGTERM handler can be installed");
    tokio::select! {
        _ = ctrl_c => {},
        _ = term.recv() => {},
    }
    tracing::info!("shutting down: finishing in-flight requests");
}
