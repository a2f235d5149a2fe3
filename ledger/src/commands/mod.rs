//! Commands: the write side. Plain async functions over a transaction that
//! update the write model and append events together.
//!
//! - [`templates`]: create, activate/stop/void, raise quota, allow a channel.
//! - [`channels`]: create a channel and its secret.
//! - [`claim`]: issue one coupon to a user, guarded in SQL.

pub mod channels;
pub mod claim;
pub mod templates;

use crate::store::StoreError;

/// Why a command did not take effect. Each maps to one HTTP status.
#[derive(Debug, thiserror::Error)]
pub enum CommandError {
    #[error("{0} not found")]
    NotFound(&'static str),
    #[error("{1}")]
    Conflict(&'static str, String),
    #[error("{1}")]
    Unprocessable(&'static str, String),
    #[error("{0}")]
    Forbidden(String),
    #[error("{0}")]
    SoldOut(String),
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error(transparent)]
    Db(#[from] tokio_postgres::Error),
    #[error(transparent)]
    Internal(anyhow::Error),
}
