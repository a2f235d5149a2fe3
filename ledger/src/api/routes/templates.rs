//! `/v1/templates`: create, list, read, activate/stop/void. Changes in place
//! are in `template_changes`, the channel list in `template_channels`.

use axum::Json;
use axum::extract::State;
use axum::http::StatusCode;
use axum::response::Response;
use deadpool_postgres::Transaction;
use serde::Deserialize;
use utoipa::{IntoParams, ToSchema};

use crate::api::AppState;
use crate::api::auth::principal::Principal;
use crate::api::http::context::Ctx;
use crate::api::http::error::{ApiError, ErrorBody};
use crate::api::http::extract::{self, ApiJson, ApiQuery};
use crate::api::http::path_param::ApiPath;
use crate::commands::templates::{self, NewTemplate};
use crate::domain::budget::{Budget, RawBudget};
use crate::domain::eligibility::Eligibility;
use crate::domain::events::{IssueWindow, TemplateCreated};
use crate::domain::ids::{ShopId, TemplateSn};
use crate::domain::money::Currency;
use crate::domain::names;
use crate::domain::rate_limit::RateLimit;
use crate::domain::reminder::{RawRemindDays, RemindDays};
use crate::domain::rule::RawDiscount;
use crate::domain::scope::RawScopeEntry;
use crate::domain::template_status::{StatusAction, TemplateStatus};
use crate::domain::terms::{Kind, RawTerms, RefundPolicy, Stacking, Terms};
use crate::domain::validity::{INSTANT_RULE, RawValidity, storable_instant};
use crate::queries::templates::{
    self as queries, IssueWindowView, MAX_PAGE, TemplatePage, TemplateView,
};
use crate::queries::terms::{self, TemplateTerms};

pub(super) const MAX_NAME_LEN: usize = 200;
/// Longest description: a paragraph an app shows under the coupon.
const MAX_DESCRIPTION_LEN: usize = 1_000;

/// `POST /v1/templates` (docs/design.md §7). Amounts are strings ("20.00").
#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct CreateTemplate {
    #[schema(schema_with = crate::api::http::schemas::name::<MAX_NAME_LEN>)]
    pub name: String,
    /// What the campaign is, as apps show it to users: at most 1,000
    /// characters.
    pub description: Option<String>,
    /// `goods` | `shipping`
    #[schema(value_type = Kind)]
    pub kind: String,
    #[schema(value_type = Currency)]
    pub currency: String,
    /// `fixed_off`, `per_threshold_off`, `rate` or `ladder` (see docs/design.md §7).
    pub discount: RawDiscount,
    #[schema(value_type = Option<crate::domain::money::PositiveMoney>)]
    pub face_value: Option<String>,
    #[schema(value_type = IssueWindowView)]
    pub issue_window: IssueWindow,
    /// `{"type": "absolute", "begin", "end"}` or `{"type": "relative", "begin_days", "end_days"}`
    pub validity: RawValidity,
    /// Coupons the template may issue in all, 0 or more.
    #[schema(schema_with = crate::api::http::schemas::range::<0, { i64::MAX }>)]
    pub total: i64,
    /// Coupons one user may hold from it, at least 1 (default 1).
    #[serde(default = "one")]
    #[schema(schema_with = crate::api::http::schemas::range::<1, { i32::MAX as i64 }>)]
    pub per_user_limit: i32,
    /// `exclusive` | `stackable`
    #[schema(value_type = Stacking)]
    pub stacking: String,
    #[serde(default)]
    pub use_scope: Vec<RawScopeEntry>,
    /// `restore` (default) | `reissue`
    #[serde(default = "restore")]
    #[schema(value_type = RefundPolicy)]
    pub refund_policy: String,
    /// Days before expiry to remind the holder: a number or a list of
    /// distinct numbers, each 0 to 365 (`[7, 3, 1]`); absent or null: none.
    pub remind_days_before: Option<RawRemindDays>,
    /// Claim rate limits, per channel and per user (each bucket optional);
    /// claims beyond them answer 429 with `Retry-After`. Absent, null or
    /// `{}`: none.
    pub rate_limit: Option<RateLimit>,
    /// Who may claim (docs/design.md §15): `user_tags` (`{"all": [...]}` or
    /// `{"any": [...]}`), `regions`, `new_users_only`, `allow_list`. Absent,
    /// null or `{}`: anyone a listed channel names.
    pub eligibility: Option<Eligibility>,
    /// The shop the template belongs to (1 to 64 visible ASCII, not
    /// `(platform)`): its coupons apply only to that shop's order lines, so
    /// `use_scope` gets `{"kind": "shop", "values": [shop_id]}` unless it
    /// lists exactly that shop already (another shop there: 400 naming
    /// `use_scope`). Absent: the platform's.
    #[schema(value_type = Option<String>)]
    pub shop_id: Option<String>,
    /// What its coupons may cost (docs/design.md §15, "Budgets"), in its
    /// currency: `total`, and `daily` per business day. A lock past what
    /// is left is 409 `budget_exhausted`. Absent: no cap.
    pub budget: Option<RawBudget>,
}

fn one() -> i32 {
    1
}
fn restore() -> String {
    RefundPolicy::Restore.as_str().into()
}

impl CreateTemplate {
    /// Validates everything; the error names the first field at fault.
    fn parse(self) -> Result<NewTemplate, ApiError> {
        let invalid = |field: &str, why: &str| ApiError::BadRequest {
            code: "invalid_field",
            message: format!("{field}: {why}"),
        };
        let name = self.name.trim();
        if name.is_empty() || name.chars().count() > MAX_NAME_LEN {
            return Err(invalid("name", "must be 1 to 200 characters"));
        }
        let raw = RawTerms {
            kind: self.kind,
            currency: self.currency,
            discount: self.discount,
            face_value: self.face_value,
            validity: self.validity,
            stacking: self.stacking,
            use_scope: self.use_scope,
        };
        let (terms, shop_id) = shop_terms(&raw, self.shop_id.as_deref())?;
        // Kept to the microsecond, as stored (the event and the row agree),
        // before it is checked: two instants apart by less are one.
        let at = |field: &str, t| storable_instant(t).ok_or_else(|| invalid(field, INSTANT_RULE));
        let issue_window = IssueWindow {
            begin: at("issue_window.begin", self.issue_window.begin)?,
            end: at("issue_window.end", self.issue_window.end)?,
        };
        if issue_window.begin >= issue_window.end {
            return Err(invalid("issue_window", "begin must be before end"));
        }
        if self.total < 0 {
            return Err(invalid("total", "must not be negative"));
        }
        if self.per_user_limit < 1 {
            return Err(invalid("per_user_limit", "must be at least 1"));
        }
        let refund_policy: RefundPolicy = self.refund_policy.parse().map_err(|_| {
            let expected = names::alternatives::<RefundPolicy>();
            invalid("refund_policy", &format!("must be {expected}"))
        })?;
        let remind_days_before = match &self.remind_days_before {
            Some(raw) => Some(
                RemindDays::parse(raw)
                    .map_err(|e| invalid("remind_days_before", &e.to_string()))?,
            ),
            None => None,
        };
        let rate_limit = match self.rate_limit {
            Some(raw) => checked_rate_limit(raw)?,
            None => None,
        };
        let eligibility = match self.eligibility {
            Some(raw) => checked_eligibility(raw)?,
            None => None,
        };
        let description = checked_description(self.description.as_deref())?;
        let budget = self.budget.as_ref().map(Budget::parse).transpose();
        let budget = budget.map_err(|e| e.within("budget"))?;
        let created = TemplateCreated {
            sn: TemplateSn::generate(),
            name: name.to_owned(),
            description,
            terms: terms.to_raw(),
            issue_window,
            total: self.total,
            per_user_limit: self.per_user_limit,
            refund_policy,
            remind_days_before,
            rate_limit,
            eligibility,
            shop_id,
            budget,
        };
        Ok(NewTemplate { created, terms })
    }
}

/// The terms, and the shop the template belongs to: a shop's template has
/// its scope confined to the shop's lines (docs/design.md §15), so the
/// stored terms say what pricing does and nothing else needs the shop.
fn shop_terms(raw: &RawTerms, shop: Option<&str>) -> Result<(Terms, Option<ShopId>), ApiError> {
    let mut terms = Terms::parse(raw)?;
    let Some(shop) = shop else {
        return Ok((terms, None));
    };
    let shop = ShopId::parse(shop).map_err(|e| ApiError::BadRequest {
        code: "invalid_field",
        message: format!("shop_id: {e}"),
    })?;
    terms.confine_to_shop(&shop)?;
    Ok((terms, Some(shop)))
}

/// A rate limit as it arrived (serde checked its shape), with its ranges
/// checked. One without any bucket limits nothing: stored as none, so that
/// "no limit" has one form in the row, the events and the answers.
pub(super) fn checked_rate_limit(raw: RateLimit) -> Result<Option<RateLimit>, ApiError> {
    let limit = raw.validate().map_err(|e| ApiError::BadRequest {
        code: "invalid_field",
        message: format!("rate_limit: {e}"),
    })?;
    Ok((!limit.is_empty()).then_some(limit))
}

/// A description as it arrived: trimmed, at most [`MAX_DESCRIPTION_LEN`]
/// characters; an empty one is none.
pub(super) fn checked_description(raw: Option<&str>) -> Result<Option<String>, ApiError> {
    let Some(text) = raw.map(str::trim) else {
        return Ok(None);
    };
    if text.chars().count() > MAX_DESCRIPTION_LEN || text.contains('\0') {
        return Err(ApiError::BadRequest {
            code: "invalid_field",
            message: format!("description: must be at most {MAX_DESCRIPTION_LEN} characters"),
        });
    }
    Ok((!text.is_empty()).then(|| text.to_owned()))
}

/// An eligibility as it arrived, its lists checked. One that restricts no
/// one is stored as none, so that "anyone" has one form.
pub(super) fn checked_eligibility(raw: Eligibility) -> Result<Option<Eligibility>, ApiError> {
    let e = Eligibility::parse(raw).map_err(|e| ApiError::BadRequest {
        code: "invalid_field",
        message: format!("eligibility.{e}"),
    })?;
    Ok(e.restricts().then_some(e))
}

/// The template as it now stands, in the command's transaction.
pub(super) async fn current(
    tx: &Transaction<'_>,
    sn: &TemplateSn,
    today: chrono::NaiveDate,
) -> Result<TemplateView, ApiError> {
    let found = queries::template(&**tx, sn, today).await?;
    found.ok_or_else(|| not_found(sn.as_str()))
}

pub(super) fn not_found(sn: &str) -> ApiError {
    ApiError::not_found("template", sn)
}

/// Create a template (draft).
#[utoipa::path(post, path = "/v1/templates", operation_id = "create_template",
    tag = "templates", request_body = CreateTemplate,
    security(("admin" = [])), responses((status = 201, body = TemplateView)))]
pub async fn create(
    State(state): State<AppState>,
    principal: Principal,
    ctx: Ctx,
    mut body: ApiJson<CreateTemplate>,
) -> Result<Response, ApiError> {
    body.value.shop_id = principal.forced_shop(body.value.shop_id.take())?;
    let template = body.value.parse()?;
    let sn = template.created.sn.clone();
    let (metadata, now) = (ctx.principal_metadata(), state.now());
    let today = state.today();
    ctx.write(&state, "admin", &body.hash, StatusCode::CREATED, |tx| {
        Box::pin(async move {
            templates::create(tx, &template, &metadata, now).await?;
            current(tx, &sn, today).await
        })
    })
    .await
}

/// `GET /v1/templates` query: a page, optionally of one status.
#[derive(Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(deny_unknown_fields)]
pub struct ListQuery {
    /// `draft`, `active`, `stopped` or `void`.
    #[param(value_type = Option<TemplateStatus>)]
    pub status: Option<String>,
    /// Default 0.
    #[param(value_type = Option<crate::api::http::schemas::Offset>, inline)]
    pub offset: Option<i64>,
    /// 1 to 200, default 50.
    #[param(value_type = Option<crate::api::http::schemas::TemplatePageLimit>, inline)]
    pub limit: Option<i64>,
}

/// List templates, newest first, with the total count.
#[utoipa::path(get, path = "/v1/templates", operation_id = "list_templates",
    tag = "templates", params(ListQuery),
    security(("admin" = [])), responses((status = 200, body = TemplatePage)))]
pub async fn list(
    State(state): State<AppState>,
    principal: Principal,
    ApiQuery(q): ApiQuery<ListQuery>,
) -> Result<Json<TemplatePage>, ApiError> {
    let status = extract::status_filter::<TemplateStatus>(q.status.as_deref())?;
    let bounds = extract::page_bounds(q.offset, q.limit, MAX_PAGE)?;
    let client = state.pool.get().await?;
    let shops = principal.shop_filter();
    Ok(Json(
        queries::page(&**client, status, shops, bounds, state.today())
            .await?
            .into(),
    ))
}

/// Read a template.
#[utoipa::path(get, path = "/v1/templates/{sn}", operation_id = "read_template",
    tag = "templates", params(SN),
    security(("admin" = [])),
    responses((status = 200, body = TemplateView), (status = 404, body = ErrorBody)))]
pub async fn read(
    State(state): State<AppState>,
    _: Principal,
    ApiPath(sn): ApiPath<TemplateSn>,
) -> Result<Json<TemplateView>, ApiError> {
    let client = state.pool.get().await?;
    let view = queries::template(&**client, &sn, state.today()).await?;
    Ok(Json(view.ok_or_else(|| not_found(sn.as_str()))?))
}

/// A template's public terms: what a user may see of it (name,
/// description, the rule as data and in words, validity, scope, shop,
/// eligibility without an allow-list's members, issue window, status).
#[utoipa::path(get, path = "/v1/templates/{sn}/terms", operation_id = "template_terms",
    tag = "templates", params(SN),
    security(("service" = []), ("admin" = [])),
    responses((status = 200, body = TemplateTerms), (status = 404, body = ErrorBody)))]
pub async fn terms(
    State(state): State<AppState>,
    _: Principal,
    ApiPath(sn): ApiPath<TemplateSn>,
) -> Result<Json<TemplateTerms>, ApiError> {
    let client = state.pool.get().await?;
    let terms = terms::terms(&**client, &sn).await?;
    Ok(Json(terms.ok_or_else(|| not_found(sn.as_str()))?))
}

/// The template's serial number, in the path: how the OpenAPI document
/// names what `ApiPath<TemplateSn>` parses.
#[derive(IntoParams)]
#[into_params(parameter_in = Path)]
pub struct SN {
    /// The template's serial number.
    #[param(value_type = TemplateSn)]
    pub sn: String,
}

async fn change_status(
    state: AppState,
    (_, ctx): (Principal, Ctx),
    sn: TemplateSn,
    action: StatusAction,
) -> Result<Response, ApiError> {
    let hash = crate::exactly_once::idempotency::request_hash(&[
        sn.as_str().as_bytes(),
        format!("{action:?}").as_bytes(),
    ]);
    let (metadata, now) = (ctx.principal_metadata(), state.now());
    let today = state.today();
    let changed = sn.clone();
    let response = ctx
        .write(&state, "admin", &hash, StatusCode::OK, |tx| {
            Box::pin(async move {
                templates::change_status(tx, &sn, action, &metadata, now).await?;
                current(tx, &sn, today).await
            })
        })
        .await;
    // Claims open warm, and close at once in this process's gate.
    state.flash.template_changed(&changed).await;
    response
}

/// Activate a draft or stopped template: claims open.
#[utoipa::path(post, path = "/v1/templates/{sn}/activate", operation_id = "activate_template",
    tag = "templates", params(SN),
    security(("admin" = [])),
    responses((status = 200, body = TemplateView), (status = 404, body = ErrorBody),
        (status = 409, body = ErrorBody)))]
pub async fn activate(
    State(s): State<AppState>,
    admin: Principal,
    ctx: Ctx,
    ApiPath(sn): ApiPath<TemplateSn>,
) -> Result<Response, ApiError> {
    change_status(s, (admin, ctx), sn, StatusAction::Activate).await
}

/// Stop an active template: claims close; issued coupons stay usable.
#[utoipa::path(post, path = "/v1/templates/{sn}/stop", operation_id = "stop_template",
    tag = "templates", params(SN),
    security(("admin" = [])),
    responses((status = 200, body = TemplateView), (status = 404, body = ErrorBody),
        (status = 409, body = ErrorBody)))]
pub async fn stop(
    State(s): State<AppState>,
    admin: Principal,
    ctx: Ctx,
    ApiPath(sn): ApiPath<TemplateSn>,
) -> Result<Response, ApiError> {
    change_status(s, (admin, ctx), sn, StatusAction::Stop).await
}

/// Void a template: claims close for good and its coupons can no longer be locked.
#[utoipa::path(post, path = "/v1/templates/{sn}/void", operation_id = "void_template",
    tag = "templates", params(SN),
    security(("admin" = [])),
    responses((status = 200, body = TemplateView), (status = 404, body = ErrorBody),
        (status = 409, body = ErrorBody)))]
pub async fn void(
    State(s): State<AppState>,
    admin: Principal,
    ctx: Ctx,
    ApiPath(sn): ApiPath<TemplateSn>,
) -> Result<Response, ApiError> {
    change_status(s, (admin, ctx), sn, StatusAction::Void).await
}
