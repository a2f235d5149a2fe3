//! The one table of who may call each route (docs/design.md §19): every
//! route of the OpenAPI document has exactly one rule here, and
//! `api::routes` refuses to build a router where one is missing, so a new
//! route without a rule fails every test. `authorize` enforces the table;
//! the console reads the same permissions (`GET /v1/me`).

use std::collections::HashMap;
use std::sync::LazyLock;

use axum::http::Method;

use crate::domain::permission::Permission::{self, *};

/// How a route is reached.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Access {
    /// Anyone: liveness, readiness.
    Open,
    /// `/metrics`: open, or the bearer `LEDGER_METRICS_TOKEN` when set.
    Metrics,
    /// A bearer token whose role or key grants the permission.
    Bearer(Permission),
    /// A channel's signature, or a bearer token granting the permission.
    SignedOr(Permission),
    /// A channel's signature only.
    Signed,
    /// Any valid bearer token (who am I).
    AnyBearer,
}

/// What a merchant's shops are checked against, by a path parameter.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ShopOf {
    /// Nothing in the path (a list or a creation checks in its handler).
    Nothing,
    Template,
    Package,
    CodeBatch,
    Job,
}

#[derive(Clone, Copy, Debug)]
pub struct Rule {
    pub method: &'static str,
    pub path: &'static str,
    pub access: Access,
    pub shop: ShopOf,
}

const fn rule(method: &'static str, path: &'static str, access: Access, shop: ShopOf) -> Rule {
    Rule {
        method,
        path,
        access,
        shop,
    }
}

const fn bearer(method: &'static str, path: &'static str, p: Permission) -> Rule {
    rule(method, path, Access::Bearer(p), ShopOf::Nothing)
}

const fn of(method: &'static str, path: &'static str, p: Permission, shop: ShopOf) -> Rule {
    rule(method, path, Access::Bearer(p), shop)
}

use ShopOf::{CodeBatch, Job, Package, Template};

pub const RULES: &[Rule] = &[
    rule("GET", "/healthz", Access::Open, ShopOf::Nothing),
    rule("GET", "/readyz", Access::Open, ShopOf::Nothing),
    rule("GET", "/metrics", Access::Metrics, ShopOf::Nothing),
    // Templates (a merchant's: its shops').
    bearer("GET", "/v1/templates", TemplatesRead),
    bearer("POST", "/v1/templates", TemplatesWrite),
    of("GET", "/v1/templates/{sn}", TemplatesRead, Template),
    of("PATCH", "/v1/templates/{sn}", TemplatesWrite, Template),
    of(
        "POST",
        "/v1/templates/{sn}/activate",
        TemplatesWrite,
        Template,
    ),
    of("POST", "/v1/templates/{sn}/stop", TemplatesWrite, Template),
    of("POST", "/v1/templates/{sn}/void", TemplatesWrite, Template),
    of("POST", "/v1/templates/{sn}/quota", TemplatesWrite, Template),
    of(
        "POST",
        "/v1/templates/{sn}/channels",
        TemplatesWrite,
        Template,
    ),
    of(
        "DELETE",
        "/v1/templates/{sn}/channels/{id}",
        TemplatesWrite,
        Template,
    ),
    of("GET", "/v1/templates/{sn}/stats", StatsRead, Template),
    of("GET", "/v1/templates/{sn}/history", TemplatesRead, Template),
    of("GET", "/v1/templates/{sn}/events", TemplatesRead, Template),
    of(
        "GET",
        "/v1/templates/{sn}/allow-list",
        AllowListsRead,
        Template,
    ),
    of(
        "POST",
        "/v1/templates/{sn}/allow-list",
        AllowListsWrite,
        Template,
    ),
    of(
        "GET",
        "/v1/templates/{sn}/allow-list/files/{id}",
        AllowListsRead,
        Template,
    ),
    bearer("GET", "/v1/templates/{sn}/terms", WalletsRead),
    // Channels: the platform's.
    bearer("GET", "/v1/channels", ChannelsRead),
    bearer("POST", "/v1/channels", ChannelsWrite),
    bearer("GET", "/v1/channels/{id}", ChannelsRead),
    bearer("POST", "/v1/channels/{id}/disable", ChannelsWrite),
    bearer("POST", "/v1/channels/{id}/enable", ChannelsWrite),
    bearer("POST", "/v1/channels/{id}/secret", ChannelsWrite),
    // Packages and codes.
    bearer("GET", "/v1/packages", PackagesRead),
    bearer("POST", "/v1/packages", PackagesWrite),
    of("GET", "/v1/packages/{sn}", PackagesRead, Package),
    of("POST", "/v1/packages/{sn}/activate", PackagesWrite, Package),
    of("POST", "/v1/packages/{sn}/stop", PackagesWrite, Package),
    of("POST", "/v1/packages/{sn}/channels", PackagesWrite, Package),
    rule(
        "POST",
        "/v1/packages/{sn}/claims",
        Access::Signed,
        ShopOf::Nothing,
    ),
    rule(
        "GET",
        "/v1/package-jobs/{id}",
        Access::SignedOr(PackageJobsRead),
        ShopOf::Nothing,
    ),
    bearer("GET", "/v1/code-batches", CodeBatchesRead),
    bearer("POST", "/v1/code-batches", CodeBatchesWrite),
    of("GET", "/v1/code-batches/{id}", CodeBatchesRead, CodeBatch),
    of(
        "GET",
        "/v1/code-batches/{id}/codes",
        CodeBatchesWrite,
        CodeBatch,
    ),
    of(
        "POST",
        "/v1/code-batches/{id}/stop",
        CodeBatchesWrite,
        CodeBatch,
    ),
    rule(
        "POST",
        "/v1/redemptions",
        Access::SignedOr(Redemptions),
        ShopOf::Nothing,
    ),
    // Issuance jobs.
    bearer("GET", "/v1/issuance-jobs", JobsRead),
    bearer("POST", "/v1/issuance-jobs", JobsWrite),
    of("GET", "/v1/issuance-jobs/{id}", JobsRead, Job),
    of("POST", "/v1/issuance-jobs/{id}/cancel", JobsWrite, Job),
    of("GET", "/v1/issuance-jobs/{id}/report", JobsRead, Job),
    // Claims, orders, wallets: apps.
    rule("POST", "/v1/claims", Access::Signed, ShopOf::Nothing),
    bearer("POST", "/v1/orders/quote", Orders),
    bearer("POST", "/v1/orders/lock", Orders),
    bearer("POST", "/v1/orders/{order_id}/confirm", Orders),
    bearer("POST", "/v1/orders/{order_id}/cancel", Orders),
    bearer("POST", "/v1/orders/{order_id}/refunds", Orders),
    bearer("GET", "/v1/orders/{order_id}", OrdersRead),
    bearer("GET", "/v1/users/{uid}/coupons", WalletsRead),
    bearer("GET", "/v1/users/{uid}/balance", WalletsRead),
    bearer("GET", "/v1/users/{uid}/claimable", WalletsRead),
    bearer("GET", "/v1/coupons/{id}", CouponsRead),
    bearer("GET", "/v1/coupons/{id}/events", CouponsRead),
    bearer("POST", "/v1/coupons/{id}/void", CouponsVoid),
    // Finance and operations.
    bearer("GET", "/v1/reports/liability", ReportsRead),
    bearer("GET", "/v1/audit/status", AuditRead),
    bearer("GET", "/v1/audit/actions", AuditRead),
    bearer("GET", "/v1/ops/workers", WorkersRead),
    // App keys.
    bearer("GET", "/v1/api-keys", KeysManage),
    bearer("POST", "/v1/api-keys", KeysManage),
    bearer("GET", "/v1/api-keys/{id}", KeysManage),
    bearer("POST", "/v1/api-keys/{id}/rotate", KeysManage),
    bearer("POST", "/v1/api-keys/{id}/revoke", KeysManage),
    bearer("GET", "/v1/webhooks", WebhooksManage),
    bearer("POST", "/v1/webhooks", WebhooksManage),
    bearer("GET", "/v1/webhooks/{id}", WebhooksManage),
    bearer("PATCH", "/v1/webhooks/{id}", WebhooksManage),
    bearer("POST", "/v1/webhooks/{id}/disable", WebhooksManage),
    bearer("POST", "/v1/webhooks/{id}/enable", WebhooksManage),
    bearer("POST", "/v1/webhooks/{id}/secret", WebhooksManage),
    bearer("GET", "/v1/webhooks/{id}/deliveries", WebhooksManage),
    bearer("POST", "/v1/webhooks/{id}/replay", WebhooksManage),
    // Who is calling, and what it may do (the console's menu).
    rule("GET", "/v1/me", Access::AnyBearer, ShopOf::Nothing),
];

/// The rule of `method` on the route `path` (as the router matched it).
pub fn find(method: &Method, path: &str) -> Option<&'static Rule> {
    find_str(method.as_str(), path)
}

/// Every request looks its rule up: by (method, path) in a map built once.
pub fn find_str(method: &str, path: &str) -> Option<&'static Rule> {
    static BY_ROUTE: LazyLock<HashMap<(&str, &str), &Rule>> =
        LazyLock::new(|| RULES.iter().map(|r| ((r.method, r.path), r)).collect());
    BY_ROUTE.get(&(method, path)).copied()
}

impl Access {
    /// As the OpenAPI document's `x-permission` says it: the permission,
    /// `open`, `metrics`, `channel` (a signature), `channel or <p>`, or
    /// `signed in`.
    pub fn describe(self) -> String {
        match self {
            Access::Open => "open".into(),
            Access::Metrics => "metrics".into(),
            Access::Bearer(p) => p.to_string(),
            Access::SignedOr(p) => format!("channel or {p}"),
            Access::Signed => "channel".into(),
            Access::AnyBearer => "signed in".into(),
        }
    }
}
