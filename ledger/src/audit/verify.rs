//! `ledger audit verify`: recompute the chain from the events and compare
//! it with the seals, the checkpoints and the head finance kept. It streams
//! both sides, so memory stays flat in the number of events.

use std::collections::HashMap;
use std::fmt;

use futures_util::{TryStreamExt, pin_mut};
use tokio_postgres::GenericClient;
use tokio_postgres::binary_copy::BinaryCopyOutStream;
use tokio_postgres::types::Type;

use super::chain::{GENESIS, Hash, SEALABLE_TYPES, Sealable, from_bytes, link, to_hex};
use super::seal::{Checkpoint, checkpoints};
use crate::store::GlobalCursor;

/// The first thing that does not hold.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Finding {
    /// A sealed event is gone from `events`.
    EventMissing { seq: i64, position: i64 },
    /// The event at `position` no longer gives its seal: a field was
    /// edited, or events were swapped or reordered.
    EventAltered { seq: i64, position: i64 },
    /// An event that was never sealed sits among sealed ones: inserted.
    EventInserted { position: i64 },
    /// The seals themselves have a hole (a seal row was deleted).
    SealMissing { seq: i64 },
    /// A checkpoint's head is not the chain's head at that point: the
    /// checkpoint was rewritten, or the chain recomputed before it.
    CheckpointDiffers {
        id: i64,
        last_seq: i64,
        position: i64,
    },
    /// The head finance kept is nowhere in the recomputed chain.
    ExpectedHeadAbsent { expected: Hash },
    /// `--from-checkpoint` names no checkpoint.
    NoSuchCheckpoint { id: i64 },
}

impl fmt::Display for Finding {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::EventMissing { seq, position } => {
                write!(
                    f,
                    "position {position}: event missing (sealed as #{seq}, deleted since)"
                )
            }
            Self::EventAltered { seq, position } => write!(
                f,
                "position {position}: event altered (it no longer gives seal #{seq}: a field \
                 or the payload was edited, or events were swapped or reordered)"
            ),
            Self::EventInserted { position } => write!(
                f,
                "position {position}: event inserted (never sealed, yet older than the sealed head)"
            ),
            Self::SealMissing { seq } => write!(f, "seal #{seq} missing (a seal row was deleted)"),
            Self::CheckpointDiffers {
                id,
                last_seq,
                position,
            } => write!(
                f,
                "position {position}: checkpoint {id} (at #{last_seq}) differs from the chain: \
                 the checkpoint was rewritten or the chain recomputed"
            ),
            Self::ExpectedHeadAbsent { expected } => write!(
                f,
                "the expected head {} is not in the chain: the chain was recomputed",
                to_hex(expected)
            ),
            Self::NoSuchCheckpoint { id } => write!(f, "no checkpoint {id}"),
        }
    }
}

/// What a verification that found nothing saw.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Verified {
    pub events: i64,
    pub checkpoints: usize,
    pub head: Hash,
}

/// Verifies the chain from the start (or after checkpoint `from`), and
/// that `expect`, if given, is one of its links. One ordered pass: the
/// seals (by `seq`) and the events (by `(tx_id, position)`, the order the
/// sealer sealed them in) stream side by side as two binary COPYs, on two
/// connections in one snapshot, and are zipped. An event with no seal at
/// its place was inserted; a seal with no event at its place lost it.
pub async fn verify(
    config: &tokio_postgres::Config,
    from: Option<i64>,
    expect: Option<Hash>,
    progress: impl FnMut(u64),
) -> Result<Result<Verified, Finding>, tokio_postgres::Error> {
    let mut seals_client = crate::db::connect(config).await?;
    let seals_tx = crate::db::read_only_snapshot(&mut seals_client).await?;
    let snapshot: String = seals_tx
        .query_one("SELECT pg_export_snapshot()", &[])
        .await?
        .get(0);
    let mut events_client = crate::db::connect(config).await?;
    let events_tx = crate::db::read_only_snapshot(&mut events_client).await?;
    // An id like 00000003-0000001B-1, written into the command.
    debug_assert!(snapshot.chars().all(|c| c.is_ascii_hexdigit() || c == '-'));
    events_tx
        .batch_execute(&format!("SET TRANSACTION SNAPSHOT '{snapshot}'"))
        .await?;
    let all = checkpoints(&seals_tx).await?;
    let start = match from {
        None => Start::GENESIS,
        Some(id) => match all.iter().find(|c| c.id == id) {
            Some(c) => Start::after(&seals_tx, c).await?,
            None => return Ok(Err(Finding::NoSuchCheckpoint { id })),
        },
    };
    let seals = format!(
        "COPY (SELECT seq, position, tx_id, hash FROM event_seals WHERE seq > {} ORDER BY seq)
           TO STDOUT (FORMAT binary)",
        start.seq
    );
    let events = format!(
        "COPY (SELECT {} FROM events WHERE (tx_id, position) > ({}, {})
                ORDER BY tx_id, position) TO STDOUT (FORMAT binary)",
        Sealable::columns(""),
        start.cursor.tx_id,
        start.cursor.position
    );
    let seals = BinaryCopyOutStream::new(seals_tx.copy_out(&seals).await?, &SEAL_TYPES);
    let events = BinaryCopyOutStream::new(events_tx.copy_out(&events).await?, &SEALABLE_TYPES);
    let chain = Chain::new(&all, start, expect);
    chain.zip(seals, events, progress).await
}

/// Where a verification starts: the chain's state after a checkpoint.
#[derive(Clone, Copy)]
struct Start {
    seq: i64,
    hash: Hash,
    cursor: GlobalCursor,
}

impl Start {
    const GENESIS: Start = Start {
        seq: 0,
        hash: GENESIS,
        cursor: GlobalCursor::START,
    };

    /// After checkpoint `c`, where its last seal's event stands.
    async fn after(
        client: &impl GenericClient,
        c: &Checkpoint,
    ) -> Result<Start, tokio_postgres::Error> {
        let sql = "SELECT tx_id, position FROM event_seals WHERE seq = $1";
        let row = client.query_opt(sql, &[&c.last_seq]).await?;
        let cursor = row.map_or(GlobalCursor::START, |r| GlobalCursor {
            tx_id: r.get(0),
            position: r.get(1),
        });
        Ok(Start {
            seq: c.last_seq,
            hash: c.head,
            cursor,
        })
    }
}

const SEAL_TYPES: [Type; 4] = [Type::INT8, Type::INT8, Type::INT8, Type::BYTEA];

/// The chain recomputed so far, and what it is checked against.
struct Chain<'c> {
    by_seq: HashMap<i64, &'c Checkpoint>,
    all: &'c [Checkpoint],
    seq: i64,
    prev: Hash,
    expect: Option<Hash>,
    expected_seen: bool,
    verified: i64,
}

impl<'c> Chain<'c> {
    fn new(all: &'c [Checkpoint], start: Start, expect: Option<Hash>) -> Self {
        Chain {
            by_seq: all.iter().map(|c| (c.last_seq, c)).collect(),
            all,
            seq: start.seq,
            prev: start.hash,
            expected_seen: expect.is_none() || expect == Some(start.hash),
            expect,
            verified: 0,
        }
    }

    async fn zip(
        mut self,
        seals: BinaryCopyOutStream,
        events: BinaryCopyOutStream,
        mut progress: impl FnMut(u64),
    ) -> Result<Result<Verified, Finding>, tokio_postgres::Error> {
        pin_mut!(seals, events);
        let mut event = next_event(&mut events).await?;
        while let Some(row) = seals.try_next().await? {
            let (s, position): (i64, i64) = (row.try_get(0)?, row.try_get(1)?);
            let at = GlobalCursor {
                tx_id: row.try_get(2)?,
                position,
            };
            if s != self.seq + 1 {
                return Ok(Err(Finding::SealMissing { seq: self.seq + 1 }));
            }
            match event.take() {
                Some(e) if e.cursor() < at => {
                    return Ok(Err(Finding::EventInserted {
                        position: e.position,
                    }));
                }
                Some(e) if e.cursor() == at => {
                    if let Err(finding) = self.link(s, &e, from_bytes(row.try_get(3)?)) {
                        return Ok(Err(finding));
                    }
                    event = next_event(&mut events).await?;
                }
                _ => return Ok(Err(Finding::EventMissing { seq: s, position })),
            }
            if self.verified % PROGRESS_EVERY == 0 {
                progress(self.verified as u64);
            }
        }
        progress(self.verified as u64);
        Ok(self.finish())
    }

    /// Links event `e` as seal `s`, which stored `stored`.
    fn link(&mut self, s: i64, e: &Sealable, stored: Hash) -> Result<(), Finding> {
        let hash = link(&self.prev, e);
        let position = e.position;
        if hash != stored {
            return Err(Finding::EventAltered { seq: s, position });
        }
        if let Some(c) = self.by_seq.get(&s).filter(|c| c.head != hash) {
            let (id, last_seq) = (c.id, c.last_seq);
            return Err(Finding::CheckpointDiffers {
                id,
                last_seq,
                position,
            });
        }
        self.expected_seen |= self.expect == Some(hash);
        (self.seq, self.prev) = (s, hash);
        self.verified += 1;
        Ok(())
    }

    /// After the last seal: no checkpoint may claim more, and the head
    /// finance kept must have been met.
    fn finish(self) -> Result<Verified, Finding> {
        if let Some(c) = self.all.iter().find(|c| c.last_seq > self.seq) {
            let (id, last_seq) = (c.id, c.last_seq);
            return Err(Finding::CheckpointDiffers {
                id,
                last_seq,
                position: c.max_position,
            });
        }
        if let (false, Some(expected)) = (self.expected_seen, self.expect) {
            return Err(Finding::ExpectedHeadAbsent { expected });
        }
        Ok(Verified {
            events: self.verified,
            checkpoints: self.all.len(),
            head: self.prev,
        })
    }
}

/// Links verified between two calls of the progress callback.
const PROGRESS_EVERY: i64 = 10_000;

async fn next_event(
    events: &mut std::pin::Pin<&mut BinaryCopyOutStream>,
) -> Result<Option<Sealable>, tokio_postgres::Error> {
    match events.try_next().await? {
        Some(row) => Ok(Some(Sealable::from_copy_row_at(&row, 0)?)),
        None => Ok(None),
    }
}
