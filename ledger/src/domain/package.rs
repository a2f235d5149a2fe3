//! Coupon packages (券包, docs/design.md §13), the pure part: how many coupons a
//! package gives, whether its claims are answered at once or run as jobs,
//! each template's share of one claim, and who gives it out.

use crate::domain::ids::{ChannelId, TemplateSn};
use crate::domain::names::name_list;
use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::domain::events::PackageItem;

name_list! {
    /// A package's status: created `draft`, then `active` (claimed in its issue
    /// window) or `stopped` (claims and its codes refused), back and forth.
    #[derive(Serialize, Deserialize, schemars::JsonSchema, utoipa::ToSchema)]
    #[serde(rename_all = "snake_case")]
    #[schemars(inline, transform = crate::domain::names::plain_schema)]
    pub enum PackageStatus {
        Draft,
        Active,
        Stopped,
    }
}

impl PackageStatus {
    pub const fn as_str(self) -> &'static str {
        self.into_str()
    }
}

/// The most channels one `POST /v1/packages` body lists: a body is what an
/// operator picks by hand; more are allowed one by one
/// (`POST /v1/packages/{sn}/channels`).
pub const MAX_CHANNELS: usize = 100;

/// Who gives a package's coupons out: what its claim's guard checks and
/// what its coupons record (`coupons.channel_id`, `CouponIssued`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Giver {
    /// A channel's signed claim: the package must list the channel (403
    /// otherwise; an empty list lets no channel claim, as a template's).
    Channel(ChannelId),
    /// One of the package's codes, redeemed by a channel or (None) the
    /// service. The code is the grant, as a template's code is, so no list
    /// is checked; the channel that redeemed it is recorded all the same.
    Code(Option<ChannelId>),
}

impl Giver {
    /// The channel the package's list must hold, if any.
    pub fn checked(self) -> Option<ChannelId> {
        match self {
            Self::Channel(id) => Some(id),
            Self::Code(_) => None,
        }
    }

    /// The channel the coupons are attributed to (finance's cost by channel).
    pub fn channel(self) -> Option<ChannelId> {
        match self {
            Self::Channel(id) => Some(id),
            Self::Code(by) => by,
        }
    }

    /// Whether a package listing `channels` may be given out this way.
    pub fn allowed(self, channels: &[ChannelId]) -> bool {
        self.checked().is_none_or(|id| channels.contains(&id))
    }
}

/// The most coupons one package gives: its claim is still one transaction
/// (a job's, on the issuance worker, past [`MAX_SYNC`]).
pub const MAX_COUPONS: i32 = 10_000;
/// Claims of a package of at most this many coupons are written in the
/// request (201); larger ones go through the issuance queue as a job (202),
/// so that no request holds its templates' rows for a whole large claim.
pub const MAX_SYNC: i64 = 100;

/// The coupons one claim of the package gives.
pub fn coupons(items: &[PackageItem]) -> i64 {
    items.iter().map(|i| i64::from(i.count)).sum()
}

/// Whether the package's claims run as jobs (more than [`MAX_SYNC`] coupons).
pub fn runs_as_job(items: &[PackageItem]) -> bool {
    coupons(items) > MAX_SYNC
}

/// Each template's coupons in one claim, a template listed twice summed,
/// in sn order: every claim takes its templates' rows in that one order,
/// so two claims of packages listing the same templates in other orders
/// cannot deadlock.
pub fn shares(items: &[PackageItem]) -> Vec<(&TemplateSn, i64)> {
    let mut by_sn: BTreeMap<&TemplateSn, i64> = BTreeMap::new();
    for item in items {
        *by_sn.entry(&item.template_sn).or_default() += i64::from(item.count);
    }
    by_sn.into_iter().collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use uuid::Uuid;

    fn item(sn: &str, count: i32) -> PackageItem {
        PackageItem {
            template_sn: TemplateSn::stored(sn.into()),
            count,
        }
    }

    #[test]
    fn a_package_past_max_sync_coupons_runs_as_a_job() {
        let small = [item("b", 60), item("a", 40)];
        assert_eq!(coupons(&small), 100);
        assert!(!runs_as_job(&small));
        let large = [item("b", 60), item("a", 40), item("c", 1)];
        assert!(runs_as_job(&large));
    }

    #[test]
    fn a_claim_needs_its_channel_listed_and_a_code_needs_none() {
        let (a, b) = (ChannelId(Uuid::from_u128(1)), ChannelId(Uuid::from_u128(2)));
        assert!(Giver::Channel(a).allowed(&[b, a]));
        assert!(!Giver::Channel(a).allowed(&[b]));
        assert!(!Giver::Channel(a).allowed(&[]), "an empty list: no channel");
        assert!(Giver::Code(Some(a)).allowed(&[]));
        assert!(Giver::Code(None).allowed(&[]));
        let recorded = [Giver::Channel(a), Giver::Code(Some(b)), Giver::Code(None)];
        assert_eq!(recorded.map(Giver::channel), [Some(a), Some(b), None]);
    }

    #[test]
    fn shares_are_summed_per_template_in_sn_order() {
        let items = [item("c", 2), item("a", 1), item("c", 3), item("b", 4)];
        let sns: Vec<(&str, i64)> = shares(&items)
            .iter()
            .map(|(sn, n)| (sn.as_str(), *n))
            .collect();
        assert_eq!(sns, [("a", 1), ("b", 4), ("c", 5)]);
        assert!(shares(&[]).is_empty());
    }
}
