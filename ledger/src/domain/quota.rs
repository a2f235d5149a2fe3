//! A template's quota (库存, `total`): how many of the coupons a write wants
//! it may issue, decided from the template's row as the quota guard locked
//! it (docs/design.md §9). Every write path takes quota through this one
//! decision: a claim, a batch of claims, a package's share, an issuance
//! chunk.

use crate::domain::template_status::TemplateStatus;

/// How a write takes its share of the quota.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Take {
    /// All it wants or none: a claim, a package's share, a chunk's
    /// optimistic pass.
    All,
    /// As many as are left, maybe none: a batch of claims, a chunk's
    /// guarded pass (the rest of its lines end `sold_out`).
    UpTo,
}

/// Why a write got no quota.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum QuotaRefused {
    /// The template left `active` since the write read it (stopped or
    /// voided by a concurrent request): it issues nothing more.
    #[error("the template is {}", .0.as_str())]
    NotActive(TemplateStatus),
    #[error("the template's quota is exhausted")]
    SoldOut,
}

/// How many of `wanted` coupons a template in `status` with `left` of its
/// quota unissued gives, taken the `take` way.
pub fn grant(
    status: TemplateStatus,
    left: i64,
    wanted: i64,
    take: Take,
) -> Result<i64, QuotaRefused> {
    debug_assert!(wanted >= 0, "a write wants a count of coupons");
    if status != TemplateStatus::Active {
        return Err(QuotaRefused::NotActive(status));
    }
    // A total lowered below what was issued leaves nothing, not a debt.
    let left = left.max(0);
    match take {
        Take::UpTo => Ok(wanted.min(left)),
        Take::All if wanted <= left => Ok(wanted),
        Take::All => Err(QuotaRefused::SoldOut),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn an_inactive_template_gives_nothing_whatever_is_left() {
        for status in [
            TemplateStatus::Draft,
            TemplateStatus::Stopped,
            TemplateStatus::Void,
        ] {
            for take in [Take::All, Take::UpTo] {
                assert_eq!(
                    grant(status, 100, 1, take),
                    Err(QuotaRefused::NotActive(status))
                );
            }
        }
    }

    #[test]
    fn all_or_nothing_refuses_what_passes_the_total() {
        let active = TemplateStatus::Active;
        assert_eq!(grant(active, 5, 5, Take::All), Ok(5));
        assert_eq!(grant(active, 4, 5, Take::All), Err(QuotaRefused::SoldOut));
        assert_eq!(grant(active, -3, 1, Take::All), Err(QuotaRefused::SoldOut));
    }

    #[test]
    fn up_to_gives_what_is_left() {
        let active = TemplateStatus::Active;
        assert_eq!(grant(active, 3, 5, Take::UpTo), Ok(3));
        assert_eq!(grant(active, 0, 5, Take::UpTo), Ok(0));
        assert_eq!(grant(active, -2, 5, Take::UpTo), Ok(0));
        assert_eq!(grant(active, 9, 5, Take::UpTo), Ok(5));
    }

    proptest! {
        /// Whatever is asked, what is given never passes what is left, and
        /// all-or-nothing gives all or refuses.
        #[test]
        fn never_more_than_left(left in -10i64..1_000, wanted in 0i64..1_000) {
            let active = TemplateStatus::Active;
            let up_to = grant(active, left, wanted, Take::UpTo).unwrap();
            prop_assert!(up_to <= left.max(0) && up_to <= wanted);
            match grant(active, left, wanted, Take::All) {
                Ok(n) => prop_assert!(n == wanted && n <= left),
                Err(e) => prop_assert!(e == QuotaRefused::SoldOut && wanted > left),
            }
        }
    }
}
