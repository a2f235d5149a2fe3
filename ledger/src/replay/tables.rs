//! The rows `replay --verify` compares, one shape whether rebuilt from the
//! events or read from the live tables: every column the events determine.
//! Amounts are in cents.

use std::collections::HashMap;

use chrono::{DateTime, Utc};
use serde_json::Value;
use uuid::Uuid;

/// A row's fields by name and value, for reporting a difference.
pub trait Fields {
    fn fields(&self) -> Vec<(&'static str, String)>;
}

/// How a field's value is printed in a difference.
pub trait Show {
    fn show(&self) -> String;
}

macro_rules! show_with_display {
    ($($t:ty),*) => {$(
        impl Show for $t {
            fn show(&self) -> String {
                self.to_string()
            }
        }
    )*};
}
show_with_display!(String, i32, i64, Uuid, Value);

impl Show for DateTime<Utc> {
    fn show(&self) -> String {
        self.to_rfc3339()
    }
}

impl<T: Show> Show for Option<T> {
    fn show(&self) -> String {
        self.as_ref().map_or_else(|| "null".into(), Show::show)
    }
}

impl Show for Vec<Uuid> {
    fn show(&self) -> String {
        let ids: Vec<String> = self.iter().map(Uuid::to_string).collect();
        format!("[{}]", ids.join(","))
    }
}

/// An amount in cents, printed as `12.30`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Cents(pub i64);

impl Show for Cents {
    fn show(&self) -> String {
        rust_decimal::Decimal::new(self.0, 2).to_string()
    }
}

/// A compared row: a struct whose fields are listed by [`Fields`].
macro_rules! row {
    ($(#[$meta:meta])* $name:ident { $($field:ident: $ty:ty),* $(,)? }) => {
        $(#[$meta])*
        #[derive(Clone, Debug, Default, PartialEq)]
        pub struct $name {
            $(pub $field: $ty,)*
        }

        impl Fields for $name {
            fn fields(&self) -> Vec<(&'static str, String)> {
                vec![$((stringify!($field), self.$field.show()),)*]
            }
        }
    };
}

row!(CouponRow {
    template_sn: String,
    user_id: String,
    status: String,
    order_id: Option<String>,
    issued_at: DateTime<Utc>,
    effective_at: DateTime<Utc>,
    expires_at: DateTime<Utc>,
    channel_id: Option<Uuid>,
    refund_from: Option<Uuid>,
    version: i32,
});

row!(TemplateRow {
    name: String,
    kind: String,
    currency: String,
    terms: Value,
    face_value: Cents,
    issue_begin: DateTime<Utc>,
    issue_end: DateTime<Utc>,
    total: i64,
    issued: i64,
    per_user_limit: i32,
    refund_policy: String,
    remind_days_before: Option<i32>,
    status: String,
    version: i32,
    created_at: DateTime<Utc>,
});

row!(ChannelRow {
    name: String,
    created_at: DateTime<Utc>,
});

row!(
    /// A row that is there or not (a template's allowed channel).
    Present {}
);

row!(ClaimsRow { claimed: i32 });

row!(OrderRow {
    user_id: Option<String>,
    status: String,
    order_body: Option<Value>,
    allocations: Option<Value>,
    coupon_ids: Vec<Uuid>,
    lock_expires_at: Option<DateTime<Utc>>,
    version: i32,
});

row!(RefundRow {
    seq: i32,
    refund: Value,
    created_at: DateTime<Utc>,
});

row!(
    /// A status bucket: how many coupons, and their face value.
    BucketRow {
        count: i64,
        face_value: Cents,
    }
);

row!(TotalsRow {
    issued: i64,
    cost: Cents,
});

/// Every write-model table and projection that events rebuild, by key.
#[derive(Debug, Default, PartialEq)]
pub struct Tables {
    pub coupons: HashMap<Uuid, CouponRow>,
    pub templates: HashMap<String, TemplateRow>,
    pub channels: HashMap<Uuid, ChannelRow>,
    /// (template, channel).
    pub template_channels: HashMap<(String, Uuid), Present>,
    /// (template, user) → coupons claimed.
    pub user_claims: HashMap<(String, String), ClaimsRow>,
    pub orders: HashMap<String, OrderRow>,
    /// (order, refund id).
    pub refunds: HashMap<(String, String), RefundRow>,
    /// (user, status) → bucket.
    pub balances: HashMap<(String, String), BucketRow>,
    /// (template, status) → bucket.
    pub template_stats: HashMap<(String, String), BucketRow>,
    pub template_totals: HashMap<String, TotalsRow>,
}
