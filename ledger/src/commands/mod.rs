//! Commands: the write side. Plain async functions over a transaction that
//! update the write model and append events together.
//!
//! - [`templates`]: create, activate/stop/void, raise quota, allow a channel.
//! - [`template_void`]: a void template's unused coupons voided in batches.
//! - [`channels`]: create a channel and its secret; what verifies its signatures.
//! - [`channel_lifecycle`]: disable, enable, rotate a channel's secret.
//! - [`claim`]: issue one coupon to a user; [`template_guards`]: the guards
//!   every write that issues passes (open, eligible, per-user limit, quota).
//! - [`coupon_rows`]: the rows of new coupons, one or many (COPY).
//! - [`coupons`]: every coupon status change, through the state machine;
//!   expiry sweep and admin void.
//! - [`issuance`]: one bulk-issuance chunk in one transaction.
//! - [`issuance_job`]: a bulk-issuance job's upload side: open, chunks, progress, cancel.
//! - [`orders`]: checkout TCC — lock (Try), confirm, cancel, lock timeout.
//! - [`code_batches`], [`redeem`], [`redeem_batch`], [`packages`]: redemption
//!   codes (a batch's serial range; one redemption, or a group-committed
//!   batch of them; [`batch_cache`]: batches as redemptions find them) and
//!   coupon packages; [`package_coupons`]: a package
//!   claim's coupons, a template's share at once; [`package_job`]: a large
//!   package's claim run by the issuance worker.
//! - [`refunds`]: partial and full refunds, returning coupons by policy.
//! - [`api_keys`]: app keys made, rotated with an overlap, revoked.
//! - [`allow_list`]: a template's allow-list changed by an uploaded file, part by part.
//! - [`body_stream`]: a streamed upload's body: gunzipped, bounded, waited for;
//!   [`upload_error`]: why reading an upload stopped.
//! - [`reminders`]: the notification sender (due rows → one expiry reminder
//!   per user and day, one `CouponsGranted` per job and user) and its purge;
//!   [`granted`]: what a due `CouponsGranted` row's message lists.
//! - [`webhooks`]: webhook endpoints made, changed, disabled, rotated, replayed.

pub(crate) mod allow_list;
pub mod api_keys;
pub(crate) mod batch_cache;
pub(crate) mod body_stream;
pub(crate) mod channel_lifecycle;
pub mod channels;
pub mod claim;
pub(crate) mod claim_batch;
pub(crate) mod code_batches;
pub mod coupon_rows;
pub mod coupons;
pub(crate) mod granted;
pub mod issuance;
pub(crate) mod issuance_job;
pub mod job_purge;
pub mod orders;
pub(crate) mod package_coupons;
pub mod package_job;
pub(crate) mod packages;
pub(crate) mod redeem;
pub(crate) mod redeem_batch;
pub mod refunds;
pub(crate) mod refusal;
pub mod reminders;
pub(crate) mod template_guards;
pub mod template_void;
pub mod templates;
pub(crate) mod upload;
pub(crate) mod upload_error;
pub mod webhooks;

use crate::store::{EncodeError, StoreError};

/// Why a command did not take effect. Each maps to one HTTP status.
#[derive(Debug, thiserror::Error)]
pub enum CommandError {
    /// What was not found, and the id it was asked by.
    #[error("{0} {1} not found")]
    NotFound(&'static str, String),
    #[error("{1}")]
    Conflict(&'static str, String),
    #[error("{1}")]
    Unprocessable(&'static str, String),
    #[error("{0}")]
    Forbidden(String),
    /// The channel that asked is disabled (docs/design.md §15): a job it
    /// queued before is refused when it runs, as its request would be now.
    #[error("channel {0} is disabled")]
    ChannelDisabled(crate::domain::ids::ChannelId),
    /// The user may not claim the template (docs/design.md §15).
    #[error("{}", .0.message())]
    NotEligible(crate::domain::eligibility::Rule),
    #[error("{0}")]
    SoldOut(String),
    /// The coupon state machine refused the change.
    #[error(transparent)]
    Refused(#[from] crate::domain::coupon_state::Refusal),
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error(transparent)]
    Db(#[from] tokio_postgres::Error),
    #[error(transparent)]
    Internal(anyhow::Error),
}

impl CommandError {
    /// A refusal answers the request (404, 409, 410, 422, ...) and changes
    /// nothing; anything else is a failure (the store, the database, a bug)
    /// that a retry may get past.
    /// The one list of which variants refuse is [`Self::answer`]'s.
    pub fn is_refusal(&self) -> bool {
        self.answer().is_some()
    }
}

impl CommandError {
    /// `what` asked by `id` was not found (the id shown bounded: it may be
    /// what a client sent).
    pub fn not_found(what: &'static str, id: impl std::fmt::Display) -> Self {
        Self::NotFound(what, shown_id(&id.to_string()))
    }
}

/// Most characters of an id a message quotes.
const MAX_SHOWN_ID: usize = 80;

/// An id as a message quotes it: at most [`MAX_SHOWN_ID`] characters, escaped.
pub fn shown_id(id: &str) -> String {
    id.chars()
        .take(MAX_SHOWN_ID)
        .flat_map(char::escape_debug)
        .collect()
}

impl From<crate::write_model::RowError> for CommandError {
    fn from(e: crate::write_model::RowError) -> Self {
        match e {
            crate::write_model::RowError::Db(e) => Self::Db(e),
            unreadable => Self::Internal(unreadable.into()),
        }
    }
}

impl From<crate::domain::validity::ValidityOutOfRange> for CommandError {
    fn from(_: crate::domain::validity::ValidityOutOfRange) -> Self {
        Self::Unprocessable(
            "validity_out_of_range",
            "the coupon's validity cannot be computed".into(),
        )
    }
}

impl From<EncodeError> for CommandError {
    fn from(e: EncodeError) -> Self {
        Self::Store(StoreError::Encode(e))
    }
}
