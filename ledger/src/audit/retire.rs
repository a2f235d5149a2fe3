//! `ledger archive events --partition N --detach|--drop` (docs/design.md
//! §16, "Retiring an event partition"): a partition leaves `events` only
//! when a verified export of exactly its range is recorded and it still
//! holds exactly the events exported, never while it is written, never
//! the default one, and oldest first. Oldest first keeps what stays in
//! `events` one unbroken stretch of the chain after the newest retired
//! partition's closing checkpoint: `ledger audit verify --from-checkpoint`
//! that checkpoint covers it all, and the export files cover the rest.
//!
//! A detached partition stays in the database as a table of its own,
//! frozen (a trigger refuses INSERT, UPDATE and DELETE, as `events` does;
//! the TRUNCATE one stays from its time as a partition). One transaction:
//! the count under a SHARE lock on the partition (appends never touch a
//! closed partition, so they do not wait), the DETACH (a brief ACCESS
//! EXCLUSIVE lock on `events`, asked for with a short `lock_timeout`, so
//! that it never queues appends behind a long reader), the record.

use tokio_postgres::{Client, GenericClient, Transaction};

use super::partition_records::{
    Action, ExportRecord, Retirement, export_of, exports, record_retirement, retirements,
};
use crate::store::partition_moves::{LOCK_TIMEOUT, Use, ident, next_position, use_of};
use crate::store::partitions::{self, Partition};

/// Why a partition may not leave.
#[derive(Debug, thiserror::Error)]
pub enum RetireRefusal {
    #[error("no partition {number} in events (partitions: {known})")]
    NoSuchPartition { number: i64, known: String },
    #[error(
        "partition {number} [{}, {}) is {}: only a closed partition leaves events \
         (the next position is {next})", range.0, range.1, used.describe()
    )]
    NotClosed {
        number: i64,
        range: (i64, i64),
        used: Use,
        next: i64,
    },
    #[error(
        "partition {older} is older than {number} and still holds events: partitions leave \
         oldest first, so that `ledger audit verify --from-checkpoint` covers what stays"
    )]
    OlderHoldsEvents { number: i64, older: i64 },
    #[error(
        "no verified export of partition {number} [{}, {}) ({others}): run `ledger archive \
         export-events --partition {number} --output FILE` first", range.0, range.1
    )]
    NoVerifiedExport {
        number: i64,
        range: (i64, i64),
        others: String,
    },
    #[error(
        "partition {number} holds {now} events, its export #{export} {exported}: \
         export it again"
    )]
    CountChanged {
        number: i64,
        export: i64,
        exported: i64,
        now: i64,
    },
    #[error("partition {number} ({name}) was already {}", action.as_str())]
    AlreadyRetired {
        number: i64,
        name: String,
        action: Action,
    },
}

#[derive(Debug, thiserror::Error)]
pub enum RetireError {
    #[error(transparent)]
    Refused(#[from] RetireRefusal),
    #[error(
        "{name} or events is in use: a lock was not granted within {LOCK_TIMEOUT} (a long \
         reader: replay, an export, a verify); nothing changed, run it again"
    )]
    Busy { name: String },
    #[error("retiring the partition: {0}")]
    Db(#[from] tokio_postgres::Error),
}

/// Detach (keep the table outside `events`) or drop.
pub type How = Action;

/// What left, and the export that stands for it.
#[derive(Clone, Debug)]
pub struct Retired {
    pub retirement: Retirement,
    pub export: ExportRecord,
}

/// The table to retire: a partition of `events`, or (to drop) one
/// detached before.
struct Target {
    number: i64,
    name: String,
    range: (i64, i64),
    attached: bool,
}

/// Retires partition `number` as `how` says, or says why not.
pub async fn retire(client: &mut Client, number: i64, how: How) -> Result<Retired, RetireError> {
    let tx = client.transaction().await?;
    tx.batch_execute(&format!("SET LOCAL lock_timeout = '{LOCK_TIMEOUT}'"))
        .await?;
    let target = target(&tx, number, how).await?;
    if target.attached {
        may_leave(&tx, &target).await?;
    }
    let Some(export) = export_of(&tx, &target.name, target.range).await? else {
        return Err(no_export(&tx, &target).await?.into());
    };
    let events = count_as_exported(&tx, &target, &export).await?;
    keep_bridges(&tx, &target, &export).await?;
    leave(&tx, &target, how).await?;
    let mut retirement = Retirement {
        id: 0,
        partition_number: number,
        partition_name: target.name.clone(),
        range: target.range,
        action: how,
        export_id: export.id,
        events,
        retired_at: crate::store::now(),
    };
    retirement.id = record_retirement(&tx, &retirement).await?;
    tx.commit().await?;
    Ok(Retired { retirement, export })
}

/// The partition's rows, counted under a SHARE lock held to the commit (no
/// row can join them meanwhile), must be the export's.
async fn count_as_exported(
    tx: &Transaction<'_>,
    t: &Target,
    export: &ExportRecord,
) -> Result<i64, RetireError> {
    let table = ident(&t.name);
    tx.batch_execute(&format!("LOCK TABLE {table} IN SHARE MODE"))
        .await
        .map_err(|e| busy(e, &t.name))?;
    let now: i64 = tx
        .query_one(&format!("SELECT count(*) FROM {table}"), &[])
        .await?
        .get(0);
    if now != export.events {
        let (number, export, exported) = (t.number, export.id, export.events);
        return Err(RetireRefusal::CountChanged {
            number,
            export,
            exported,
            now,
        }
        .into());
    }
    Ok(now)
}

/// The columns of `events` that `event_bridges` keeps, in both tables' names.
const BRIDGE_COLUMNS: &str = "position, event_id, stream_id, stream_version, event_type,
    schema_version, payload, metadata, occurred_at, recorded_at, tx_id";

/// Keeps the partition's events that later partitions' exports need as
/// bridges: those sealed after the export's first event of a later
/// partition (commit order interleaves them; usually a handful).
async fn keep_bridges(
    tx: &Transaction<'_>,
    t: &Target,
    export: &ExportRecord,
) -> Result<u64, tokio_postgres::Error> {
    let Some(first_later) = export.first_later_seq else {
        return Ok(0);
    };
    let columns = BRIDGE_COLUMNS.replace("\n", " ");
    let taken: Vec<String> = columns
        .split(',')
        .map(|c| format!("e.{}", c.trim()))
        .collect();
    let sql = format!(
        "INSERT INTO event_bridges ({columns})
         SELECT {} FROM event_seals s JOIN {} e ON e.position = s.position
          WHERE s.seq > $1 AND s.seq <= $2
         ON CONFLICT DO NOTHING",
        taken.join(", "),
        ident(&t.name)
    );
    tx.execute(&sql, &[&first_later, &export.last_seq]).await
}

/// Detaches (and freezes) or drops the partition.
async fn leave(tx: &Transaction<'_>, t: &Target, how: How) -> Result<(), RetireError> {
    let table = ident(&t.name);
    if t.attached {
        tx.batch_execute(&format!("ALTER TABLE events DETACH PARTITION {table}"))
            .await
            .map_err(|e| busy(e, &t.name))?;
    }
    let sql = match how {
        Action::Detached => format!(
            "CREATE TRIGGER events_retired_frozen BEFORE INSERT OR UPDATE OR DELETE ON {table}
             FOR EACH ROW EXECUTE FUNCTION events_append_only()"
        ),
        Action::Dropped => format!("DROP TABLE {table}"),
    };
    tx.batch_execute(&sql).await.map_err(|e| busy(e, &t.name))
}

fn busy(e: tokio_postgres::Error, name: &str) -> RetireError {
    match e.code() {
        Some(&tokio_postgres::error::SqlState::LOCK_NOT_AVAILABLE) => RetireError::Busy {
            name: name.to_owned(),
        },
        _ => RetireError::Db(e),
    }
}

/// Partition `number` as it stands: attached, or detached before (which
/// only `--drop` takes further).
async fn target(tx: &Transaction<'_>, number: i64, how: How) -> Result<Target, RetireError> {
    let all = partitions::list(tx).await?;
    if let Some(p) = all.iter().find(|p| p.number == Some(number)) {
        let range = p.range.expect("a numbered partition has a range");
        let name = p.name.clone();
        return Ok(Target {
            number,
            name,
            range,
            attached: true,
        });
    }
    let retired = retirements(tx).await?;
    if let Some(r) = retired.iter().rev().find(|r| r.partition_number == number) {
        if r.action == Action::Detached && how == Action::Dropped {
            let (name, range) = (r.partition_name.clone(), r.range);
            return Ok(Target {
                number,
                name,
                range,
                attached: false,
            });
        }
        let (name, action) = (r.partition_name.clone(), r.action);
        return Err(RetireRefusal::AlreadyRetired {
            number,
            name,
            action,
        }
        .into());
    }
    let known: Vec<String> = all
        .iter()
        .filter_map(|p| p.number)
        .map(|n| n.to_string())
        .collect();
    Err(RetireRefusal::NoSuchPartition {
        number,
        known: known.join(", "),
    }
    .into())
}

/// An attached partition leaves only when closed and the oldest holding events.
async fn may_leave(tx: &Transaction<'_>, t: &Target) -> Result<(), RetireError> {
    let next = next_position(tx).await?;
    let used = use_of(Some(t.range), next);
    if used != Use::Closed {
        let (number, range) = (t.number, t.range);
        return Err(RetireRefusal::NotClosed {
            number,
            range,
            used,
            next,
        }
        .into());
    }
    for p in partitions::list(tx).await? {
        let Some((number, (_, upper))) = p.number.zip(p.range) else {
            continue;
        };
        if upper > t.range.0 {
            continue;
        }
        let sql = format!("SELECT EXISTS (SELECT 1 FROM {})", ident(&p.name));
        if tx.query_one(&sql, &[]).await?.get::<_, bool>(0) {
            return Err(RetireRefusal::OlderHoldsEvents {
                number: t.number,
                older: number,
            }
            .into());
        }
    }
    Ok(())
}

/// The refusal for a partition without an export of its range, naming
/// the ranges that were exported.
async fn no_export(
    tx: &Transaction<'_>,
    t: &Target,
) -> Result<RetireRefusal, tokio_postgres::Error> {
    let others: Vec<String> = exports(tx)
        .await?
        .iter()
        .map(|e| {
            format!(
                "#{} of partition {} [{}, {})",
                e.id, e.partition_number, e.range.0, e.range.1
            )
        })
        .collect();
    let others = if others.is_empty() {
        "no partition was exported".to_owned()
    } else {
        format!("exports: {}", others.join(", "))
    };
    Ok(RetireRefusal::NoVerifiedExport {
        number: t.number,
        range: t.range,
        others,
    })
}

/// One partition of `events` as `ledger archive events` lists it.
#[derive(Clone, Debug)]
pub struct Listed {
    pub partition: Partition,
    pub used: Use,
    /// Its newest verified export of exactly its range.
    pub export: Option<ExportRecord>,
}

/// Every partition of `events` with its use and export, then every retired one.
pub async fn overview(
    client: &impl GenericClient,
) -> Result<(Vec<Listed>, Vec<Retirement>), tokio_postgres::Error> {
    let next = next_position(client).await?;
    let all = exports(client).await?;
    let listed = partitions::list(client)
        .await?
        .into_iter()
        .map(|p| {
            let export = all
                .iter()
                .rev()
                .find(|e| e.partition_name == p.name && Some(e.range) == p.range)
                .cloned();
            Listed {
                used: use_of(p.range, next),
                partition: p,
                export,
            }
        })
        .collect();
    Ok((listed, retirements(client).await?))
}

/// The checkpoint `ledger audit verify --from-checkpoint` starts after
/// once partitions left: the closing one of the newest retired partition's
/// export (None: none left).
pub async fn verify_from(
    client: &impl GenericClient,
) -> Result<Option<(i64, Retirement)>, tokio_postgres::Error> {
    let sql = "SELECT x.checkpoint_id, r.id FROM partition_retirements r
                 JOIN partition_exports x ON x.id = r.export_id
                ORDER BY r.range_upper DESC LIMIT 1";
    let Some(row) = client.query_opt(sql, &[]).await? else {
        return Ok(None);
    };
    let (checkpoint, id): (i64, i64) = (row.get(0), row.get(1));
    let retired = retirements(client).await?;
    Ok(retired
        .into_iter()
        .find(|r| r.id == id)
        .map(|r| (checkpoint, r)))
}
