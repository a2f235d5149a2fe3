//! The sealer's SQL: the chain's head, sealing a batch of events read in
//! the store's commit-safe order, and checkpoints.

use std::fmt;

use chrono::{DateTime, Utc};
use tokio_postgres::GenericClient;

use super::chain::{GENESIS, Hash, Sealable, from_bytes, link, to_hex};
use crate::store::GlobalCursor;
use crate::store::read::committed_after_sql;

/// The end of the chain: its last link and the event it sealed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Head {
    /// Events sealed (0 before the first).
    pub seq: i64,
    /// Where the store's reader resumes.
    pub cursor: GlobalCursor,
    pub hash: Hash,
}

impl Head {
    pub const EMPTY: Head = Head {
        seq: 0,
        cursor: GlobalCursor::START,
        hash: GENESIS,
    };
}

/// The chain's head as stored.
pub async fn head(client: &impl GenericClient) -> Result<Head, tokio_postgres::Error> {
    let row = client
        .query_opt(
            "SELECT seq, tx_id, position, hash FROM event_seals ORDER BY seq DESC LIMIT 1",
            &[],
        )
        .await?;
    Ok(row.map_or(Head::EMPTY, |r| Head {
        seq: r.get(0),
        cursor: GlobalCursor {
            tx_id: r.get(1),
            position: r.get(2),
        },
        hash: from_bytes(r.get(3)),
    }))
}

/// Up to `limit` committed events after `head`, in the store's commit-safe
/// order (the relay's), as the chain hashes them.
pub async fn unsealed(
    client: &impl GenericClient,
    head: &Head,
    limit: i64,
) -> Result<Vec<Sealable>, tokio_postgres::Error> {
    let sql = committed_after_sql(&Sealable::columns(""));
    let cursor = head.cursor;
    let rows = client
        .query(&sql, &[&cursor.tx_id, &cursor.position, &limit])
        .await?;
    rows.iter().map(|r| Sealable::from_row_at(r, 0)).collect()
}

/// Seals `events` (read after `head.cursor`, in order) after `head`, in the
/// caller's transaction; the new head. Two sealers cannot both commit: the
/// second's `seq` collides with the first's.
pub async fn seal(
    tx: &impl GenericClient,
    head: &Head,
    events: &[Sealable],
) -> Result<Head, tokio_postgres::Error> {
    let mut next = *head;
    let (mut seqs, mut positions, mut tx_ids, mut hashes) = (vec![], vec![], vec![], vec![]);
    for event in events {
        debug_assert!(event.cursor() > next.cursor, "sealed in the store's order");
        next = Head {
            seq: next.seq + 1,
            cursor: event.cursor(),
            hash: link(&next.hash, event),
        };
        seqs.push(next.seq);
        positions.push(event.position);
        tx_ids.push(event.tx_id);
        hashes.push(next.hash.to_vec());
    }
    tx.execute(
        "INSERT INTO event_seals (seq, position, tx_id, hash)
         SELECT * FROM unnest($1::bigint[], $2::bigint[], $3::bigint[], $4::bytea[])",
        &[&seqs, &positions, &tx_ids, &hashes],
    )
    .await?;
    Ok(next)
}

/// A checkpoint: the chain's head at `last_seq`, and what it covers since
/// the one before.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Checkpoint {
    pub id: i64,
    pub first_seq: i64,
    pub last_seq: i64,
    pub min_position: i64,
    pub max_position: i64,
    pub head: Hash,
    pub created_at: DateTime<Utc>,
}

/// One line, for finance to keep outside the database.
impl fmt::Display for Checkpoint {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "checkpoint {} at {} events {}..={} positions {}..={} count {} head {}",
            self.id,
            self.created_at.format("%Y-%m-%dT%H:%M:%S%.6fZ"),
            self.first_seq,
            self.last_seq,
            self.min_position,
            self.max_position,
            self.last_seq,
            to_hex(&self.head)
        )
    }
}

const CHECKPOINT_COLUMNS: &str =
    "id, first_seq, last_seq, min_position, max_position, head, created_at";

fn checkpoint_from(r: &tokio_postgres::Row) -> Checkpoint {
    Checkpoint {
        id: r.get(0),
        first_seq: r.get(1),
        last_seq: r.get(2),
        min_position: r.get(3),
        max_position: r.get(4),
        head: from_bytes(r.get(5)),
        created_at: r.get(6),
    }
}

/// Records a checkpoint at `head` unless the last one is already there.
pub async fn checkpoint(
    tx: &impl GenericClient,
    head: &Head,
) -> Result<Option<Checkpoint>, tokio_postgres::Error> {
    let sql = format!(
        "WITH last AS (SELECT coalesce(max(id), 0) AS id, coalesce(max(last_seq), 0) AS seq
                         FROM seal_checkpoints)
         INSERT INTO seal_checkpoints (id, first_seq, last_seq, min_position, max_position, head)
         SELECT last.id + 1, last.seq + 1, $1, min(s.position), max(s.position), $2
           FROM last JOIN event_seals s ON s.seq > last.seq AND s.seq <= $1
          GROUP BY last.id, last.seq
         RETURNING {CHECKPOINT_COLUMNS}"
    );
    let row = tx
        .query_opt(&sql, &[&head.seq, &head.hash.to_vec()])
        .await?;
    Ok(row.as_ref().map(checkpoint_from))
}

/// Every checkpoint, oldest first.
pub async fn checkpoints(
    client: &impl GenericClient,
) -> Result<Vec<Checkpoint>, tokio_postgres::Error> {
    let sql = format!("SELECT {CHECKPOINT_COLUMNS} FROM seal_checkpoints ORDER BY id");
    let rows = client.query(&sql, &[]).await?;
    Ok(rows.iter().map(checkpoint_from).collect())
}

/// The newest checkpoint's last sequence number and how long ago, by the
/// database's clock, it was taken (`None`: no checkpoint yet). The sealer
/// counts its interval from here, so restarts do not reset it.
pub async fn last_checkpoint_age(
    client: &impl GenericClient,
) -> Result<Option<(i64, std::time::Duration)>, tokio_postgres::Error> {
    let row = client
        .query_opt(
            "SELECT last_seq, greatest(extract(epoch FROM now() - created_at), 0)::float8
               FROM seal_checkpoints ORDER BY id DESC LIMIT 1",
            &[],
        )
        .await?;
    Ok(row.map(|r| {
        let secs: f64 = r.get(1);
        (r.get(0), std::time::Duration::from_secs_f64(secs))
    }))
}

/// The first checkpoint at or after seal `seq`: the one that closes a
/// stretch of the chain ending there (None: no checkpoint reached it yet).
pub async fn checkpoint_closing(
    client: &impl GenericClient,
    seq: i64,
) -> Result<Option<Checkpoint>, tokio_postgres::Error> {
    let sql = format!(
        "SELECT {CHECKPOINT_COLUMNS} FROM seal_checkpoints
          WHERE last_seq >= $1 ORDER BY last_seq LIMIT 1"
    );
    let row = client.query_opt(&sql, &[&seq]).await?;
    Ok(row.as_ref().map(checkpoint_from))
}

/// The checkpoint `id`, if any.
pub async fn checkpoint_by_id(
    client: &impl GenericClient,
    id: i64,
) -> Result<Option<Checkpoint>, tokio_postgres::Error> {
    let sql = format!("SELECT {CHECKPOINT_COLUMNS} FROM seal_checkpoints WHERE id = $1");
    let row = client.query_opt(&sql, &[&id]).await?;
    Ok(row.as_ref().map(checkpoint_from))
}

/// The newest checkpoint, if any.
pub async fn last_checkpoint(
    client: &impl GenericClient,
) -> Result<Option<Checkpoint>, tokio_postgres::Error> {
    let sql = format!("SELECT {CHECKPOINT_COLUMNS} FROM seal_checkpoints ORDER BY id DESC LIMIT 1");
    let row = client.query_opt(&sql, &[]).await?;
    Ok(row.as_ref().map(checkpoint_from))
}
