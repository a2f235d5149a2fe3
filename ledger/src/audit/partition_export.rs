//! `ledger archive export-events --partition N --output FILE`
//! (docs/design.md §16, "Retiring an event partition"): a closed
//! partition's events with their links, the bridges to the checkpoint that
//! closes it, and that checkpoint, in the file of [`super::partition_file`].
//! The file is written beside its name, read back and verified by the same
//! verifier as `ledger audit verify --file`, renamed into place, and only
//! then recorded: a recorded export is a verified one.
//!
//! The seals (by `seq`) and the events (by `(tx_id, position)`, the order
//! they were sealed in) stream side by side as two binary COPYs on two
//! connections in one snapshot, as `audit verify` reads them: one line is
//! held at a time, whatever the partition's size.

use std::fs::{self, File};
use std::io::{self, BufReader, BufWriter, Read, Write};
use std::path::{Path, PathBuf};

use futures_util::{TryStreamExt, pin_mut};
use sha2::{Digest, Sha256};
use tokio_postgres::binary_copy::BinaryCopyOutStream;
use tokio_postgres::types::Type;
use tokio_postgres::{Client, GenericClient};

use super::chain::{GENESIS, Hash, SEALABLE_TYPES, Sealable, from_bytes, link};
use super::file_verify::{FileFinding, FileVerified, verify_file};
use super::partition_file::{self as file, ChainLine, Footer, Header, Kind};
use super::partition_records::{ExportRecord, record_export};
use super::seal::{Checkpoint, checkpoint_closing, last_checkpoint};
use crate::store::partition_moves::{Use, ident, next_position, use_of};
use crate::store::partitions::{self, Partition};
use crate::store::{GlobalCursor, StoreId};

/// Why a partition cannot be exported (yet).
#[derive(Debug, thiserror::Error)]
pub enum Refusal {
    #[error("no partition {number} in events (partitions: {known})")]
    NoSuchPartition { number: i64, known: String },
    #[error(
        "partition {number} [{}, {}) is {}: only a closed partition is exported \
         (the next position is {next})", range.0, range.1, used.describe()
    )]
    NotClosed {
        number: i64,
        range: (i64, i64),
        used: Use,
        next: i64,
    },
    #[error("partition {number} holds no events: there is nothing to export")]
    Empty { number: i64 },
    #[error(
        "{unsealed} of partition {number}'s {events} events are not sealed yet: \
         let the sealer run (workers run --only sealer) and its next checkpoint close them"
    )]
    Unsealed {
        number: i64,
        events: i64,
        unsealed: i64,
    },
    #[error(
        "seals name {missing} events of partition {number} that are not in it: \
         run `ledger audit verify`"
    )]
    SealsWithoutEvents { number: i64, missing: i64 },
    #[error(
        "no checkpoint closes partition {number} yet: its last event is seal #{last_seq}, \
         the newest checkpoint ends at #{newest}; wait for the sealer's next checkpoint"
    )]
    NotClosedByCheckpoint {
        number: i64,
        last_seq: i64,
        newest: i64,
    },
    #[error("{0} exists: an export never replaces a file")]
    OutputExists(PathBuf),
}

#[derive(Debug, thiserror::Error)]
pub enum PartitionExportError {
    #[error(transparent)]
    Refused(#[from] Refusal),
    #[error("reading the store: {0}")]
    Db(#[from] tokio_postgres::Error),
    #[error("the export file: {0}")]
    Io(#[from] io::Error),
    #[error(
        "the store's chain does not hold at seal #{seq} (position {position}): \
         run `ledger audit verify`; nothing was exported"
    )]
    Chain { seq: i64, position: i64 },
    #[error("the file written does not verify ({0}); it was not recorded")]
    ReadBack(FileFinding),
    #[error("the file written verifies but is not this export ({0}); it was not recorded")]
    ReadBackDiffers(String),
}

/// What one partition's export holds, decided before a line is written.
#[derive(Clone, Debug)]
pub struct Plan {
    pub store_id: StoreId,
    pub partition: Partition,
    pub number: i64,
    pub range: (i64, i64),
    pub events: i64,
    /// The seals of the partition's first and last events in chain order.
    pub first_seq: i64,
    pub last_event_seq: i64,
    pub checkpoint: Checkpoint,
    /// The link before `first_seq`.
    pub prev: Hash,
    /// Where the first and the last line's events stand in the store's order.
    pub from: GlobalCursor,
    pub to: GlobalCursor,
}

impl Plan {
    /// The chain lines the file holds (events and bridges).
    pub fn links(&self) -> u64 {
        u64::try_from(self.checkpoint.last_seq - self.first_seq + 1).unwrap_or(0)
    }
}

/// Finds partition `number` and checks it may be exported.
async fn closed_partition(
    client: &impl GenericClient,
    number: i64,
) -> Result<(Partition, (i64, i64)), PartitionExportError> {
    let all = partitions::list(client).await?;
    let Some(p) = all.iter().find(|p| p.number == Some(number)) else {
        let known: Vec<String> = all
            .iter()
            .filter_map(|p| p.number)
            .map(|n| n.to_string())
            .collect();
        return Err(Refusal::NoSuchPartition {
            number,
            known: known.join(", "),
        }
        .into());
    };
    let next = next_position(client).await?;
    let range = p.range.expect("a numbered partition has a range");
    match use_of(p.range, next) {
        Use::Closed => Ok((p.clone(), range)),
        used => Err(Refusal::NotClosed {
            number,
            range,
            used,
            next,
        }
        .into()),
    }
}

/// The plan of partition `number`'s export, read in the caller's snapshot.
pub async fn plan(client: &impl GenericClient, number: i64) -> Result<Plan, PartitionExportError> {
    let (partition, range) = closed_partition(client, number).await?;
    let events: i64 = client
        .query_one(
            &format!("SELECT count(*) FROM {}", ident(&partition.name)),
            &[],
        )
        .await?
        .get(0);
    let sql = "SELECT count(*), coalesce(min(seq), 0), coalesce(max(seq), 0) FROM event_seals
                WHERE position >= $1 AND position < $2";
    let row = client.query_one(sql, &[&range.0, &range.1]).await?;
    let (sealed, first_seq, last_event_seq): (i64, i64, i64) = (row.get(0), row.get(1), row.get(2));
    if events == 0 {
        return Err(Refusal::Empty { number }.into());
    }
    if sealed < events {
        let unsealed = events - sealed;
        return Err(Refusal::Unsealed {
            number,
            events,
            unsealed,
        }
        .into());
    }
    if sealed > events {
        let missing = sealed - events;
        return Err(Refusal::SealsWithoutEvents { number, missing }.into());
    }
    let Some(checkpoint) = checkpoint_closing(client, last_event_seq).await? else {
        let newest = last_checkpoint(client).await?.map_or(0, |c| c.last_seq);
        let last_seq = last_event_seq;
        return Err(Refusal::NotClosedByCheckpoint {
            number,
            last_seq,
            newest,
        }
        .into());
    };
    Ok(Plan {
        store_id: StoreId::load(client).await?,
        number,
        range,
        events,
        first_seq,
        last_event_seq,
        prev: link_before(client, first_seq).await?,
        from: seal_cursor(client, first_seq).await?,
        to: seal_cursor(client, checkpoint.last_seq).await?,
        checkpoint,
        partition,
    })
}

async fn link_before(client: &impl GenericClient, seq: i64) -> Result<Hash, tokio_postgres::Error> {
    if seq <= 1 {
        return Ok(GENESIS);
    }
    let sql = "SELECT hash FROM event_seals WHERE seq = $1";
    Ok(from_bytes(
        client.query_one(sql, &[&(seq - 1)]).await?.get(0),
    ))
}

async fn seal_cursor(
    client: &impl GenericClient,
    seq: i64,
) -> Result<GlobalCursor, tokio_postgres::Error> {
    let sql = "SELECT tx_id, position FROM event_seals WHERE seq = $1";
    let row = client.query_one(sql, &[&seq]).await?;
    Ok(GlobalCursor {
        tx_id: row.get(0),
        position: row.get(1),
    })
}

/// Two connections reading one snapshot (read-only transactions, which
/// take no transaction id: the relay's and the sealer's horizon never
/// waits for them).
async fn snapshot_pair(
    config: &tokio_postgres::Config,
) -> Result<(Client, Client), tokio_postgres::Error> {
    let begin = "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY";
    let seals = crate::db::connect(config).await?;
    seals.batch_execute(begin).await?;
    let snapshot: String = seals
        .query_one("SELECT pg_export_snapshot()", &[])
        .await?
        .get(0);
    // An id like 00000003-0000001B-1, written into the command.
    debug_assert!(snapshot.chars().all(|c| c.is_ascii_hexdigit() || c == '-'));
    let events = crate::db::connect(config).await?;
    events
        .batch_execute(&format!("{begin}; SET TRANSACTION SNAPSHOT '{snapshot}'"))
        .await?;
    Ok((seals, events))
}

/// What was written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Written {
    pub events: i64,
    pub bridges: i64,
    /// The first seal of a later partition's event (see
    /// [`ExportRecord::first_later_seq`]).
    pub first_later_seq: Option<i64>,
}

/// Plans partition `number`'s export and writes its file to `out`.
/// `progress` is told the plan's count of lines, then the lines written.
pub async fn write(
    config: &tokio_postgres::Config,
    number: i64,
    out: &mut impl Write,
    exported_at: chrono::DateTime<chrono::Utc>,
    mut progress: impl FnMut(u64, u64),
) -> Result<(Plan, Written), PartitionExportError> {
    let (seals, events) = snapshot_pair(config).await?;
    let plan = plan(&seals, number).await?;
    progress(0, plan.links());
    let header = Header {
        store_id: plan.store_id.0,
        partition: number,
        range: plan.range,
        events: plan.events,
        exported_at,
    };
    let mut line = Vec::with_capacity(4096);
    file::header_line(&header, &mut line);
    out.write_all(&line)?;
    let written = stream(&seals, &events, &plan, out, |n| progress(n, plan.links())).await?;
    if written.events != plan.events {
        let position = plan.range.0;
        return Err(PartitionExportError::Chain {
            seq: plan.last_event_seq,
            position,
        });
    }
    line.clear();
    let footer = Footer {
        checkpoint: plan.checkpoint.clone(),
        events: written.events,
        bridges: written.bridges,
    };
    file::footer_line(&footer, &mut line);
    out.write_all(&line)?;
    out.flush()?;
    Ok((plan, written))
}

/// The columns [`Sealable`] is read from, as stored.
const ROW: &str = "position, event_id, stream_id, stream_version, event_type, schema_version,
                   payload, metadata, occurred_at, tx_id";

const SEAL_TYPES: [Type; 4] = [Type::INT8, Type::INT8, Type::INT8, Type::BYTEA];

/// Lines written between two calls of the progress callback.
const PROGRESS_EVERY: u64 = 10_000;

/// The chain lines from the plan's first seal to its checkpoint's last,
/// each event checked against its seal as it goes.
async fn stream(
    seals_client: &Client,
    events_client: &Client,
    plan: &Plan,
    out: &mut impl Write,
    mut progress: impl FnMut(u64),
) -> Result<Written, PartitionExportError> {
    let (seals, events) = copy_sql(plan);
    let seals = BinaryCopyOutStream::new(seals_client.copy_out(&seals).await?, &SEAL_TYPES);
    let events = BinaryCopyOutStream::new(events_client.copy_out(&events).await?, &SEALABLE_TYPES);
    pin_mut!(seals, events);
    let mut lines = ChainWriter {
        plan,
        prev: plan.prev,
        line: Vec::with_capacity(4096),
        written: Written {
            events: 0,
            bridges: 0,
            first_later_seq: None,
        },
    };
    while let Some(seal) = seals.try_next().await? {
        let (seq, position): (i64, i64) = (seal.try_get(0)?, seal.try_get(1)?);
        let at = GlobalCursor {
            tx_id: seal.try_get(2)?,
            position,
        };
        let Some(row) = events.try_next().await? else {
            return Err(PartitionExportError::Chain { seq, position });
        };
        let event = Sealable::from_copy_row_at(&row, 0)?;
        lines.write(seq, at, from_bytes(seal.try_get(3)?), event, out)?;
        let done = lines.done();
        if done.is_multiple_of(PROGRESS_EVERY) {
            progress(done);
        }
    }
    if let Some(row) = events.try_next().await? {
        // An event after the last seal's, yet before the checkpoint's cursor.
        let position = Sealable::from_copy_row_at(&row, 0)?.position;
        let seq = plan.checkpoint.last_seq;
        return Err(PartitionExportError::Chain { seq, position });
    }
    progress(lines.done());
    Ok(lines.written)
}

/// The two COPYs of [`stream`]: the plan's seals by `seq`, and the events
/// between its first and last seal's in the order they were sealed in.
/// Only integers are written into the text (COPY takes no parameters).
fn copy_sql(plan: &Plan) -> (String, String) {
    let seals = format!(
        "COPY (SELECT seq, position, tx_id, hash FROM event_seals
                WHERE seq BETWEEN {} AND {} ORDER BY seq) TO STDOUT (FORMAT binary)",
        plan.first_seq, plan.checkpoint.last_seq
    );
    // Bridges of partitions that left are kept in event_bridges (retire.rs).
    let within = format!(
        "(tx_id, position) >= ({}, {}) AND (tx_id, position) <= ({}, {})",
        plan.from.tx_id, plan.from.position, plan.to.tx_id, plan.to.position
    );
    let events = format!(
        "COPY (SELECT {} FROM (SELECT {ROW} FROM events WHERE {within}
                               UNION ALL SELECT {ROW} FROM event_bridges WHERE {within}) e
                ORDER BY tx_id, position) TO STDOUT (FORMAT binary)",
        Sealable::columns("")
    );
    (seals, events)
}

/// Writes the chain lines one by one, checking each event against its seal.
struct ChainWriter<'p> {
    plan: &'p Plan,
    prev: Hash,
    line: Vec<u8>,
    written: Written,
}

impl ChainWriter<'_> {
    /// The line of seal `seq` (at `at`, link `stored`) and its `event`.
    fn write(
        &mut self,
        seq: i64,
        at: GlobalCursor,
        stored: Hash,
        event: Sealable,
        out: &mut impl Write,
    ) -> Result<(), PartitionExportError> {
        let hash = link(&self.prev, &event);
        if event.cursor() != at || hash != stored {
            let position = at.position;
            return Err(PartitionExportError::Chain { seq, position });
        }
        let (lower, upper) = self.plan.range;
        let position = event.position;
        let kind = if (lower..upper).contains(&position) {
            self.written.events += 1;
            Kind::Event
        } else {
            self.written.bridges += 1;
            Kind::Bridge
        };
        if position >= upper && self.written.first_later_seq.is_none() {
            self.written.first_later_seq = Some(seq);
        }
        let prev = self.prev;
        self.line.clear();
        file::chain_line(
            &ChainLine {
                kind,
                seq,
                event,
                prev,
                hash,
            },
            &mut self.line,
        );
        out.write_all(&self.line)?;
        self.prev = hash;
        Ok(())
    }

    fn done(&self) -> u64 {
        u64::try_from(self.written.events + self.written.bridges).unwrap_or(0)
    }
}

/// A reader that hashes what it reads (the file's SHA-256, on the read-back).
struct Hashing<R> {
    inner: R,
    digest: Sha256,
    bytes: u64,
}

impl<R: Read> Read for Hashing<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.digest.update(&buf[..n]);
        self.bytes += n as u64;
        Ok(n)
    }
}

/// Verifies the file at `path` as `ledger audit verify --file` does; its
/// SHA-256 and size with the verdict.
pub fn verify_path(
    path: &Path,
    progress: impl FnMut(u64),
) -> io::Result<(Result<FileVerified, FileFinding>, Hash, u64)> {
    let mut hashing = Hashing {
        inner: File::open(path)?,
        digest: Sha256::new(),
        bytes: 0,
    };
    let verdict = verify_file(
        BufReader::with_capacity(1 << 20, &mut hashing),
        None,
        progress,
    )?;
    // The verifier may stop early; the digest is of the whole file.
    io::copy(&mut hashing, &mut io::sink())?;
    Ok((verdict, hashing.digest.finalize().into(), hashing.bytes))
}

/// The stage an export is in, for a progress bar.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stage {
    Writing,
    Verifying,
}

/// Exports partition `number` to `path` (never replacing a file): writes
/// `<path>.partial`, syncs it, reads it back through the verifier, renames
/// it to `path` and records the export. `progress` is told the stage, the
/// lines done and the lines in all.
pub async fn export_to_file(
    config: &tokio_postgres::Config,
    number: i64,
    path: &Path,
    mut progress: impl FnMut(Stage, u64, u64),
) -> Result<ExportRecord, PartitionExportError> {
    if path.exists() {
        return Err(Refusal::OutputExists(path.to_owned()).into());
    }
    let partial = partial_path(path);
    let exported_at = crate::store::now();
    let mut out = BufWriter::with_capacity(1 << 20, File::create(&partial)?);
    let written = write(config, number, &mut out, exported_at, |n, of| {
        progress(Stage::Writing, n, of)
    })
    .await;
    let file = out.into_inner().map_err(io::IntoInnerError::into_error)?;
    let (plan, written) = match written {
        Ok(done) => done,
        Err(e) => {
            drop(file);
            let _ = fs::remove_file(&partial);
            return Err(e);
        }
    };
    file.sync_all()?;
    drop(file);
    let links = plan.links();
    let (verdict, sha256, bytes) = verify_path(&partial, |n| progress(Stage::Verifying, n, links))?;
    let verified = verdict.map_err(PartitionExportError::ReadBack)?;
    same_as_planned(&plan, &verified).map_err(PartitionExportError::ReadBackDiffers)?;
    fs::rename(&partial, path)?;
    sync_parent(path)?;
    let record = ExportRecord {
        id: 0,
        partition_number: number,
        partition_name: plan.partition.name.clone(),
        range: plan.range,
        events: plan.events,
        first_seq: plan.first_seq,
        last_seq: plan.checkpoint.last_seq,
        first_later_seq: written.first_later_seq,
        checkpoint_id: plan.checkpoint.id,
        checkpoint_head: plan.checkpoint.head,
        file_sha256: sha256,
        file_bytes: i64::try_from(bytes).unwrap_or(i64::MAX),
        path: fs::canonicalize(path)?.to_string_lossy().into_owned(),
        exported_at,
        verified_at: crate::store::now(),
    };
    let client = crate::db::connect(config).await?;
    let id = record_export(&client, &record).await?;
    Ok(ExportRecord { id, ..record })
}

/// `<path>.partial`: where the file is written until it verified.
fn partial_path(path: &Path) -> PathBuf {
    let mut name = path.as_os_str().to_owned();
    name.push(".partial");
    PathBuf::from(name)
}

/// The rename survives a crash only once the directory is synced.
fn sync_parent(path: &Path) -> io::Result<()> {
    let parent = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    File::open(parent)?.sync_all()
}

/// The file read back says what the plan wrote.
fn same_as_planned(plan: &Plan, v: &FileVerified) -> Result<(), String> {
    let checks = [
        (v.header.store_id == plan.store_id.0, "the store id"),
        (v.header.partition == plan.number, "the partition"),
        (v.header.range == plan.range, "the range"),
        (v.header.events == plan.events, "the count of events"),
        (v.first_seq == plan.first_seq, "the first seal"),
        (v.footer.checkpoint == plan.checkpoint, "the checkpoint"),
    ];
    match checks.iter().find(|(same, _)| !same) {
        Some((_, what)) => Err(format!("{what} differs")),
        None => Ok(()),
    }
}
