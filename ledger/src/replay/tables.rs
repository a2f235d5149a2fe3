//! The rows `replay --verify` compares, one shape whether rebuilt from the
//! events or read from the live tables: every column the events determine.
//! Amounts are in cents. Also the rest of what the fold builds and the
//! comparisons read (a pass's coupons and orders, the tables added up over
//! the passes): here, so that the pure fold and the side reading the live
//! tables share them without importing each other.

use std::collections::HashMap;
use std::sync::Arc;

use chrono::{DateTime, NaiveDate, Utc};
use serde_json::Value;
use uuid::Uuid;

use crate::domain::coupon_state::{CouponState, CouponStatus};

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
show_with_display!(String, i32, i64, i128, Uuid, Value);

impl Show for DateTime<Utc> {
    fn show(&self) -> String {
        self.to_rfc3339()
    }
}

impl Show for NaiveDate {
    fn show(&self) -> String {
        self.to_string()
    }
}

impl<T: Show> Show for Option<T> {
    fn show(&self) -> String {
        self.as_ref().map_or_else(|| "null".into(), Show::show)
    }
}

impl Show for Vec<i32> {
    fn show(&self) -> String {
        let days: Vec<String> = self.iter().map(i32::to_string).collect();
        format!("[{}]", days.join(","))
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
    job_id: Option<Uuid>,
    job_line: Option<i64>,
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
    remind_days_before: Option<Vec<i32>>,
    status: String,
    version: i32,
    created_at: DateTime<Utc>,
    rate_limit: Option<Value>,
    eligibility: Option<Value>,
    shop_id: Option<String>,
    description: Option<String>,
});

row!(
    /// A template's allow-list (docs/design.md §15): its stream's version,
    /// the size its row says, the members counted, and a digest of the
    /// members ([`member_digest`] added up), so that a list of 10M ids is
    /// compared without holding it. The events carry only ids whose
    /// membership they changed, so the replayed side adds and subtracts.
    AllowListRow {
        version: i32,
        members: i64,
        counted: i64,
        digest: i128,
    }
);

/// One member's part of an allow-list's digest: the first 8 bytes of the
/// SHA-256 of its id, as a big-endian signed integer (what Postgres reads
/// from `left(encode(sha256(...), 'hex'), 16)` as `bit(64)::bigint`).
pub fn member_digest(user_id: &str) -> i128 {
    use sha2::Digest;
    let hash = sha2::Sha256::digest(user_id.as_bytes());
    let first: [u8; 8] = hash[..8].try_into().expect("a SHA-256 has 32 bytes");
    i128::from(i64::from_be_bytes(first))
}

row!(
    /// A `notify_msg` row's status as the events decide it (pending, cancelled).
    NotifyRow { status: String }
);

row!(ChannelRow {
    name: String,
    created_at: DateTime<Utc>,
    status: String,
    secret_created_at: DateTime<Utc>,
    previous_secret_valid_until: Option<DateTime<Utc>>,
    version: i32,
});

row!(
    /// An app key (docs/design.md §19): digests in hex, scopes joined by commas.
    ApiKeyRow {
        name: String,
        scopes: String,
        created_at: DateTime<Utc>,
        digest: String,
        previous_digest: Option<String>,
        previous_valid_until: Option<DateTime<Utc>>,
        revoked_at: Option<DateTime<Utc>>,
        rate_per_second: Option<i32>,
        rate_burst: Option<i32>,
        version: i32,
    }
);

row!(
    /// A row that is there or not (a template's or a package's allowed channel).
    Present {}
);

row!(ClaimsRow { claimed: i32 });

row!(CodeBatchRow {
    template_sn: Option<String>,
    package_sn: Option<String>,
    key_id: String,
    first_serial: i64,
    count: i64,
    uses_per_code: i32,
    per_user: i32,
    status: String,
    expires_at: Option<DateTime<Utc>>,
    version: i32,
    created_at: DateTime<Utc>,
    passphrase: Option<String>,
    passphrase_key: Option<String>,
});

row!(
    /// A code's uses: its stream's version.
    CodeUseRow { uses: i32 }
);

row!(CodeRedemptionRow {
    coupon_ids: Vec<Uuid>,
    redeemed_at: DateTime<Utc>,
});

row!(PackageRow {
    name: String,
    items: Value,
    total: i64,
    claimed: i64,
    per_user_limit: i32,
    issue_begin: DateTime<Utc>,
    issue_end: DateTime<Utc>,
    status: String,
    version: i32,
    created_at: DateTime<Utc>,
});

row!(
    /// Codes of a batch one user redeemed.
    CodeUserRow { redeemed: i32 }
);

row!(OrderRow {
    user_id: Option<String>,
    status: String,
    order_body: Option<Value>,
    allocations: Option<Value>,
    coupon_ids: Vec<Uuid>,
    lock_expires_at: Option<DateTime<Utc>>,
    version: i32,
    budget_charges: Option<Value>,
});

row!(
    /// A template's budget (docs/design.md §15, "Budgets"): its amounts and
    /// counters (`domain::budget::Counters`).
    BudgetRow {
        total: Cents,
        daily: Option<Cents>,
        spent: Cents,
        reserved: Cents,
        day: Option<NaiveDate>,
        day_spent: Cents,
        day_reserved: Cents,
    }
);

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

/// The replay's maps: a fast hash (the keys come from the ledger's own log,
/// not from an adversary), millions of entries.
pub type Map<K, V> = HashMap<K, V, rustc_hash::FxBuildHasher>;

/// The row for `name` in a map keyed by name (the key is only copied for a
/// new row).
pub fn by_name<'m, V: Default>(map: &'m mut Map<String, V>, name: &str) -> &'m mut V {
    if !map.contains_key(name) {
        map.insert(name.to_owned(), V::default());
    }
    map.get_mut(name).expect("inserted above")
}

/// A user id or template sn the replay has seen, by number: each name is
/// kept once, however many coupons, buckets and claims carry it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Sym(u32);

/// The names behind [`Sym`]s.
#[derive(Debug, Default)]
pub struct Names {
    syms: Map<Arc<str>, Sym>,
    names: Vec<Arc<str>>,
}

impl Names {
    pub fn intern(&mut self, name: &str) -> Sym {
        if let Some(&sym) = self.syms.get(name) {
            return sym;
        }
        // Each name takes memory: the count runs out of memory long before u32.
        let sym = Sym(u32::try_from(self.names.len()).expect("fewer than 2^32 names"));
        let name: Arc<str> = Arc::from(name);
        self.names.push(name.clone());
        self.syms.insert(name, sym);
        sym
    }

    /// The symbol of a name the replay has seen.
    pub fn get(&self, name: &str) -> Option<Sym> {
        self.syms.get(name).copied()
    }

    pub fn name(&self, sym: Sym) -> &str {
        &self.names[sym.0 as usize]
    }
}

/// A pass's names, read-only (the thread comparing its coupons reads them
/// too), and the names a bucket of users adds to them: a name the pass has
/// keeps its symbol, another gets one after the pass's. The bucket counts
/// the pass's coupons by their symbols, with no lookup.
pub struct NamesOver<'a> {
    base: &'a Names,
    extra: Names,
}

impl<'a> NamesOver<'a> {
    pub fn new(base: &'a Names) -> Self {
        NamesOver {
            base,
            extra: Names::default(),
        }
    }

    /// Where the symbols of `extra` start.
    fn offset(&self) -> u32 {
        u32::try_from(self.base.names.len()).expect("fewer than 2^32 names")
    }

    pub fn intern(&mut self, name: &str) -> Sym {
        if let Some(sym) = self.base.get(name) {
            return sym;
        }
        Sym(self.offset() + self.extra.intern(name).0)
    }

    pub fn get(&self, name: &str) -> Option<Sym> {
        let extra = || self.extra.get(name).map(|s| Sym(self.offset() + s.0));
        self.base.get(name).or_else(extra)
    }

    pub fn name(&self, sym: Sym) -> &str {
        match sym.0.checked_sub(self.offset()) {
            Some(i) => self.extra.name(Sym(i)),
            None => self.base.name(sym),
        }
    }
}

/// The tables keyed by template or channel, which every pass adds to
/// (coupons, orders and refunds are a pass's own, see `fold::Pass`).
#[derive(Debug, Default)]
pub struct Tables {
    pub templates: Map<String, TemplateRow>,
    pub channels: Map<Uuid, ChannelRow>,
    pub api_keys: Map<Uuid, ApiKeyRow>,
    /// (template, channel).
    pub template_channels: Map<(String, Uuid), Present>,
    pub template_totals: Map<String, TotalsRow>,
    /// Each budgeted template's budget (`budgets_fold`).
    pub template_budgets: Map<String, BudgetRow>,
    /// (template, status) → bucket (see `fold::add_template_stats`).
    pub template_stats: Map<(String, CouponStatus), BucketRow>,
    pub code_batches: Map<Uuid, CodeBatchRow>,
    /// (batch, serial).
    pub code_uses: Map<(Uuid, i64), CodeUseRow>,
    /// (batch, serial, user).
    pub code_redemptions: Map<(Uuid, i64, String), CodeRedemptionRow>,
    /// (batch, user).
    pub code_batch_users: Map<(Uuid, String), CodeUserRow>,
    pub packages: Map<String, PackageRow>,
    /// (package, user) → claims (the same shape as a template's).
    pub package_claims: Map<(String, String), ClaimsRow>,
    /// (package, channel).
    pub package_channels: Map<(String, Uuid), Present>,
    /// (package, user) → reserved claims whose job has not ended yet: the
    /// fold's bookkeeping (their `PackageClaimed` counts nothing more),
    /// never compared.
    pub package_pending: Map<(String, String), i32>,
    /// (user's bucket, template, user) → the user's count of the template
    /// that reserved claims took and their jobs have not written yet
    /// (`codes_fold::ahead`); `users` adds them to the bucket's claims.
    pub claims_ahead: Map<(u32, String, String), i32>,
    /// Template → its allow-list.
    pub allow_lists: Map<String, AllowListRow>,
}

/// What the log says of one coupon so far: a pass holds one per coupon
/// (the fold builds it, `live` compares it with the coupon's row).
pub struct ReplayedCoupon {
    pub template: Sym,
    pub user: Sym,
    /// Face value, in cents.
    pub face_value: i64,
    /// By the state machine: status, order, expiry.
    pub state: CouponState,
    /// The stream's version: every event moves it, as it moves the row's.
    pub version: i32,
    /// What the coupon takes off the order holding it (from `OrderLocked`).
    pub locked_discount: i64,
    pub issued_at: DateTime<Utc>,
    pub effective_at: DateTime<Utc>,
    pub channel_id: Option<Uuid>,
    pub refund_from: Option<Uuid>,
    /// The bulk-issuance job and line that issued it.
    pub job_id: Option<Uuid>,
    pub job_line: Option<i64>,
    /// Its user's bucket (see `partition`).
    pub bucket: u32,
    /// Whether it has notify rows (reminders due, its job's granted row),
    /// which its moves may change.
    pub reminded: bool,
    /// When its status last changed (None: never since its issue), as the
    /// row's `changed_at`; read only against the purge horizon.
    pub changed_at: Option<DateTime<Utc>>,
}

impl ReplayedCoupon {
    /// Whether a purge before `horizon` may have deleted its row: it ended
    /// before it, by the rule the purge uses (`cold::ENDED_AT_SQL`).
    pub fn purged_before(&self, horizon: Option<DateTime<Utc>>) -> bool {
        let ended_at = self.changed_at.unwrap_or(self.state.expires_at);
        horizon.is_some_and(|h| crate::cold::is_ended(self.state.status) && ended_at < h)
    }

    /// The `coupons` row the log implies.
    pub fn row(&self, names: &Names) -> CouponRow {
        CouponRow {
            template_sn: names.name(self.template).to_owned(),
            user_id: names.name(self.user).to_owned(),
            status: self.state.status.as_str().to_owned(),
            order_id: self.state.order_id.clone(),
            issued_at: self.issued_at,
            effective_at: self.effective_at,
            expires_at: self.state.expires_at,
            channel_id: self.channel_id,
            refund_from: self.refund_from,
            job_id: self.job_id,
            job_line: self.job_line,
            version: self.version,
        }
    }
}

/// The `orders` and `refunds` rows of a pass's orders.
#[derive(Default)]
pub struct OrderRows {
    pub orders: Map<String, OrderRow>,
    /// (order, refund id).
    pub refunds: Map<(String, String), RefundRow>,
    /// Refunds of each order so far (the next one's `seq`): the fold's
    /// bookkeeping, never compared.
    pub(super) refunds_per_order: Map<String, i32>,
}

/// What the coupons of a bucket of users add up to: their claims and the
/// `balances` projection's buckets (see `holdings`).
pub struct Counts<'a> {
    /// The user ids and template sns of the keys.
    pub names: NamesOver<'a>,
    /// (template, user) → coupons claimed.
    pub user_claims: Map<(Sym, Sym), ClaimsRow>,
    /// (user, status) → bucket.
    pub balances: Map<(Sym, CouponStatus), BucketRow>,
}
