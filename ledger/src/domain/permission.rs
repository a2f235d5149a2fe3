//! What a caller may do, one name per kind of action (docs/design.md §19).
//! Every route needs exactly one (`api/auth/route_rules.rs`); roles
//! ([`crate::domain::role`]) and app keys' scopes
//! ([`crate::domain::key_scope`]) are sets of them. A refusal names the
//! permission (`403 forbidden`).

use crate::domain::names::name_list;

name_list! {
    /// Named `<resource>:<action>` on the wire and in refusals.
    pub enum Permission {
        #[strum(to_string = "templates:read")]
        TemplatesRead,
        /// Create, change, activate, stop, void, raise a quota, allow a channel.
        #[strum(to_string = "templates:write")]
        TemplatesWrite,
        #[strum(to_string = "allow_lists:read")]
        AllowListsRead,
        #[strum(to_string = "allow_lists:write")]
        AllowListsWrite,
        #[strum(to_string = "channels:read")]
        ChannelsRead,
        /// Create, disable, enable, rotate a secret.
        #[strum(to_string = "channels:write")]
        ChannelsWrite,
        #[strum(to_string = "packages:read")]
        PackagesRead,
        #[strum(to_string = "packages:write")]
        PackagesWrite,
        #[strum(to_string = "code_batches:read")]
        CodeBatchesRead,
        /// Create and stop batches, and download their codes: the codes are
        /// redeemable secrets, so reading them is as strong as making them.
        #[strum(to_string = "code_batches:write")]
        CodeBatchesWrite,
        /// Issuance jobs: progress and reports.
        #[strum(to_string = "jobs:read")]
        JobsRead,
        /// Upload a user-ID file, cancel a job.
        #[strum(to_string = "jobs:write")]
        JobsWrite,
        /// A template's counts, liability and cost.
        #[strum(to_string = "stats:read")]
        StatsRead,
        /// Liability reports.
        #[strum(to_string = "reports:read")]
        ReportsRead,
        /// The audit chain's status and who did what.
        #[strum(to_string = "audit:read")]
        AuditRead,
        /// A coupon and its history.
        #[strum(to_string = "coupons:read")]
        CouponsRead,
        /// Void one coupon.
        #[strum(to_string = "coupons:void")]
        CouponsVoid,
        /// A user's coupons, balance, what they can claim, a template's terms.
        #[strum(to_string = "wallets:read")]
        WalletsRead,
        /// Quote, lock, confirm, cancel and refund orders.
        #[strum(to_string = "orders")]
        Orders,
        /// An order's record: its lock, coupons, allocations and refunds.
        #[strum(to_string = "orders:read")]
        OrdersRead,
        /// Redeem a code for a user.
        #[strum(to_string = "redemptions")]
        Redemptions,
        /// Follow a large package's claim.
        #[strum(to_string = "package_jobs:read")]
        PackageJobsRead,
        /// The workers' status.
        #[strum(to_string = "workers:read")]
        WorkersRead,
        /// Create, read, rotate and revoke app keys.
        #[strum(to_string = "keys:manage")]
        KeysManage,
        /// Create, change, disable, rotate and replay webhooks; read their
        /// deliveries (an endpoint receives every event it asks for).
        #[strum(to_string = "webhooks:manage")]
        WebhooksManage,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use strum::VariantArray;

    #[test]
    fn every_name_parses_back() {
        for &p in Permission::VARIANTS {
            assert_eq!(p.to_string().parse::<Permission>(), Ok(p));
        }
        assert_eq!(Permission::TemplatesWrite.to_string(), "templates:write");
    }
}
