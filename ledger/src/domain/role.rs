//! Operator roles and what each may do (docs/design.md §19): the one
//! permission table of operators. `admin` may do everything; a merchant
//! what ops may do to templates, packages, code batches and jobs, limited
//! to its shops (the API checks the shops: `api/auth/shop_scope.rs`).

use serde::{Deserialize, Serialize};

use crate::domain::names::name_list;
use crate::domain::permission::Permission::{self, *};

name_list! {
    #[derive(Serialize, Deserialize, schemars::JsonSchema, PartialOrd, Ord)]
    #[serde(rename_all = "snake_case")]
    #[schemars(inline, transform = crate::domain::names::plain_schema)]
    pub enum Role {
        Admin,
        Ops,
        Finance,
        Support,
        Merchant,
    }
}

/// Reads of everything an operator runs: what ops may read.
const OPS_READS: &[Permission] = &[
    TemplatesRead,
    AllowListsRead,
    ChannelsRead,
    PackagesRead,
    CodeBatchesRead,
    JobsRead,
    StatsRead,
    ReportsRead,
    CouponsRead,
    WalletsRead,
    OrdersRead,
    PackageJobsRead,
    WorkersRead,
];

const OPS_WRITES: &[Permission] = &[
    TemplatesWrite,
    AllowListsWrite,
    ChannelsWrite,
    PackagesWrite,
    CodeBatchesWrite,
    JobsWrite,
];

const FINANCE: &[Permission] = &[
    TemplatesRead,
    PackagesRead,
    CodeBatchesRead,
    JobsRead,
    StatsRead,
    ReportsRead,
    AuditRead,
    CouponsRead,
    OrdersRead,
];

const SUPPORT: &[Permission] = &[
    TemplatesRead,
    CouponsRead,
    CouponsVoid,
    WalletsRead,
    OrdersRead,
    PackageJobsRead,
];

/// Channels are the platform's (a merchant cannot make one); the rest is
/// shop-scoped.
const MERCHANT: &[Permission] = &[
    TemplatesRead,
    TemplatesWrite,
    AllowListsRead,
    AllowListsWrite,
    PackagesRead,
    PackagesWrite,
    CodeBatchesRead,
    CodeBatchesWrite,
    JobsRead,
    JobsWrite,
    StatsRead,
    ReportsRead,
];

impl Role {
    /// Whether this role may do `permission`.
    pub fn may(self, permission: Permission) -> bool {
        match self {
            Role::Admin => true,
            Role::Ops => OPS_READS.contains(&permission) || OPS_WRITES.contains(&permission),
            Role::Finance => FINANCE.contains(&permission),
            Role::Support => SUPPORT.contains(&permission),
            Role::Merchant => MERCHANT.contains(&permission),
        }
    }

    /// Whether the role's work is limited to shops it names.
    pub fn is_shop_scoped(self) -> bool {
        self == Role::Merchant
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use strum::VariantArray;

    #[test]
    fn only_admin_manages_keys_and_finance_changes_nothing() {
        for &role in Role::VARIANTS {
            assert_eq!(role.may(KeysManage), role == Role::Admin, "{role}");
            assert_eq!(role.may(WebhooksManage), role == Role::Admin, "{role}");
        }
        let writes = [
            TemplatesWrite,
            ChannelsWrite,
            JobsWrite,
            CouponsVoid,
            Orders,
        ];
        assert!(writes.iter().all(|&p| !Role::Finance.may(p)));
        assert!(Role::Finance.may(ReportsRead) && Role::Finance.may(AuditRead));
        assert!(Role::Support.may(CouponsVoid) && !Role::Support.may(TemplatesWrite));
        assert!(Role::Merchant.may(TemplatesWrite) && !Role::Merchant.may(ChannelsWrite));
    }
}
