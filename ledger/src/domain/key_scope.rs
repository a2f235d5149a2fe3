//! The scopes of an app key (docs/design.md §19) and the permissions each
//! grants: the one permission table of apps. `LEDGER_SERVICE_TOKEN` is the
//! key `service` with every scope.

use serde::{Deserialize, Serialize};

use crate::domain::names::name_list;
use crate::domain::permission::Permission::{self, *};

name_list! {
    #[derive(Serialize, Deserialize, schemars::JsonSchema, PartialOrd, Ord)]
    #[schemars(inline, transform = crate::domain::names::plain_schema)]
    pub enum KeyScope {
        /// Quote, lock, confirm, cancel, refunds, order reads.
        #[serde(rename = "orders")]
        #[strum(to_string = "orders")]
        Orders,
        /// A user's coupons, balances, what they can claim, terms.
        #[serde(rename = "wallets:read")]
        #[strum(to_string = "wallets:read")]
        WalletsRead,
        /// Redeem codes for users, follow a large package's claim.
        #[serde(rename = "redemptions")]
        #[strum(to_string = "redemptions")]
        Redemptions,
        /// Liability reports and a template's counts.
        #[serde(rename = "reports:read")]
        #[strum(to_string = "reports:read")]
        ReportsRead,
    }
}

/// Most scopes a key may hold (there are four; the bound is the contract's).
pub const MAX_SCOPES: usize = 100;

impl KeyScope {
    /// The permissions this scope grants.
    pub fn grants(self) -> &'static [Permission] {
        match self {
            KeyScope::Orders => &[Orders, OrdersRead],
            KeyScope::WalletsRead => &[WalletsRead, CouponsRead],
            KeyScope::Redemptions => &[Redemptions, PackageJobsRead],
            KeyScope::ReportsRead => &[ReportsRead, StatsRead],
        }
    }
}
