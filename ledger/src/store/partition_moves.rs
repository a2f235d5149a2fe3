//! What a partition of `events` is to the appends (still written, made
//! ahead, closed), and moving a closed one to another tablespace
//! (docs/design.md §16, "Old partitions").
//!
//! Moving copies the partition and its indexes under an ACCESS EXCLUSIVE
//! lock on it (only it: appends go to the partition being written and
//! never wait). Every reader of `events` that does not name a position
//! range (the relay, the sealer, catch-up projections, replay, verify)
//! locks every partition, so it waits until the copy ends. The lock is
//! asked for with a short `lock_timeout`, so that a move queued behind a
//! long reader does not stall those readers too: it fails, and is run
//! again later.

use tokio_postgres::{GenericClient, Transaction};

use super::partitions::Partition;

/// How long a move waits for its lock on the partition.
pub const LOCK_TIMEOUT: &str = "5s";

/// The position the next append will take (the sequence's next value).
pub async fn next_position(client: &impl GenericClient) -> Result<i64, tokio_postgres::Error> {
    let sql = "SELECT CASE WHEN is_called THEN last_value + 1 ELSE last_value END
                 FROM events_position_seq";
    Ok(client.query_one(sql, &[]).await?.get(0))
}

/// What a partition is to the appends.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Use {
    /// The default partition (positions no range holds: none, normally).
    Default,
    /// Made ahead: no position of it was given yet.
    Ahead,
    /// The sequence gives its positions now.
    Written,
    /// Every position of it was given. A transaction that took one of
    /// them may still be open: whoever acts on a closed partition counts
    /// its rows under a lock (`audit::retire`).
    Closed,
}

/// What the partition of `range` is when the next position is `next`.
pub fn use_of(range: Option<(i64, i64)>, next: i64) -> Use {
    match range {
        None => Use::Default,
        Some((_, upper)) if next >= upper => Use::Closed,
        Some((lower, _)) if next > lower => Use::Written,
        Some(_) => Use::Ahead,
    }
}

impl Use {
    /// How a refusal names it.
    pub fn describe(self) -> &'static str {
        match self {
            Use::Default => "the default partition",
            Use::Ahead => "made ahead (nothing written to it yet)",
            Use::Written => "being written",
            Use::Closed => "closed",
        }
    }
}

/// An identifier quoted for SQL.
pub fn ident(name: &str) -> String {
    format!("\"{}\"", name.replace('"', "\"\""))
}

#[derive(Debug, thiserror::Error)]
pub enum MoveError {
    #[error("no tablespace {name:?} (known: {known}); CREATE TABLESPACE makes one")]
    NoSuchTablespace { name: String, known: String },
    #[error(
        "{name} is in use: its lock was not granted within {LOCK_TIMEOUT} (a long reader: \
         replay, an export, a verify); nothing moved, run it again"
    )]
    Busy { name: String },
    #[error("moving the partition: {0}")]
    Db(#[from] tokio_postgres::Error),
}

/// That `tablespace` exists.
pub async fn check_tablespace(
    client: &impl GenericClient,
    tablespace: &str,
) -> Result<(), MoveError> {
    let known: Vec<String> = client
        .query("SELECT spcname::text FROM pg_tablespace ORDER BY 1", &[])
        .await?
        .iter()
        .map(|r| r.get(0))
        .collect();
    if known.iter().any(|k| k == tablespace) {
        return Ok(());
    }
    Err(MoveError::NoSuchTablespace {
        name: tablespace.to_owned(),
        known: known.join(", "),
    })
}

/// Moves partition `p`, its TOAST table and its indexes to `tablespace`,
/// in `tx` (which the caller commits). Whether `p` may move is the
/// caller's decision.
pub async fn move_to(
    tx: &Transaction<'_>,
    p: &Partition,
    tablespace: &str,
) -> Result<(), MoveError> {
    check_tablespace(tx, tablespace).await?;
    tx.batch_execute(&format!("SET LOCAL lock_timeout = '{LOCK_TIMEOUT}'"))
        .await?;
    let (table, space) = (ident(&p.name), ident(tablespace));
    let busy = |e: tokio_postgres::Error| match e.code() {
        Some(&tokio_postgres::error::SqlState::LOCK_NOT_AVAILABLE) => MoveError::Busy {
            name: p.name.clone(),
        },
        _ => MoveError::Db(e),
    };
    tx.batch_execute(&format!("ALTER TABLE {table} SET TABLESPACE {space}"))
        .await
        .map_err(busy)?;
    let sql = "SELECT indexrelid::regclass::text FROM pg_index WHERE indrelid = $1::text::regclass";
    for row in tx.query(sql, &[&table]).await? {
        let index: String = row.get(0);
        tx.batch_execute(&format!("ALTER INDEX {index} SET TABLESPACE {space}"))
            .await
            .map_err(busy)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_partition_is_closed_once_its_last_position_was_given() {
        let range = Some((100, 200));
        assert_eq!(use_of(range, 100), Use::Ahead);
        assert_eq!(use_of(range, 101), Use::Written);
        assert_eq!(use_of(range, 199), Use::Written);
        assert_eq!(use_of(range, 200), Use::Closed);
        assert_eq!(use_of(None, 5), Use::Default);
        assert_eq!(ident("a\"b"), "\"a\"\"b\"");
    }
}
