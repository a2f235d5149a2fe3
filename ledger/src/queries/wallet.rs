//! A user's wallet (docs/design.md §15, "What apps can read"): a page of
//! their coupons, each with its template's public terms, so an app renders
//! it in one call.

use serde::Serialize;
use tokio_postgres::GenericClient;
use utoipa::ToSchema;

use crate::domain::coupon_state::CouponStatus;
use crate::queries::coupons::{self, CouponView, Shelves};
use crate::queries::page::{Bounds, Page, page_of};
use crate::queries::terms::{self, TemplateTerms};
use crate::write_model::RowError;

/// A coupon as the API shows it, with its template's terms.
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct WalletCoupon {
    #[serde(flatten)]
    pub coupon: CouponView,
    /// The template's terms as they stand now; the coupon's own
    /// `effective_at` and `expires_at` were fixed when it was issued.
    pub terms: TemplateTerms,
}

page_of!(
    /// A page of a user's coupons, oldest first, each with its terms.
    WalletPage { coupons: WalletCoupon }
);

/// A page of the user's coupons (as [`coupons::of_user`]) with their terms:
/// one read of the page's distinct templates.
pub async fn of_user(
    client: &impl GenericClient,
    user_id: &str,
    status: Option<CouponStatus>,
    shelves: Shelves,
    bounds: Bounds,
) -> Result<Page<WalletCoupon>, RowError> {
    let page = coupons::of_user(client, user_id, status, shelves, bounds).await?;
    let mut sns: Vec<&str> = page.items.iter().map(|c| c.template_sn.as_str()).collect();
    sns.sort_unstable();
    sns.dedup();
    let terms = terms::terms_of(client, &sns).await?;
    let mut coupons = Vec::with_capacity(page.items.len());
    for coupon in &page.items {
        // A coupon's template is a foreign key: it is always there.
        let sn = coupon.template_sn.as_str();
        let terms = terms.get(sn).cloned().ok_or_else(|| {
            RowError::Unreadable(format!("coupon {} of unknown template {sn}", coupon.id))
        })?;
        coupons.push(WalletCoupon {
            coupon: coupon.clone(),
            terms,
        });
    }
    Ok(Page {
        items: coupons,
        total: page.total,
        bounds: page.bounds,
    })
}
