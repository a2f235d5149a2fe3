//! Pure domain logic: no I/O. Takes a clock and data, returns decisions and events.
//!
//! Pricing and validity (see `docs/pricing.md`):
//!
//! - [`money`]: [`Money`] (2 places, non-negative, half-up) and [`Currency`].
//! - [`terms`]: template terms ([`RawTerms`] → [`Terms`]), with [`rule`],
//!   [`scope`] and [`validity`]; errors are [`ParseError`]s naming the field
//!   ([`raw_decimal`]: a rule's amounts, a JSON number among them named too).
//! - [`order`]: the order of a quote, lock or refund ([`RawOrder`] → [`Order`]).
//! - [`order_status`]: an order's checkout status and the confirm/cancel decisions.
//! - [`discount`]: one coupon's discount, [`NotApplicable`] reasons.
//! - [`stacking`], [`pricing`], [`allocation`]: a combination's discounts,
//!   their split over lines, the payable amount ([`price`]).
//! - [`best`], [`quote`]: the best combination of a user's coupons.
//! - [`refund`]: proportional partial refunds and coupon release.
//!
//! Events and streams (one list each):
//!
//! - [`ledger_event`]: every event type, its schema version and payload
//!   ([`events`]), decoded once into [`LedgerEvent`]; [`upcast`]: the steps
//!   that turn a payload stored at an older version into the current one.
//! - [`stream`]: every stream kind and its id prefix.
//! - [`coupon_state`], [`template_status`]: the state machines.
//! - [`projection`]: every projection (its queue and tables), and what one
//!   event does to the counting ones.
//! - [`reminder`]: expiry reminders: offsets, notify days, the message;
//!   the notify types and row statuses; [`granted`]: the `CouponsGranted`
//!   message an issuance job with `notify=true` sends each of its users.
//! - [`claim_batch`]: which claims of a group-committed batch get a coupon;
//!   [`quota`]: how much of a template's quota a write may take;
//!   [`budget`]: what its coupons may cost, and the counters a lock charges.
//! - [`rate_limit`]: a template's claim rate limits (token buckets).
//! - [`patch_field`]: a change's field that tells "absent" from `null`.
//! - [`liability`]: what the ledger owes and what coupons cost, per group, folded from events;
//!   [`report_labels`]: the labels reports give their own rows.
//! - [`history`]: a template's coupons over time: buckets and their counts.
//! - [`csv_line`]: a record of every CSV the ledger writes, each cell safe
//!   to open in a spreadsheet.
//! - [`package`], [`package_job`]: coupon packages: their status and size,
//!   each template's share of a claim, and claims of large packages run as jobs.
//! - [`code_batch`]: a batch of redemption codes' status.
//! - [`channel`]: a channel's status and its rotated secret's overlap.
//! - [`eligibility`]: who may claim a template (tags, regions, new users, allow-list).
//! - [`template_adjust`]: a running campaign's window, per-user limit and
//!   validity adjusted; [`rule_text`]: a discount rule in words, for apps.
//! - [`permission`], [`role`], [`key_scope`]: who may do what: every
//!   permission a route needs, what each operator role and app-key scope grants.
//! - [`wallet_order`]: a wallet's sort, direction and page cursor.
//! - [`webhook`]: webhooks' rules: URLs, event types, the SSRF address check,
//!   signatures, backoff and what follows an attempt.
//! - [`names`]: the enums that are lists of names (statuses, kinds), and
//!   their names as messages list them.

pub(crate) mod allocation;
pub(crate) mod best;
pub mod budget;
pub mod channel;
pub(crate) mod claim_batch;
pub mod code_batch;
pub(crate) mod coupon;
pub mod coupon_state;
pub mod csv_line;
pub(crate) mod discount;
pub mod eligibility;
pub mod events;
pub mod granted;
pub(crate) mod history;
pub mod ids;
pub mod issuance;
pub mod key_scope;
pub mod ledger_event;
pub mod liability;
pub mod liability_report;
pub mod money;
pub(crate) mod names;
pub(crate) mod new_coupon;
pub(crate) mod nonce;
pub mod order;
pub mod order_status;
pub mod package;
pub mod package_job;
pub(crate) mod parse_error;
pub(crate) mod patch_field;
pub mod permission;
pub(crate) mod pricing;
pub mod projection;
pub(crate) mod quota;
pub mod quote;
pub(crate) mod rate_limit;
pub(crate) mod raw_decimal;
pub mod refund;
pub mod reminder;
pub(crate) mod report_labels;
pub mod role;
pub(crate) mod rule;
pub(crate) mod rule_text;
pub(crate) mod scope;
pub(crate) mod stacking;
pub mod stream;
pub(crate) mod template_adjust;
pub mod template_status;
pub mod terms;
pub mod upcast;
pub(crate) mod user_file;
pub mod validity;
pub mod wallet_order;
pub mod webhook;

pub use allocation::Allocation;
pub use best::{Best, best_combination};
pub use coupon::Coupon;
pub use discount::{NotApplicable, discount_of};
pub use ledger_event::{EventType, LedgerEvent};
pub use money::{AmountError, Currency, CurrencyError, Money};
pub use order::{Line, Order, RawLine, RawOrder};
pub use parse_error::{ParseError, ParseErrorKind};
pub use pricing::{AppliedCoupon, Pricing, price};
pub use quote::{CouponQuote, Quote, quote};
pub use refund::{
    CouponRefund, Refund, RefundError, RefundLine, RefundedLine, RefundedShipping, Reversal,
    Settlement, SettlementError,
};
pub use rule::{DiscountRule, RawDiscount, RawTier};
pub use scope::{RawScopeEntry, ScopeKind, UseScope};
pub use stacking::{Refusal, RefusalReason, StackingViolation, check_stacking};
pub use terms::{Kind, RawTerms, Stacking, Terms};
pub use validity::{RawValidity, Validity, ValidityOutOfRange, ValidityTerms};
