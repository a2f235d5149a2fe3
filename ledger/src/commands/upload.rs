//! Reading an uploaded user-ID file as it streams in (docs/design.md §9): body
//! frames, gunzipped when sent so, are parsed line by line; valid lines are
//! gathered into chunks, each recorded and published (confirmed) before the
//! next frame is read, so memory holds a frame and a chunk, never the file.
//! The file's SHA-256 names it: the same key with another file is refused.
//! A body that stops coming is waited for a bounded time (`Target::idle`),
//! the job's sign of life saved meanwhile, then given up on: the client
//! gets an answer, and the job is left to resume.

use std::time::{Duration, Instant};

use deadpool_postgres::Pool;
use prometheus_client::metrics::counter::Counter;
use sha2::{Digest, Sha256};
use uuid::Uuid;

use crate::commands::CommandError;
use crate::commands::body_stream::{Awaited, Frames, Inflater, PROGRESS_EVERY, Waiting};
use crate::commands::issuance_job::{self, UploadCounts};
use crate::commands::upload_error::UploadError;
use crate::domain::ids::TemplateSn;
use crate::domain::issuance::{ChunkLine, IssuanceChunk};
use crate::domain::user_file::{FileError, FileFormat, Line, LineKind, UserFile};
use crate::messaging::chunk_message;
use crate::messaging::lazy_publisher::LazyPublisher;

use crate::messaging::topology;

/// Invalid lines written to the report per statement.
const INVALID_BATCH: usize = 1_000;

/// Where the file goes.
pub struct Target {
    pub job_id: Uuid,
    pub template_sn: TemplateSn,
    pub format: FileFormat,
    pub chunk_lines: usize,
    pub max_bytes: u64,
    /// Longest wait for the body's next bytes.
    pub idle: Duration,
}

/// Where the pipeline writes: the job's rows, the chunks' queue and the
/// counters operators watch.
pub struct Sinks<'a> {
    pub pool: &'a Pool,
    /// Publishes to `coupon.issuance` (confirmed).
    pub chunks: &'a LazyPublisher,
    /// The counters of lines read and chunks published (`/metrics`).
    pub lines_read: &'a Counter,
    pub chunks_published: &'a Counter,
}

/// A whole file, read and published.
pub struct Uploaded {
    pub counts: UploadCounts,
    pub sha256: Vec<u8>,
    pub chunks: i32,
}

/// The file's lines turned into chunks and report lines, waiting to be written.
struct Gathered {
    parser: UserFile,
    lines: Vec<Line>,
    counts: UploadCounts,
    sha: Sha256,
    chunk: Vec<ChunkLine>,
    ready: Vec<Vec<ChunkLine>>,
    invalid: Vec<(i64, String, String)>,
    chunk_lines: usize,
    /// Lines already counted in the metrics.
    lines_counted: i64,
    /// When progress was last saved.
    saved: Instant,
}

impl Gathered {
    fn new(format: FileFormat, chunk_lines: usize) -> Self {
        Self {
            parser: UserFile::new(format),
            lines: Vec::new(),
            counts: UploadCounts::default(),
            sha: Sha256::new(),
            chunk: Vec::with_capacity(chunk_lines),
            ready: Vec::new(),
            invalid: Vec::new(),
            chunk_lines,
            lines_counted: 0,
            saved: Instant::now(),
        }
    }

    fn feed(&mut self, bytes: &[u8]) -> Result<(), UploadError> {
        self.sha.update(bytes);
        self.counts.bytes_read += bytes.len() as i64;
        self.parser.feed(bytes, &mut self.lines)?;
        self.sort_lines();
        Ok(())
    }

    fn end(&mut self) -> Result<(), UploadError> {
        self.parser.finish(&mut self.lines)?;
        self.sort_lines();
        if !self.chunk.is_empty() {
            self.ready.push(std::mem::take(&mut self.chunk));
        }
        Ok(())
    }

    fn sort_lines(&mut self) {
        self.counts.lines_read = self.parser.lines_read() as i64;
        for line in self.lines.drain(..) {
            match line.kind {
                LineKind::Blank => self.counts.blank += 1,
                LineKind::Invalid(reason, text) => {
                    self.counts.invalid += 1;
                    let number = i64::try_from(line.number).unwrap_or(i64::MAX);
                    self.invalid.push((number, text, reason.to_string()));
                }
                LineKind::User(user) => {
                    self.counts.valid += 1;
                    self.chunk.push(ChunkLine {
                        line: line.number,
                        user_id: user.clone(),
                    });
                    if self.chunk.len() == self.chunk_lines {
                        self.ready.push(std::mem::take(&mut self.chunk));
                    }
                }
            }
        }
    }
}

/// Reads the file into the job and closes its upload: finished; discarded
/// when the file has no line of data (unless an earlier upload of its key
/// got further: that one stays, resumable); else marked broken off, left
/// to resume with the same key.
pub async fn ingest(
    sinks: &Sinks<'_>,
    target: &Target,
    frames: impl Frames,
    gzip: bool,
) -> Result<Uploaded, UploadError> {
    let result = read_file(sinks, target, frames, gzip).await;
    let client = sinks.pool.get().await?;
    let now = crate::store::now();
    match result {
        Ok(done) => {
            let (counts, sha) = (&done.counts, &done.sha256);
            issuance_job::finish_upload(&**client, target.job_id, counts, sha, done.chunks, now)
                .await?;
            Ok(done)
        }
        Err(UploadError::File(FileError::Empty))
            if issuance_job::discard_empty(&**client, target.job_id).await? =>
        {
            Err(FileError::Empty.into())
        }
        Err(e) => {
            issuance_job::broke_off(&**client, target.job_id, &e.to_string()).await?;
            Err(e)
        }
    }
}

/// Reads the whole body into the job; resuming publishes only what was not.
async fn read_file(
    sinks: &Sinks<'_>,
    target: &Target,
    mut frames: impl Frames,
    gzip: bool,
) -> Result<Uploaded, UploadError> {
    let mut inflater = Inflater::new(gzip, target.max_bytes);
    let mut gathered = Gathered::new(target.format, target.chunk_lines);
    let mut next_chunk = 0;
    loop {
        let waiting = Waiting {
            since: Instant::now(),
            idle: target.idle,
        };
        let frame = loop {
            match waiting.next(&mut frames).await? {
                Some(Awaited::Frame(frame)) => break Some(frame),
                Some(Awaited::Nothing) => {
                    next_chunk =
                        write_ready(sinks, target, &mut gathered, next_chunk, false).await?
                }
                None => break None,
            }
        };
        let Some(frame) = frame else { break };
        inflater.push(&frame, |bytes| gathered.feed(bytes))?;
        next_chunk = write_ready(sinks, target, &mut gathered, next_chunk, false).await?;
    }
    inflater.finish(|bytes| gathered.feed(bytes))?;
    gathered.end()?;
    let chunks = write_ready(sinks, target, &mut gathered, next_chunk, true).await?;
    Ok(Uploaded {
        counts: gathered.counts,
        sha256: gathered.sha.finalize().to_vec(),
        chunks,
    })
}

/// Writes the report lines and publishes the chunks gathered so far (all of
/// them when `end`); returns the next chunk's number.
async fn write_ready(
    sinks: &Sinks<'_>,
    target: &Target,
    gathered: &mut Gathered,
    mut chunk_no: i32,
    end: bool,
) -> Result<i32, UploadError> {
    let idle = gathered.ready.is_empty() && gathered.invalid.len() < INVALID_BATCH;
    if idle && !end && gathered.saved.elapsed() < PROGRESS_EVERY {
        return Ok(chunk_no);
    }
    let client = sinks.pool.get().await?;
    for batch in gathered.invalid.chunks(INVALID_BATCH) {
        issuance_job::record_invalid(&**client, target.job_id, batch).await?;
    }
    gathered.invalid.clear();
    let mut messages = Vec::new();
    let mut numbers = Vec::new();
    for lines in gathered.ready.drain(..) {
        let chunk = IssuanceChunk {
            job_id: target.job_id,
            chunk_no,
            template_sn: target.template_sn.clone(),
            lines,
        };
        if record(&client, &chunk).await? {
            let message =
                chunk_message::encode(&chunk).map_err(|e| CommandError::Internal(e.into()))?;
            messages.push(message);
            numbers.push(chunk_no);
        }
        chunk_no += 1;
    }
    if !messages.is_empty() {
        sinks
            .chunks
            .publish_all(topology::ISSUANCE, "", &messages)
            .await?;
        sinks.chunks_published.inc_by(messages.len() as u64);
        for n in numbers {
            issuance_job::chunk_published(&**client, target.job_id, n, crate::store::now()).await?;
        }
    }
    let now = crate::store::now();
    issuance_job::progress(&**client, target.job_id, &gathered.counts, now).await?;
    let new_lines = gathered.counts.lines_read - gathered.lines_counted;
    sinks.lines_read.inc_by(new_lines.max(0) as u64);
    gathered.lines_counted = gathered.counts.lines_read;
    gathered.saved = Instant::now();
    Ok(chunk_no)
}

/// Records the chunk; whether it still needs publishing.
async fn record(
    client: &deadpool_postgres::Object,
    chunk: &IssuanceChunk,
) -> Result<bool, UploadError> {
    let mut digest = Sha256::new();
    for l in &chunk.lines {
        digest.update(format!("{}\t{}\n", l.line, l.user_id));
    }
    let first = chunk.lines.first().map_or(0, |l| l.line as i64);
    let last = chunk.lines.last().map_or(0, |l| l.line as i64);
    let lines = i32::try_from(chunk.lines.len()).expect("chunks are bounded");
    let needed = issuance_job::record_chunk(
        &***client,
        chunk.job_id,
        chunk.chunk_no,
        lines,
        (first, last),
        &digest.finalize(),
    )
    .await?;
    Ok(needed)
}
