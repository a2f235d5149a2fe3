//! The rows `replay --verify` compares, the same shape whether rebuilt from
//! the events or read from the live tables. Amounts are in cents.

use std::collections::HashMap;

use uuid::Uuid;

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CouponRow {
    pub status: String,
    pub version: i32,
}

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TemplateRow {
    pub status: String,
    pub total: i64,
    pub issued: i64,
    pub version: i32,
}

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct OrderRow {
    pub status: String,
    pub version: i32,
}

/// A status bucket: how many coupons, and their face value.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct BucketRow {
    pub count: i64,
    pub face_value: i64,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TotalsRow {
    pub issued: i64,
    pub cost: i64,
}

/// Every write-model table and projection that events rebuild.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Tables {
    pub coupons: HashMap<Uuid, CouponRow>,
    pub templates: HashMap<String, TemplateRow>,
    /// (template, user) → coupons claimed.
    pub user_claims: HashMap<(String, String), i32>,
    pub orders: HashMap<String, OrderRow>,
    /// (user, status) → bucket.
    pub balances: HashMap<(String, String), BucketRow>,
    /// (template, status) → bucket.
    pub template_stats: HashMap<(String, String), BucketRow>,
    pub template_totals: HashMap<String, TotalsRow>,
}

/// A row's fields by name, for reporting a difference.
pub trait Fields {
    fn fields(&self) -> Vec<(&'static str, String)>;
}

impl Fields for CouponRow {
    fn fields(&self) -> Vec<(&'static str, String)> {
        vec![
            ("status", self.status.clone()),
            ("version", self.version.to_string()),
        ]
    }
}

impl Fields for TemplateRow {
    fn fields(&self) -> Vec<(&'static str, String)> {
        vec![
            ("status", self.status.clone()),
            ("total", self.total.to_string()),
            ("issued", self.issued.to_string()),
            ("version", self.version.to_string()),
        ]
    }
}

impl Fields for OrderRow {
    fn fields(&self) -> Vec<(&'static str, String)> {
        vec![
            ("status", self.status.clone()),
            ("version", self.version.to_string()),
        ]
    }
}

impl Fields for i32 {
    fn fields(&self) -> Vec<(&'static str, String)> {
        vec![("claimed", self.to_string())]
    }
}

impl Fields for BucketRow {
    fn fields(&self) -> Vec<(&'static str, String)> {
        vec![
            ("count", self.count.to_string()),
            ("face_value", cents(self.face_value)),
        ]
    }
}

impl Fields for TotalsRow {
    fn fields(&self) -> Vec<(&'static str, String)> {
        vec![
            ("issued", self.issued.to_string()),
            ("cost", cents(self.cost)),
        ]
    }
}

fn cents(c: i64) -> String {
    rust_decimal::Decimal::new(c, 2).to_string()
}
