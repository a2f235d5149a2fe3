//! A template's public terms (docs/design.md §15, "What apps can read"):
//! what a user may know of a campaign, for apps to render a coupon or an
//! offer. Never the quota, the stock, the channels, the rate limits or an
//! allow-list's members: only that there is one.

use std::collections::HashMap;

use serde::Serialize;
use tokio_postgres::types::Json;
use tokio_postgres::{GenericClient, Row};
use utoipa::ToSchema;

use crate::db::Named;
use crate::domain::eligibility::Eligibility;
use crate::domain::ids::{ShopId, TemplateSn};
use crate::domain::money::Money;
use crate::domain::rule::RawDiscount;
use crate::domain::rule_text::rule_text;
use crate::domain::scope::RawScopeEntry;
use crate::domain::template_status::TemplateStatus;
use crate::domain::terms::{Kind, RawTerms, Stacking, Terms};
use crate::domain::validity::RawValidity;
use crate::queries::templates::IssueWindowView;
use crate::write_model::RowError;

/// What a user may see of a template.
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct TemplateTerms {
    pub sn: String,
    pub name: String,
    /// What the campaign is, in the operator's words; absent: none.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// `draft`, `active`, `stopped` or `void`.
    pub status: TemplateStatus,
    /// `goods` (order lines) or `shipping` (the shipping fee).
    #[schema(value_type = String)]
    pub kind: Kind,
    pub currency: String,
    /// The discount rule as data (`fixed_off`, `per_threshold_off`, `rate`,
    /// `ladder`), amounts with two places.
    pub discount: RawDiscount,
    /// The rule in words, e.g. "20.00 off orders of 199.00 or more".
    pub rule_text: String,
    pub face_value: Money,
    /// The validity of coupons issued now (an issued coupon carries its own
    /// `effective_at` and `expires_at`).
    pub validity: RawValidity,
    /// `exclusive` or `stackable`.
    #[schema(value_type = String)]
    pub stacking: Stacking,
    /// Where the coupon applies: entries of one kind OR, of different kinds AND.
    pub use_scope: Vec<RawScopeEntry>,
    /// The shop whose lines it applies to; absent: the platform's.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<String>)]
    pub shop_id: Option<ShopId>,
    /// Who may claim: tags, regions, new users only, and whether an
    /// allow-list applies (never its members); absent: anyone.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub eligibility: Option<Eligibility>,
    /// When it may be claimed.
    pub issue_window: IssueWindowView,
}

/// The columns [`TemplateTerms::from_row`] reads, from a template `t`.
pub(crate) const COLUMNS: &str = "t.sn, t.name, t.description, t.status, t.terms, t.shop_id, t.eligibility, t.issue_begin, \
     t.issue_end";
/// How many columns [`COLUMNS`] is.
pub(crate) const WIDTH: usize = 9;

impl TemplateTerms {
    /// From [`COLUMNS`]; the stored terms are read as the rules read them.
    pub(crate) fn from_row(row: &Row) -> Result<Self, RowError> {
        let raw: RawTerms = serde_json::from_value(row.try_get(4)?)
            .map_err(|e| RowError::Unreadable(format!("template terms: {e}")))?;
        let terms =
            Terms::parse(&raw).map_err(|e| RowError::Unreadable(format!("template terms: {e}")))?;
        let canonical = terms.to_raw();
        Ok(Self {
            sn: row.try_get(0)?,
            name: row.try_get(1)?,
            description: row.try_get(2)?,
            status: row.try_get::<_, Named<_>>(3)?.0,
            kind: terms.kind(),
            currency: canonical.currency,
            discount: canonical.discount,
            rule_text: rule_text(terms.rule(), terms.kind()),
            face_value: terms.face_value(),
            validity: canonical.validity,
            stacking: terms.stacking(),
            use_scope: canonical.use_scope,
            shop_id: row.try_get(5)?,
            eligibility: row.try_get::<_, Option<Json<_>>>(6)?.map(|j| j.0),
            issue_window: IssueWindowView {
                begin: row.try_get(7)?,
                end: row.try_get(8)?,
            },
        })
    }
}

/// One template's terms, if it exists.
pub async fn terms(
    client: &impl GenericClient,
    sn: &TemplateSn,
) -> Result<Option<TemplateTerms>, RowError> {
    let sql = format!("SELECT {COLUMNS} FROM templates t WHERE t.sn = $1");
    let row = client.query_opt(&sql, &[&sn.as_str()]).await?;
    row.as_ref().map(TemplateTerms::from_row).transpose()
}

/// The terms of each of `sns` (one read, however many coupons share them).
pub async fn terms_of(
    client: &impl GenericClient,
    sns: &[&str],
) -> Result<HashMap<String, TemplateTerms>, RowError> {
    let sql = format!("SELECT {COLUMNS} FROM templates t WHERE t.sn = ANY($1)");
    let rows = client.query(&sql, &[&sns]).await?;
    rows.iter()
        .map(|r| TemplateTerms::from_row(r).map(|t| (t.sn.clone(), t)))
        .collect()
}
