//! The write model's row types that commands and queries both read, so
//! neither imports the other (docs/design.md, "Layers").
//!
//! - [`coupon_row`]: a coupon with its template's status, refund policy and terms.
//! - [`code_batch_row`]: a batch of redemption codes.
//! - [`package_row`]: a coupon package and the channels that may claim it.
//! - [`order_answers`]: the answers stored with a lock and each refund.

pub mod code_batch_row;
pub(crate) mod coupon_row;
pub mod order_answers;
pub(crate) mod package_row;

/// A stored row that cannot be read back: a bug or a hand edit, never input.
#[derive(Debug, thiserror::Error)]
pub enum RowError {
    #[error(transparent)]
    Db(#[from] tokio_postgres::Error),
    #[error("a stored row does not read: {0}")]
    Unreadable(String),
}
