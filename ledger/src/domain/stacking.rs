//! Stacking (叠加/互斥): which coupons may be used together, and the refusal
//! of a combination.
//!
//! An exclusive coupon stands alone. Stackable goods coupons of distinct
//! templates apply in the given order, each on what the earlier ones left;
//! at most one shipping coupon, which touches only the shipping fee and so
//! commutes with the goods coupons. One coupon per template, each coupon once.

use crate::domain::coupon::Coupon;
use crate::domain::discount::NotApplicable;
use crate::domain::terms::{Kind, Stacking};

/// Why a combination of coupons is not allowed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum StackingViolation {
    #[error("an exclusive coupon cannot be combined with another coupon")]
    ExclusiveNotAlone,
    #[error("only one coupon of template {template_sn} may be used")]
    SameTemplate { template_sn: String },
    #[error("only one shipping coupon may be used")]
    MoreThanOneShipping,
    #[error("the same coupon is listed twice")]
    DuplicateCoupon,
}

impl StackingViolation {
    pub fn code(&self) -> &'static str {
        match self {
            StackingViolation::ExclusiveNotAlone => "exclusive_not_alone",
            StackingViolation::SameTemplate { .. } => "same_template",
            StackingViolation::MoreThanOneShipping => "more_than_one_shipping",
            StackingViolation::DuplicateCoupon => "duplicate_coupon",
        }
    }
}

/// Why a coupon of a requested combination was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RefusalReason {
    #[error(transparent)]
    NotApplicable(#[from] NotApplicable),
    #[error(transparent)]
    Stacking(#[from] StackingViolation),
}

impl RefusalReason {
    pub fn code(&self) -> &'static str {
        match self {
            RefusalReason::NotApplicable(r) => r.code(),
            RefusalReason::Stacking(r) => r.code(),
        }
    }
}

/// A combination was refused because of `coupon_id` (the first offender in
/// the given order).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{reason}")]
pub struct Refusal<C> {
    pub coupon_id: C,
    pub reason: RefusalReason,
}

/// Checks the stacking rules of a combination, in the given order.
pub fn check_stacking<C: Clone + Eq>(coupons: &[Coupon<C>]) -> Result<(), Refusal<C>> {
    for (i, c) in coupons.iter().enumerate() {
        let earlier = &coupons[..i];
        let violation = if earlier.iter().any(|e| e.id == c.id) {
            Some(StackingViolation::DuplicateCoupon)
        } else if coupons.len() > 1 && c.terms.stacking() == Stacking::Exclusive {
            Some(StackingViolation::ExclusiveNotAlone)
        } else if earlier.iter().any(|e| e.template_sn == c.template_sn) {
            Some(StackingViolation::SameTemplate {
                template_sn: c.template_sn.clone(),
            })
        } else if c.terms.kind() == Kind::Shipping
            && earlier.iter().any(|e| e.terms.kind() == Kind::Shipping)
        {
            Some(StackingViolation::MoreThanOneShipping)
        } else {
            None
        };
        if let Some(v) = violation {
            return Err(Refusal {
                coupon_id: c.id.clone(),
                reason: v.into(),
            });
        }
    }
    Ok(())
}
