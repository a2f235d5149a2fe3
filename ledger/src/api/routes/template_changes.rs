//! `PATCH /v1/templates/{sn}` and `POST /v1/templates/{sn}/quota`: a running
//! campaign changed in place (docs/design.md §15).

use axum::extract::State;
use axum::http::StatusCode;
use axum::response::Response;
use chrono::{DateTime, Utc};
use serde::Deserialize;
use serde_json::Value;
use utoipa::ToSchema;

use crate::api::AppState;
use crate::api::auth::principal::Principal;
use crate::api::http::context::Ctx;
use crate::api::http::error::{ApiError, ErrorBody};
use crate::api::http::extract::{self, ApiJson};
use crate::api::http::path_param::ApiPath;
use crate::commands::templates::{self, TemplateChange};
use crate::domain::budget::{Budget, RawBudget};
use crate::domain::eligibility::Eligibility;
use crate::domain::events::TemplateUpdated;
use crate::domain::ids::TemplateSn;
use crate::domain::patch_field::present;
use crate::domain::rate_limit::RateLimit;
use crate::domain::reminder::{RawRemindDays, RemindDays};
use crate::domain::template_adjust::Adjustment;
use crate::domain::validity::{INSTANT_RULE, RawValidity, ValidityTerms, storable_instant};
use crate::queries::templates::TemplateView;

use super::templates::{
    MAX_NAME_LEN, SN, checked_description, checked_eligibility, checked_rate_limit, current,
};

/// Fields fixed at creation: issued coupons were priced by them.
const IMMUTABLE: &[&str] = &[
    "kind",
    "currency",
    "discount",
    "face_value",
    "use_scope",
    "stacking",
    "shop_id",
    "refund_policy",
    "shop_id",
];

/// `PATCH /v1/templates/{sn}`: the template's attributes, and its
/// campaign's window, per-user limit and validity (docs/design.md §15).
#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct UpdateTemplate {
    #[schema(schema_with = crate::api::http::schemas::name::<{ super::templates::MAX_NAME_LEN }>)]
    pub name: Option<String>,
    /// A number of days or a list of distinct numbers (each 0 to 365), or
    /// null to stop reminders. Applies to coupons issued afterwards.
    #[serde(default, deserialize_with = "present")]
    #[schema(value_type = Option<RawRemindDays>)]
    pub remind_days_before: Option<Option<RawRemindDays>>,
    /// The claim rate limits that replace the template's (a bucket left
    /// out is no limit on that side), or null (or `{}`) to remove them.
    #[serde(default, deserialize_with = "present")]
    #[schema(value_type = Option<RateLimit>)]
    pub rate_limit: Option<Option<RateLimit>>,
    /// The text apps show (at most 1,000 characters), or null (or "") to
    /// remove it.
    #[serde(default, deserialize_with = "present")]
    #[schema(value_type = Option<String>)]
    pub description: Option<Option<String>>,
    /// The eligibility that replaces the template's whole, or null (or
    /// `{}`) to let anyone a listed channel names claim.
    #[serde(default, deserialize_with = "present")]
    #[schema(value_type = Option<Eligibility>)]
    pub eligibility: Option<Option<Eligibility>>,
    /// When claims are open: either end, or both. The end may move either
    /// way but not into the past; the begin only while it is still ahead,
    /// and not into the past.
    #[schema(nullable = false)]
    pub issue_window: Option<WindowChange>,
    /// The new per-user limit: it may only be raised.
    #[schema(schema_with = crate::api::http::schemas::range::<1, { i32::MAX as i64 }>)]
    pub per_user_limit: Option<i32>,
    /// The validity of coupons issued from now on (as at create); coupons
    /// already issued keep theirs.
    #[schema(nullable = false)]
    pub validity: Option<RawValidity>,
    /// The budget's new amounts (docs/design.md §15, "Budgets"): `total`
    /// and `daily` may only rise (409 `budget_not_raised`); `daily` left out
    /// keeps the day's cap. Only a template created with a budget has one.
    #[schema(nullable = false)]
    pub budget: Option<RawBudget>,
}

/// A moved issue window: an end left out stays as it is.
#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct WindowChange {
    #[schema(nullable = false)]
    pub begin: Option<DateTime<Utc>>,
    #[schema(nullable = false)]
    pub end: Option<DateTime<Utc>>,
}

/// Change a template's name, reminder, rate limit, description or
/// eligibility, move its issue window, raise its per-user limit or its
/// budget (409 `budget_not_raised` for a lower one, or for a template
/// created without one) or change the validity of the coupons it issues
/// from now on. Each change is an
/// event. Discount, scope, face value, kind, currency, stacking, refund
/// policy and shop are immutable (409); the quota and status have their
/// own routes.
#[utoipa::path(patch, path = "/v1/templates/{sn}", operation_id = "update_template",
    tag = "templates", request_body = UpdateTemplate, params(SN),
    security(("admin" = [])),
    responses((status = 200, body = TemplateView), (status = 400, body = ErrorBody),
        (status = 404, body = ErrorBody), (status = 409, body = ErrorBody),
        (status = 422, body = ErrorBody)))]
pub async fn update(
    State(state): State<AppState>,
    _: Principal,
    ctx: Ctx,
    ApiPath(sn): ApiPath<TemplateSn>,
    body: ApiJson<serde_json::Map<String, Value>>,
) -> Result<Response, ApiError> {
    if let Some(field) = body.value.keys().find(|k| IMMUTABLE.contains(&k.as_str())) {
        return Err(ApiError::conflict(
            "immutable_field",
            format!("{field} cannot change once a template is created"),
        ));
    }
    if let Some(field) = body
        .value
        .keys()
        .find(|k| matches!(k.as_str(), "total" | "status"))
    {
        return Err(ApiError::conflict(
            "use_dedicated_route",
            format!("{field} changes through /quota or /activate, /stop, /void"),
        ));
    }
    refuse_nulls(&body.value)?;
    let input: UpdateTemplate = extract::from_value(Value::Object(body.value))?;
    let change = validate_update(&sn, input)?;
    let (metadata, now) = (ctx.principal_metadata(), state.now());
    let today = state.today();
    let changed = sn.clone();
    let response = ctx
        .write(&state, "admin", &body.hash, StatusCode::OK, |tx| {
            Box::pin(async move {
                templates::update(tx, &change, &metadata, now).await?;
                current(tx, &sn, today).await
            })
        })
        .await;
    // A new rate limit or per-user limit holds in this process's gate at
    // once (the others read it again within 2 s).
    state.flash.template_changed(&changed).await;
    response
}

/// Checks every field's form; what depends on the template as it stands
/// (the past, the limit only rising) is the command's.
fn validate_update(sn: &TemplateSn, input: UpdateTemplate) -> Result<TemplateChange, ApiError> {
    let updated = validate_attributes(sn, &input)?;
    let adjustment = validate_adjustment(&input)?;
    let budget = input
        .budget
        .as_ref()
        .map(|raw| Budget::parse(raw).map_err(|e| e.within("budget")))
        .transpose()?;
    if updated.is_none() && adjustment == Adjustment::default() && budget.is_none() {
        return Err(ApiError::invalid_field(
            "nothing to change: give name, remind_days_before, rate_limit, description, \
             eligibility, issue_window, per_user_limit, validity or budget",
        ));
    }
    Ok(TemplateChange {
        sn: sn.clone(),
        updated,
        adjustment,
        budget,
    })
}

/// The attributes of a `TemplateUpdated`, or None when none is given.
fn validate_attributes(
    sn: &TemplateSn,
    input: &UpdateTemplate,
) -> Result<Option<TemplateUpdated>, ApiError> {
    let name = match input.name.as_deref().map(str::trim) {
        Some(n) if n.is_empty() || n.chars().count() > MAX_NAME_LEN => {
            return Err(ApiError::invalid_field("name: must be 1 to 200 characters"));
        }
        other => other.map(str::to_owned),
    };
    let remind_days_before = match &input.remind_days_before {
        Some(Some(raw)) => {
            Some(Some(RemindDays::parse(raw).map_err(|e| {
                ApiError::invalid_field(format!("remind_days_before: {e}"))
            })?))
        }
        Some(None) => Some(None),
        None => None,
    };
    let rate_limit = match input.rate_limit {
        Some(Some(raw)) => Some(checked_rate_limit(raw)?),
        Some(None) => Some(None),
        None => None,
    };
    let description = match &input.description {
        Some(text) => Some(checked_description(text.as_deref())?),
        None => None,
    };
    let eligibility = match input.eligibility.clone() {
        Some(Some(raw)) => Some(checked_eligibility(raw)?),
        Some(None) => Some(None),
        None => None,
    };
    let updated = TemplateUpdated {
        sn: sn.clone(),
        name,
        remind_days_before,
        rate_limit,
        description,
        eligibility,
    };
    let any = updated.name.is_some()
        || updated.remind_days_before.is_some()
        || updated.rate_limit.is_some()
        || updated.description.is_some()
        || updated.eligibility.is_some();
    Ok(any.then_some(updated))
}

/// Fields that cannot be cleared, nor a window's ends: a null is a
/// mistake, not "leave it" (the document calls them not nullable).
fn refuse_nulls(body: &serde_json::Map<String, Value>) -> Result<(), ApiError> {
    const NOT_NULL: [&str; 5] = [
        "name",
        "issue_window",
        "per_user_limit",
        "validity",
        "budget",
    ];
    let top = NOT_NULL
        .iter()
        .find(|f| body.get(**f) == Some(&Value::Null));
    let window = body.get("issue_window").and_then(Value::as_object);
    let end = ["begin", "end"]
        .iter()
        .find(|e| window.is_some_and(|w| w.get(**e) == Some(&Value::Null)));
    let field = match (top, end) {
        (Some(field), _) => (*field).to_owned(),
        (None, Some(end)) => format!("issue_window.{end}"),
        (None, None) => return Ok(()),
    };
    Err(ApiError::BadRequest {
        code: "invalid_field",
        message: format!("{field}: must not be null (leave it out to keep it)"),
    })
}

/// The campaign's parts asked for, each in its stored form.
fn validate_adjustment(input: &UpdateTemplate) -> Result<Adjustment, ApiError> {
    let at = |field: &str, t: Option<DateTime<Utc>>| {
        t.map(|t| {
            storable_instant(t)
                .ok_or_else(|| ApiError::invalid_field(format!("{field}: {INSTANT_RULE}")))
        })
        .transpose()
    };
    let (begin, end) = match &input.issue_window {
        Some(w) if w.begin.is_none() && w.end.is_none() => {
            return Err(ApiError::invalid_field(
                "issue_window: give begin, end or both",
            ));
        }
        Some(w) => (
            at("issue_window.begin", w.begin)?,
            at("issue_window.end", w.end)?,
        ),
        None => (None, None),
    };
    if let (Some(b), Some(e)) = (begin, end)
        && b >= e
    {
        return Err(ApiError::invalid_field(
            "issue_window: begin must be before end",
        ));
    }
    if input.per_user_limit.is_some_and(|n| n < 1) {
        return Err(ApiError::invalid_field(
            "per_user_limit: must be at least 1",
        ));
    }
    let validity = match &input.validity {
        Some(raw) => Some(ValidityTerms::parse(raw).map_err(|e| e.within("validity"))?),
        None => None,
    };
    Ok(Adjustment {
        begin,
        end,
        per_user_limit: input.per_user_limit,
        validity,
    })
}

#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct RaiseQuota {
    pub total: i64,
}

/// Raise the quota (it can only grow).
#[utoipa::path(post, path = "/v1/templates/{sn}/quota", operation_id = "raise_quota",
    tag = "templates", request_body = RaiseQuota, params(SN),
    security(("admin" = [])),
    responses((status = 200, body = TemplateView), (status = 404, body = ErrorBody),
        (status = 409, body = ErrorBody)))]
pub async fn quota(
    State(state): State<AppState>,
    _: Principal,
    ctx: Ctx,
    ApiPath(sn): ApiPath<TemplateSn>,
    body: ApiJson<RaiseQuota>,
) -> Result<Response, ApiError> {
    let (metadata, now, total) = (ctx.principal_metadata(), state.now(), body.value.total);
    let today = state.today();
    let changed = sn.clone();
    let response = ctx
        .write(&state, "admin", &body.hash, StatusCode::OK, |tx| {
            Box::pin(async move {
                templates::raise_quota(tx, &sn, total, &metadata, now).await?;
                current(tx, &sn, today).await
            })
        })
        .await;
    // The new units are in the gate's stock before the answer goes out.
    state.flash.template_changed(&changed).await;
    response
}
