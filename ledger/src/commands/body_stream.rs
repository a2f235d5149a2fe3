//! A streamed request body, as the uploads read it (docs/design.md §9,
//! §15): its frames (a broken connection is an error), gunzipped a bounded
//! step at a time when sent so, counted against the size limit on the
//! decompressed bytes, and waited for a bounded time. Shared by the
//! bulk-issuance upload (`upload.rs`) and the allow-list upload
//! (`allow_list.rs`), which differ only in where the lines go.

use std::time::{Duration, Instant};

use bytes::Bytes;
use futures_util::{Stream, StreamExt};
use sha2::{Digest, Sha256};

use crate::commands::upload_error::UploadError;

/// Compressed bytes handed to the gzip decoder at a time: one write can
/// inflate at most ~1,000-fold, so this bounds what one step holds.
const GZIP_STEP: usize = 8 * 1024;
/// Progress is saved at least this often, also while a frame is awaited
/// (the job's sign of life: an upload silent for `UPLOAD_SILENCE_SECS`
/// counts as broken off, so a live upload must stay well under it), and
/// whenever a chunk or a batch of invalid lines is written; not on every frame.
pub const PROGRESS_EVERY: Duration = Duration::from_secs(2);

/// A body's frames as they arrive (a broken connection is an error).
pub trait Frames: Stream<Item = Result<Bytes, Self::Broke>> + Unpin + Send {
    type Broke: std::fmt::Display;
}

impl<S, E> Frames for S
where
    S: Stream<Item = Result<Bytes, E>> + Unpin + Send,
    E: std::fmt::Display,
{
    type Broke = E;
}

/// Decompressed bytes of the body, a step at a time.
pub struct Inflater {
    gzip: Option<flate2::write::MultiGzDecoder<Vec<u8>>>,
    budget: Budget,
}

/// The file-size limit, counted on decompressed bytes.
struct Budget {
    total: u64,
    max_bytes: u64,
}

impl Budget {
    fn spend(&mut self, n: usize) -> Result<(), UploadError> {
        self.total += n as u64;
        if self.total > self.max_bytes {
            return Err(UploadError::TooLarge(self.max_bytes));
        }
        Ok(())
    }
}

impl Inflater {
    pub fn new(gzip: bool, max_bytes: u64) -> Self {
        Self {
            gzip: gzip.then(|| flate2::write::MultiGzDecoder::new(Vec::new())),
            budget: Budget {
                total: 0,
                max_bytes,
            },
        }
    }

    /// Passes the decompressed bytes of `frame` to `sink`, a bounded piece at a time.
    pub fn push(
        &mut self,
        frame: &[u8],
        mut sink: impl FnMut(&[u8]) -> Result<(), UploadError>,
    ) -> Result<(), UploadError> {
        let Some(gzip) = self.gzip.as_mut() else {
            self.budget.spend(frame.len())?;
            return sink(frame);
        };
        for step in frame.chunks(GZIP_STEP) {
            std::io::Write::write_all(gzip, step).map_err(|e| UploadError::Gzip(e.to_string()))?;
            let out = std::mem::take(gzip.get_mut());
            self.budget.spend(out.len())?;
            sink(&out)?;
        }
        Ok(())
    }

    pub fn finish(
        &mut self,
        sink: impl FnMut(&[u8]) -> Result<(), UploadError>,
    ) -> Result<(), UploadError> {
        let Some(gzip) = self.gzip.take() else {
            return Ok(());
        };
        let rest = gzip
            .finish()
            .map_err(|e| UploadError::Gzip(e.to_string()))?;
        self.budget.spend(rest.len())?;
        let mut sink = sink;
        sink(&rest)
    }
}

/// A wait for the body's next frame, bounded by `idle` in all.
pub struct Waiting {
    pub since: Instant,
    pub idle: Duration,
}

/// What a step of the wait brought.
pub enum Awaited {
    Frame(Bytes),
    /// Nothing yet: time to save the job's sign of life.
    Nothing,
}

impl Waiting {
    /// The next frame, or Nothing after PROGRESS_EVERY; None at the body's
    /// end; Stalled once `idle` has passed without a frame.
    pub async fn next(&self, frames: &mut impl Frames) -> Result<Option<Awaited>, UploadError> {
        let left = self.idle.saturating_sub(self.since.elapsed());
        if left.is_zero() {
            return Err(UploadError::Stalled(self.idle));
        }
        match tokio::time::timeout(left.min(PROGRESS_EVERY), frames.next()).await {
            Err(_) => Ok(Some(Awaited::Nothing)),
            Ok(None) => Ok(None),
            Ok(Some(Ok(frame))) => Ok(Some(Awaited::Frame(frame))),
            Ok(Some(Err(e))) => Err(UploadError::BrokeOff(e.to_string())),
        }
    }
}

/// The SHA-256 of the (decompressed) body, for a key whose upload ended.
pub async fn hash_body(
    mut frames: impl Frames,
    gzip: bool,
    (max_bytes, idle): (u64, Duration),
) -> Result<Vec<u8>, UploadError> {
    let mut inflater = Inflater::new(gzip, max_bytes);
    let mut sha = Sha256::new();
    loop {
        let waiting = Waiting {
            since: Instant::now(),
            idle,
        };
        // Nothing to keep alive meanwhile: the job's upload has ended.
        let frame = loop {
            match waiting.next(&mut frames).await? {
                Some(Awaited::Frame(frame)) => break Some(frame),
                Some(Awaited::Nothing) => {}
                None => break None,
            }
        };
        let Some(frame) = frame else { break };
        inflater.push(&frame, |bytes| {
            sha.update(bytes);
            Ok(())
        })?;
    }
    inflater.finish(|bytes| {
        sha.update(bytes);
        Ok(())
    })?;
    Ok(sha.finalize().to_vec())
}
