//! `ledger audit verify`: recompute the chain from the events and compare
//! it with the seals, the checkpoints and the head finance kept. It reads
//! page by page, so memory stays flat in the number of events.

use std::collections::HashMap;
use std::fmt;

use tokio_postgres::GenericClient;

use super::chain::{GENESIS, Hash, Sealable, from_bytes, link, to_hex};
use super::seal::{Checkpoint, checkpoints};

/// Seals read per page.
const PAGE: i64 = 5_000;

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
/// that `expect`, if given, is one of its links.
pub async fn verify(
    client: &impl GenericClient,
    from: Option<i64>,
    expect: Option<Hash>,
    mut progress: impl FnMut(u64),
) -> Result<Result<Verified, Finding>, tokio_postgres::Error> {
    let all = checkpoints(client).await?;
    let (mut seq, mut prev) = match from {
        None => (0, GENESIS),
        Some(id) => match all.iter().find(|c| c.id == id) {
            Some(c) => (c.last_seq, c.head),
            None => return Ok(Err(Finding::NoSuchCheckpoint { id })),
        },
    };
    let by_seq: HashMap<i64, &Checkpoint> = all.iter().map(|c| (c.last_seq, c)).collect();
    let mut expected_seen = expect.is_none() || expect == Some(prev);
    let mut verified = 0;
    loop {
        let page = read_page(client, seq).await?;
        if page.is_empty() {
            break;
        }
        for (s, position, stored, event) in page {
            if s != seq + 1 {
                return Ok(Err(Finding::SealMissing { seq: seq + 1 }));
            }
            let Some(event) = event else {
                return Ok(Err(Finding::EventMissing { seq: s, position }));
            };
            let hash = link(&prev, &event);
            if hash != stored {
                return Ok(Err(Finding::EventAltered { seq: s, position }));
            }
            if let Some(c) = by_seq.get(&s).filter(|c| c.head != hash) {
                let (id, last_seq) = (c.id, c.last_seq);
                return Ok(Err(Finding::CheckpointDiffers {
                    id,
                    last_seq,
                    position,
                }));
            }
            expected_seen |= expect == Some(hash);
            (seq, prev) = (s, hash);
            verified += 1;
        }
        progress(verified as u64);
    }
    if let Some(c) = all.iter().find(|c| c.last_seq > seq) {
        let (id, last_seq) = (c.id, c.last_seq);
        return Ok(Err(Finding::CheckpointDiffers {
            id,
            last_seq,
            position: c.max_position,
        }));
    }
    if let Some(position) = inserted(client, seq).await? {
        return Ok(Err(Finding::EventInserted { position }));
    }
    if let (false, Some(expected)) = (expected_seen, expect) {
        return Ok(Err(Finding::ExpectedHeadAbsent { expected }));
    }
    let checkpoints = all.len();
    Ok(Ok(Verified {
        events: verified,
        checkpoints,
        head: prev,
    }))
}

type Sealed = (i64, i64, Hash, Option<Sealable>);

/// The seals after `after_seq` and the events they name (`None` if gone),
/// in one round trip.
async fn read_page(
    client: &impl GenericClient,
    after_seq: i64,
) -> Result<Vec<Sealed>, tokio_postgres::Error> {
    let sql = format!(
        "SELECT s.seq, s.position, s.hash, e.position IS NOT NULL, {}
           FROM (SELECT seq, position, hash FROM event_seals WHERE seq > $1
                  ORDER BY seq LIMIT $2) AS s
           LEFT JOIN events e ON e.position = s.position
          ORDER BY s.seq",
        Sealable::columns("e")
    );
    let rows = client.query(&sql, &[&after_seq, &PAGE]).await?;
    rows.iter()
        .map(|r| {
            let hash = from_bytes(r.get(2));
            let event = if r.get::<_, bool>(3) {
                Some(Sealable::from_row_at(r, 4)?)
            } else {
                None
            };
            Ok((r.get(0), r.get(1), hash, event))
        })
        .collect()
}

/// The first event that was never sealed although the sealer has read
/// past it: the sealer reads the store in commit-safe order, so a real
/// event below the head is always sealed.
async fn inserted(
    client: &impl GenericClient,
    last_seq: i64,
) -> Result<Option<i64>, tokio_postgres::Error> {
    let row = client
        .query_one(
            "SELECT min(e.position) FROM events e, event_seals head
              WHERE head.seq = $1 AND (e.tx_id, e.position) < (head.tx_id, head.position)
                AND NOT EXISTS (SELECT 1 FROM event_seals s WHERE s.position = e.position)",
            &[&last_seq],
        )
        .await?;
    Ok(row.get(0))
}
