//! Why reading an upload stopped: the body, the file, the job's rows or
//! the chunks' queue (docs/design.md §9). Shared by the reader
//! (`upload.rs`) and the body's framing (`body_stream.rs`).

use std::time::Duration;

use crate::commands::CommandError;
use crate::domain::user_file::FileError;
use crate::messaging::publish::PublishError;

#[derive(Debug, thiserror::Error)]
pub enum UploadError {
    #[error("the upload broke off: {0}")]
    BrokeOff(String),
    #[error("no data came for {} s", .0.as_secs())]
    Stalled(Duration),
    #[error("the file is larger than the limit of {0} bytes")]
    TooLarge(u64),
    #[error("the gzip stream does not inflate: {0}")]
    Gzip(String),
    #[error(transparent)]
    File(#[from] FileError),
    #[error(transparent)]
    Command(#[from] CommandError),
    #[error("publishing a chunk: {0}")]
    Publish(#[from] PublishError),
    #[error(transparent)]
    Pool(#[from] deadpool_postgres::PoolError),
}

impl From<tokio_postgres::Error> for UploadError {
    fn from(e: tokio_postgres::Error) -> Self {
        Self::Command(e.into())
    }
}
