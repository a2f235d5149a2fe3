//! The records of event partitions exported and retired (V31:
//! `partition_exports`, `partition_retirements`, both append-only). A row
//! of `partition_exports` is written only after its file verified, so it
//! is a verified export (docs/design.md §16, "Retiring an event partition").

use chrono::{DateTime, Utc};
use tokio_postgres::GenericClient;

use super::chain::{Hash, from_bytes};

/// The most rows a listing reads: one export per partition and a handful
/// of exports again, at a partition per day and a half, is a few hundred
/// a year.
pub const MAX_LISTED: i64 = 10_000;

/// A verified export of one partition.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ExportRecord {
    pub id: i64,
    pub partition_number: i64,
    pub partition_name: String,
    pub range: (i64, i64),
    pub events: i64,
    pub first_seq: i64,
    pub last_seq: i64,
    /// The first seal in the file of a later partition's event (None: none
    /// came before the checkpoint); the partition's events after it are
    /// kept as bridges when it leaves.
    pub first_later_seq: Option<i64>,
    pub checkpoint_id: i64,
    pub checkpoint_head: Hash,
    pub file_sha256: Hash,
    pub file_bytes: i64,
    pub path: String,
    pub exported_at: DateTime<Utc>,
    pub verified_at: DateTime<Utc>,
}

const EXPORT_COLUMNS: &str = "id, partition_number, partition_name, range_lower, range_upper,
    events, first_seq, last_seq, checkpoint_id, checkpoint_head, file_sha256, file_bytes, path,
    exported_at, verified_at, first_later_seq";

fn export_from(r: &tokio_postgres::Row) -> ExportRecord {
    ExportRecord {
        id: r.get(0),
        partition_number: r.get(1),
        partition_name: r.get(2),
        range: (r.get(3), r.get(4)),
        events: r.get(5),
        first_seq: r.get(6),
        last_seq: r.get(7),
        checkpoint_id: r.get(8),
        checkpoint_head: from_bytes(r.get(9)),
        file_sha256: from_bytes(r.get(10)),
        file_bytes: r.get(11),
        path: r.get(12),
        exported_at: r.get(13),
        verified_at: r.get(14),
        first_later_seq: r.get(15),
    }
}

/// Records a verified export (its `id` is ignored); the id given.
pub async fn record_export(
    client: &impl GenericClient,
    e: &ExportRecord,
) -> Result<i64, tokio_postgres::Error> {
    let sql = "INSERT INTO partition_exports (partition_number, partition_name, range_lower,
                   range_upper, events, first_seq, last_seq, checkpoint_id, checkpoint_head,
                   file_sha256, file_bytes, path, exported_at, verified_at, first_later_seq)
               VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15)
               RETURNING id";
    let row = client
        .query_one(
            sql,
            &[
                &e.partition_number,
                &e.partition_name,
                &e.range.0,
                &e.range.1,
                &e.events,
                &e.first_seq,
                &e.last_seq,
                &e.checkpoint_id,
                &e.checkpoint_head.to_vec(),
                &e.file_sha256.to_vec(),
                &e.file_bytes,
                &e.path,
                &e.exported_at,
                &e.verified_at,
                &e.first_later_seq,
            ],
        )
        .await?;
    Ok(row.get(0))
}

/// The newest verified export of exactly the partition `name` over `range`.
pub async fn export_of(
    client: &impl GenericClient,
    name: &str,
    range: (i64, i64),
) -> Result<Option<ExportRecord>, tokio_postgres::Error> {
    let sql = format!(
        "SELECT {EXPORT_COLUMNS} FROM partition_exports
          WHERE partition_name = $1 AND range_lower = $2 AND range_upper = $3
          ORDER BY id DESC LIMIT 1"
    );
    let row = client.query_opt(&sql, &[&name, &range.0, &range.1]).await?;
    Ok(row.as_ref().map(export_from))
}

/// Every verified export, oldest first (at most [`MAX_LISTED`]).
pub async fn exports(
    client: &impl GenericClient,
) -> Result<Vec<ExportRecord>, tokio_postgres::Error> {
    let sql =
        format!("SELECT {EXPORT_COLUMNS} FROM partition_exports ORDER BY id LIMIT {MAX_LISTED}");
    let rows = client.query(&sql, &[]).await?;
    Ok(rows.iter().map(export_from).collect())
}

/// How a partition left `events`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Action {
    /// It stands as a table of its own, outside `events`.
    Detached,
    /// It is gone; its export is what is left of it.
    Dropped,
}

impl Action {
    pub fn as_str(self) -> &'static str {
        match self {
            Action::Detached => "detached",
            Action::Dropped => "dropped",
        }
    }

    fn parse(text: &str) -> Action {
        // The table's CHECK allows these two words only.
        if text == "dropped" {
            Action::Dropped
        } else {
            Action::Detached
        }
    }
}

/// A partition that left `events`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Retirement {
    pub id: i64,
    pub partition_number: i64,
    pub partition_name: String,
    pub range: (i64, i64),
    pub action: Action,
    pub export_id: i64,
    pub events: i64,
    pub retired_at: DateTime<Utc>,
}

/// Records a retirement (its `id` and `retired_at` are the database's).
pub async fn record_retirement(
    client: &impl GenericClient,
    r: &Retirement,
) -> Result<i64, tokio_postgres::Error> {
    let sql = "INSERT INTO partition_retirements (partition_number, partition_name, range_lower,
                   range_upper, action, export_id, events)
               VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING id";
    let row = client
        .query_one(
            sql,
            &[
                &r.partition_number,
                &r.partition_name,
                &r.range.0,
                &r.range.1,
                &r.action.as_str(),
                &r.export_id,
                &r.events,
            ],
        )
        .await?;
    Ok(row.get(0))
}

/// Every retirement, oldest first (at most [`MAX_LISTED`]).
pub async fn retirements(
    client: &impl GenericClient,
) -> Result<Vec<Retirement>, tokio_postgres::Error> {
    let sql = format!(
        "SELECT id, partition_number, partition_name, range_lower, range_upper, action,
                export_id, events, retired_at
           FROM partition_retirements ORDER BY id LIMIT {MAX_LISTED}"
    );
    let rows = client.query(&sql, &[]).await?;
    Ok(rows
        .iter()
        .map(|r| Retirement {
            id: r.get(0),
            partition_number: r.get(1),
            partition_name: r.get(2),
            range: (r.get(3), r.get(4)),
            action: Action::parse(r.get(5)),
            export_id: r.get(6),
            events: r.get(7),
            retired_at: r.get(8),
        })
        .collect())
}
