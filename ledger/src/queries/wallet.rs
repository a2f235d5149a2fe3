//! A user's wallet (docs/design.md §15, "What apps can read", and §20,
//! "Wallets"): a page of their coupons, filtered, sorted and keyset-paged,
//! each with its template's public terms, so an app renders it in one call;
//! and how many of them expire soon.

use chrono::{DateTime, Duration, Utc};
use rust_decimal::Decimal;
use serde::Serialize;
use tokio_postgres::types::ToSql;
use tokio_postgres::{GenericClient, Row};
use utoipa::ToSchema;
use uuid::Uuid;

use crate::domain::coupon_state::CouponStatus;
use crate::domain::wallet_order::{SortKey, SortOrder, WalletCursor, WalletSort};
use crate::queries::coupons::{COLUMNS, CouponView, Shelves};
use crate::queries::terms::{self, TemplateTerms};
use crate::write_model::RowError;

/// Largest page of a user's coupons.
pub const MAX_PAGE: i64 = 200;

/// A coupon as the API shows it, with its template's terms.
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct WalletCoupon {
    #[serde(flatten)]
    pub coupon: CouponView,
    /// The template's terms as they stand now; the coupon's own
    /// `effective_at` and `expires_at` were fixed when it was issued.
    pub terms: TemplateTerms,
}

/// A page of a user's coupons in the order asked, each with its terms.
#[derive(Serialize, ToSchema)]
pub struct WalletPage {
    pub coupons: Vec<WalletCoupon>,
    /// How many coupons match the filters (every page's, not this one's).
    pub total: i64,
    pub offset: i64,
    pub limit: i64,
    /// The `after` of the next page; absent on the last page.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub next_after: Option<String>,
}

/// Which of a user's coupons a wallet shows.
pub struct WalletFilter<'a> {
    pub user_id: &'a str,
    pub status: Option<CouponStatus>,
    /// Only coupons usable at this instant: unused, effective, not expired.
    pub usable_at: Option<DateTime<Utc>>,
    /// Only unused coupons expiring after `now` and within these days.
    pub expiring_within_days: Option<i64>,
    pub shelves: Shelves,
    pub now: DateTime<Utc>,
}

/// How the page is cut: by a cursor (`after`) or, for older callers, an offset.
pub struct WalletPaging {
    pub sort: WalletSort,
    pub order: SortOrder,
    pub after: Option<WalletCursor>,
    pub offset: i64,
    pub limit: i64,
}

/// The filtered wallet as one relation `w` (the coupon's columns, then
/// `face_value`), the user read inside each table so its index serves.
/// Parameters: $1 user, $2 status, $3 usable_at, $4 now, $5 expiring by.
fn filtered(shelves: Shelves) -> String {
    let of_user = |table: &str| format!("SELECT {COLUMNS} FROM {table} WHERE user_id = $1");
    let source = match shelves {
        Shelves::Hot => of_user("coupons"),
        Shelves::HotAndCold => format!(
            "{} UNION ALL {}",
            of_user("coupons"),
            of_user("coupons_archive")
        ),
    };
    let unused = CouponStatus::Unused.as_str();
    format!(
        "WITH w AS (
            SELECT c.*, t.face_value FROM ({source}) c JOIN templates t ON t.sn = c.template_sn
             WHERE ($2::text IS NULL OR c.status = $2)
               AND ($3::timestamptz IS NULL
                    OR (c.status = '{unused}' AND c.effective_at <= $3 AND c.expires_at > $3))
               AND ($5::timestamptz IS NULL
                    OR (c.status = '{unused}' AND c.expires_at > $4 AND c.expires_at <= $5)))"
    )
}

/// The page's statement: `w` past the cursor ($6 its key, an instant or
/// an amount by the sort; $7 its id), in the asked order, ties by id, then
/// $8 offset and $9 limit.
fn page_sql(shelves: Shelves, paging: &WalletPaging) -> String {
    let key = match paging.sort {
        WalletSort::IssuedAt => "w.issued_at",
        WalletSort::ExpiresAt => "w.expires_at",
        WalletSort::FaceValue => "w.face_value",
    };
    let bound = match paging.sort {
        WalletSort::FaceValue => "$6::numeric",
        WalletSort::IssuedAt | WalletSort::ExpiresAt => "$6::timestamptz",
    };
    let (cmp, dir) = match paging.order {
        SortOrder::Asc => (">", "ASC"),
        SortOrder::Desc => ("<", "DESC"),
    };
    format!(
        "{} SELECT w.* FROM w
          WHERE $7::uuid IS NULL OR ({key}, w.id) {cmp} ({bound}, $7::uuid)
          ORDER BY {key} {dir}, w.id {dir} OFFSET $8 LIMIT $9",
        filtered(shelves)
    )
}

/// A page of the wallet, with the count of all that match and the next
/// page's cursor; one read of the page's distinct templates' terms.
pub async fn page(
    client: &impl GenericClient,
    filter: &WalletFilter<'_>,
    paging: &WalletPaging,
) -> Result<WalletPage, RowError> {
    let status = filter.status.map(CouponStatus::as_str);
    let by = filter
        .expiring_within_days
        .map(|d| filter.now + Duration::days(d));
    let params: [&(dyn ToSql + Sync); 5] = [
        &filter.user_id,
        &status,
        &filter.usable_at,
        &filter.now,
        &by,
    ];
    let count = format!("{} SELECT count(*) FROM w", filtered(filter.shelves));
    let total: i64 = client.query_one(&count, &params).await?.get(0);
    let (at, amount) = match paging.after.map(|c| c.key) {
        Some(SortKey::At(at)) => (Some(at), None),
        Some(SortKey::Money(m)) => (None, Some(m)),
        None => (None, None),
    };
    let key: &(dyn ToSql + Sync) = match paging.sort {
        WalletSort::FaceValue => &amount,
        WalletSort::IssuedAt | WalletSort::ExpiresAt => &at,
    };
    let after_id = paging.after.map(|c| c.id);
    // One more than the page: whether a next page exists, without a read.
    let fetch = paging.limit + 1;
    let mut all = params.to_vec();
    all.extend([key, &after_id, &paging.offset, &fetch]);
    let mut rows = client
        .query(&page_sql(filter.shelves, paging), &all)
        .await?;
    let more = rows.len() as i64 > paging.limit;
    rows.truncate(paging.limit as usize);
    let next_after = match rows.last() {
        Some(last) if more => Some(cursor_of(last, paging.sort)?),
        _ => None,
    };
    let coupons = rows
        .iter()
        .map(CouponView::from_row)
        .collect::<Result<Vec<_>, _>>()?;
    Ok(WalletPage {
        coupons: with_terms(client, coupons).await?,
        total,
        offset: paging.offset,
        limit: paging.limit,
        next_after: next_after.map(|c| c.encode(paging.sort)),
    })
}

/// The cursor naming `row` (the page's last) under `sort`.
fn cursor_of(row: &Row, sort: WalletSort) -> Result<WalletCursor, tokio_postgres::Error> {
    // Column 11 is `w.face_value`, after the coupon's eleven columns.
    let key = match sort {
        WalletSort::IssuedAt => SortKey::At(row.try_get(4)?),
        WalletSort::ExpiresAt => SortKey::At(row.try_get(6)?),
        WalletSort::FaceValue => SortKey::Money(row.try_get::<_, Decimal>(11)?),
    };
    Ok(WalletCursor {
        key,
        id: row.try_get::<_, Uuid>(0)?,
    })
}

/// Each coupon with its template's terms.
async fn with_terms(
    client: &impl GenericClient,
    coupons: Vec<CouponView>,
) -> Result<Vec<WalletCoupon>, RowError> {
    let mut sns: Vec<&str> = coupons.iter().map(|c| c.template_sn.as_str()).collect();
    sns.sort_unstable();
    sns.dedup();
    let terms = terms::terms_of(client, &sns).await?;
    coupons
        .into_iter()
        .map(|coupon| {
            // A coupon's template is a foreign key: it is always there.
            let sn = coupon.template_sn.as_str();
            let terms = terms.get(sn).cloned().ok_or_else(|| {
                RowError::Unreadable(format!("coupon {} of unknown template {sn}", coupon.id))
            })?;
            Ok(WalletCoupon { coupon, terms })
        })
        .collect()
}

/// What expires soon in a wallet (`/balance`).
#[derive(Clone, Debug, PartialEq, Serialize, ToSchema)]
pub struct ExpiringSoon {
    pub within_days: i64,
    /// Unused coupons whose expiry is after now and within the days.
    pub count: i64,
    #[schema(value_type = String, example = "40.00")]
    #[serde(serialize_with = "crate::domain::money::serialize_two_places")]
    pub face_value: Decimal,
}

/// The user's unused coupons expiring after `now` and within `days`, read
/// from `coupons` itself (current, unlike the projection beside it).
pub async fn expiring_soon(
    client: &impl GenericClient,
    user_id: &str,
    days: i64,
    now: DateTime<Utc>,
) -> Result<ExpiringSoon, tokio_postgres::Error> {
    let sql = format!(
        "SELECT count(*), coalesce(sum(t.face_value), 0)
           FROM coupons c JOIN templates t ON t.sn = c.template_sn
          WHERE c.user_id = $1 AND c.status = '{unused}'
            AND c.expires_at > $2 AND c.expires_at <= $3",
        unused = CouponStatus::Unused.as_str()
    );
    let row = client
        .query_one(&sql, &[&user_id, &now, &(now + Duration::days(days))])
        .await?;
    Ok(ExpiringSoon {
        within_days: days,
        count: row.get(0),
        face_value: row.get(1),
    })
}
