//! A coupon as the pricing engine sees it.

use crate::domain::terms::Terms;
use crate::domain::validity::Validity;

/// One coupon of a user, with the terms of its template and the validity
/// fixed on it at issue. `C` is the caller's coupon id type; the engine only
/// clones and compares it, and hands it back in results.
///
/// Whether the coupon is `unused` and owned by the order's user is the state
/// machine's business: pass only coupons that may be used.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Coupon<C> {
    pub id: C,
    /// The template's sn: at most one coupon per template in a combination.
    pub template_sn: String,
    pub terms: Terms,
    pub validity: Validity,
}
