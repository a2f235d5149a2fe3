//! Templates as the API shows them: one, or a page of them newest first;
//! and a template's claim rate limits, for the claim path.

use std::sync::LazyLock;

use chrono::{DateTime, NaiveDate, Utc};
use serde::Serialize;
use serde_json::Value;
use tokio_postgres::types::Json;
use tokio_postgres::{GenericClient, Row};
use utoipa::ToSchema;

use crate::db::Named;
use crate::domain::coupon_state::CouponStatus;
use crate::domain::eligibility::Eligibility;
use crate::domain::events::IssueWindow;
use crate::domain::ids::ChannelId;
use crate::domain::ids::{ShopId, TemplateSn};
use crate::domain::rate_limit::RateLimit;
use crate::domain::template_status::TemplateStatus;
use crate::domain::terms::RefundPolicy;
use crate::queries::page::{self, Bounds, List, Page, page_of};
use crate::queries::template_budget::{BudgetView, STORED, StoredBudget};

/// Largest page of templates.
pub const MAX_PAGE: i64 = 200;

/// A template as the API shows it.
#[derive(Serialize, ToSchema)]
pub struct TemplateView {
    pub sn: String,
    pub name: String,
    /// What the campaign is, as apps show it; absent: none.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    pub status: TemplateStatus,
    /// The terms: `kind`, `currency`, `discount`, `face_value`, `validity`,
    /// `stacking`, `use_scope` (as created).
    #[serde(flatten)]
    #[schema(value_type = TermsView)]
    pub terms: Value,
    pub issue_window: IssueWindowView,
    pub total: i64,
    pub issued: i64,
    pub per_user_limit: i32,
    pub refund_policy: RefundPolicy,
    /// A number, or a list when the template has several reminders.
    #[schema(value_type = Option<crate::domain::reminder::RawRemindDays>)]
    pub remind_days_before: Option<crate::domain::reminder::RemindDays>,
    /// Claim rate limits per channel and per user; null: none.
    pub rate_limit: Option<RateLimit>,
    #[schema(value_type = Vec<Uuid>)]
    pub channels: Vec<ChannelId>,
    pub created_at: DateTime<Utc>,
    /// Who may claim (docs/design.md §15); absent: anyone a listed channel names.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub eligibility: Option<Eligibility>,
    /// The shop the template belongs to; absent: the platform's.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<String>)]
    pub shop_id: Option<ShopId>,
    /// A void template's coupons still to be voided (docs/design.md §15):
    /// 0 once voiding is done; absent unless the template is void.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub unused_left: Option<i64>,
    /// What its coupons may cost and where that stands (docs/design.md
    /// §15, "Budgets"); absent: no budget.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub budget: Option<BudgetView>,
}

/// The terms inside a template's answer: the fields of `RawTerms`, in a
/// schema that, unlike the request's, lets the template's other fields sit
/// beside them (a flattened `RawTerms` would forbid them).
#[derive(ToSchema)]
#[allow(dead_code)]
pub struct TermsView {
    /// `goods` | `shipping`
    kind: String,
    currency: String,
    discount: crate::domain::rule::RawDiscount,
    face_value: Option<String>,
    validity: crate::domain::validity::RawValidity,
    /// `exclusive` | `stackable`
    stacking: String,
    use_scope: Vec<crate::domain::scope::RawScopeEntry>,
}

/// When coupons of the template (or a package) may be claimed.
#[derive(Clone, Debug, Serialize, serde::Deserialize, ToSchema)]
pub struct IssueWindowView {
    pub begin: DateTime<Utc>,
    pub end: DateTime<Utc>,
}

impl From<IssueWindow> for IssueWindowView {
    fn from(w: IssueWindow) -> Self {
        Self {
            begin: w.begin,
            end: w.end,
        }
    }
}

page_of!(
    /// A page of templates, newest first, with the count of all that match.
    TemplatePage { templates: TemplateView }
);

/// The columns [`TemplateView::from_row`] reads. The statuses are written
/// into the text from their enums (the list's pages bind their own
/// parameters after these).
static COLUMNS: LazyLock<String> = LazyLock::new(|| {
    format!(
        "sn, name, status, terms, issue_begin, issue_end, total, issued,
        per_user_limit, refund_policy, remind_days_before, created_at,
        ARRAY(SELECT channel_id FROM template_channels
               WHERE template_sn = t.sn ORDER BY channel_id),
        rate_limit,
        CASE WHEN status = '{void}' THEN (SELECT count(*) FROM coupons c
               WHERE c.template_sn = t.sn AND c.status = '{unused}') END,
        eligibility, shop_id, description, {budget}",
        budget = STORED,
        void = TemplateStatus::Void.as_str(),
        unused = CouponStatus::Unused.as_str(),
    )
});

impl TemplateView {
    /// Fails (rather than panics) on a `status`, `refund_policy` or
    /// `rate_limit` that is not one: only a hand edit of the row could put
    /// one there.
    fn from_row(row: &Row, today: NaiveDate) -> Result<Self, tokio_postgres::Error> {
        let budget = row.try_get::<_, Option<Json<StoredBudget>>>(18)?;
        Ok(Self {
            sn: row.get(0),
            name: row.get(1),
            status: row.try_get::<_, Named<_>>(2)?.0,
            terms: row.get(3),
            issue_window: IssueWindowView {
                begin: row.get(4),
                end: row.get(5),
            },
            total: row.get(6),
            issued: row.get(7),
            per_user_limit: row.get(8),
            refund_policy: row.try_get::<_, Named<_>>(9)?.0,
            remind_days_before: crate::domain::reminder::RemindDays::from_db(row.get(10)),
            created_at: row.get(11),
            channels: row.get(12),
            rate_limit: row.try_get::<_, Option<Json<_>>>(13)?.map(|j| j.0),
            unused_left: row.get(14),
            eligibility: row.try_get::<_, Option<Json<_>>>(15)?.map(|j| j.0),
            shop_id: row.get(16),
            description: row.get(17),
            budget: budget.map(|Json(b)| BudgetView::of(&b, today)),
        })
    }
}

/// One template, if it exists; its budget's day counters of `today` (the
/// business day).
pub async fn template(
    client: &impl GenericClient,
    sn: &TemplateSn,
    today: NaiveDate,
) -> Result<Option<TemplateView>, tokio_postgres::Error> {
    let row = client
        .query_opt(
            &format!("SELECT {} FROM templates t WHERE sn = $1", *COLUMNS),
            &[&sn.as_str()],
        )
        .await?;
    row.as_ref()
        .map(|r| TemplateView::from_row(r, today))
        .transpose()
}

/// A template's claim rate limits (None: none, or no such template), for
/// the claim path. A stored value that does not read as one is an error.
pub async fn rate_limit(
    client: &impl GenericClient,
    sn: &str,
) -> Result<Option<RateLimit>, tokio_postgres::Error> {
    let sql = "SELECT rate_limit FROM templates WHERE sn = $1";
    let row = client.query_opt(sql, &[&sn]).await?;
    let limit = match row {
        Some(r) => r.try_get::<_, Option<Json<RateLimit>>>(0)?,
        None => None,
    };
    Ok(limit.map(|j| j.0))
}

/// Whether the template exists.
pub async fn exists(
    client: &impl GenericClient,
    sn: &TemplateSn,
) -> Result<bool, tokio_postgres::Error> {
    let row = client
        .query_opt("SELECT 1 FROM templates WHERE sn = $1", &[&sn.as_str()])
        .await?;
    Ok(row.is_some())
}

/// When the template was created, if it exists.
pub async fn created_at(
    client: &impl GenericClient,
    sn: &TemplateSn,
) -> Result<Option<DateTime<Utc>>, tokio_postgres::Error> {
    let sql = "SELECT created_at FROM templates WHERE sn = $1";
    let row = client.query_opt(sql, &[&sn.as_str()]).await?;
    Ok(row.map(|r| r.get(0)))
}

/// A template's status and issue window, if it exists.
pub async fn issue_state(
    client: &impl GenericClient,
    sn: &TemplateSn,
) -> Result<Option<(TemplateStatus, (DateTime<Utc>, DateTime<Utc>))>, tokio_postgres::Error> {
    let sql = "SELECT status, issue_begin, issue_end FROM templates WHERE sn = $1";
    let Some(r) = client.query_opt(sql, &[&sn.as_str()]).await? else {
        return Ok(None);
    };
    let crate::db::Named(status) = r.try_get(0)?;
    Ok(Some((status, (r.get(1), r.get(2)))))
}

/// Templates, newest first (creation time, then sn), optionally of one
/// status, and of some shops only (a merchant's).
pub async fn page(
    client: &impl GenericClient,
    status: Option<TemplateStatus>,
    shops: Option<Vec<String>>,
    bounds: Bounds,
    today: NaiveDate,
) -> Result<Page<TemplateView>, tokio_postgres::Error> {
    let status = status.map(TemplateStatus::as_str);
    let list = List {
        columns: &COLUMNS,
        from: "templates t",
        filter: "($1::text IS NULL OR status = $1) AND ($2::text[] IS NULL OR shop_id = ANY($2))",
        order: "created_at DESC, sn DESC",
    };
    page::fetch(client, &list, &[&status, &shops], bounds, |r| {
        TemplateView::from_row(r, today)
    })
    .await
}
