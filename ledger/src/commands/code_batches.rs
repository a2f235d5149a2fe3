//! Batches of redemption codes (docs/design.md §13): creating one takes a contiguous
//! range of its key's serials (nothing is stored per code: each code is
//! computed from its serial, see `codes`), stopping one refuses its codes.

use chrono::{DateTime, Utc};
use deadpool_postgres::Transaction;
use uuid::Uuid;

use super::CommandError;
use crate::codes::MAX_SERIALS;
use crate::codes::passphrase::Passphrase;
use crate::db::Named;
use crate::domain::code_batch::CodeBatchStatus;
use crate::domain::events::{CodeBatchCreated, CodeBatchStopped, Metadata};
use crate::domain::ids::{PackageSn, TemplateSn};
use crate::domain::ledger_event::LedgerEvent;
use crate::domain::package::PackageStatus;
use crate::domain::stream::StreamKind;
use crate::domain::template_status::TemplateStatus;
use crate::store::{self, NewEvent};
use crate::write_model::code_batch_row::{Batch, OWN_COLUMNS, batch_from, read};

/// What a batch's codes give.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Target {
    Template(TemplateSn),
    Package(PackageSn),
}

/// What a new batch is asked to be.
pub struct NewBatch {
    pub target: Target,
    pub count: i64,
    pub uses_per_code: i32,
    pub per_user: i32,
    pub expires_at: Option<DateTime<Utc>>,
    /// A passphrase batch's one code (then `count` is 1).
    pub passphrase: Option<Passphrase>,
}

pub async fn create(
    tx: &Transaction<'_>,
    key_id: &str,
    new: &NewBatch,
    metadata: &Metadata,
    now: DateTime<Utc>,
) -> Result<Batch, CommandError> {
    check_target(tx, &new.target).await?;
    debug_assert!(
        new.passphrase.is_none() || new.count == 1,
        "a passphrase is one code"
    );
    if let Some(p) = &new.passphrase {
        release_expired(tx, p, metadata, now).await?;
    }
    let (template_sn, package_sn) = match &new.target {
        Target::Template(sn) => (Some(sn), None),
        Target::Package(sn) => (None, Some(sn)),
    };
    let first_serial = take_serials(tx, key_id, new.count).await?;
    let id = Uuid::now_v7();
    let (shown, key) = match &new.passphrase {
        Some(p) => (Some(&p.shown), Some(&p.key)),
        None => (None, None),
    };
    // The partial unique index holds one active batch per passphrase; a
    // concurrent creation of the same one waits here and then inserts
    // nothing. The status is written into the text, as the index says it.
    let insert = format!(
        "INSERT INTO code_batches (id, template_sn, package_sn, key_id, first_serial, count,
                                   uses_per_code, per_user, status, expires_at, version, created_at,
                                   passphrase, passphrase_key)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $11, $9, 1, $10, $12, $13)
         ON CONFLICT (passphrase_key) WHERE status = '{active}' AND passphrase_key IS NOT NULL
         DO NOTHING",
        active = CodeBatchStatus::Active.as_str()
    );
    let inserted = tx
        .execute(
            &insert,
            &[
                &id,
                &template_sn,
                &package_sn,
                &key_id,
                &first_serial,
                &new.count,
                &new.uses_per_code,
                &new.per_user,
                &new.expires_at,
                &now,
                &CodeBatchStatus::Active.as_str(),
                &shown,
                &key,
            ],
        )
        .await?;
    if inserted == 0 {
        let shown = shown.map_or("", String::as_str);
        return Err(CommandError::Conflict(
            "code_taken",
            format!("an active batch already holds the passphrase {shown:?}: stop it first"),
        ));
    }
    let event = LedgerEvent::CodeBatchCreated(CodeBatchCreated {
        batch_id: id,
        template_sn: template_sn.cloned(),
        package_sn: package_sn.cloned(),
        key_id: key_id.to_owned(),
        first_serial,
        count: new.count,
        uses_per_code: new.uses_per_code,
        per_user: new.per_user,
        expires_at: new.expires_at,
        passphrase: shown.cloned(),
    });
    let stream = StreamKind::CodeBatch.id(id);
    store::append(tx, &stream, 0, &[NewEvent::of(&event, metadata, now)?]).await?;
    read(&**tx, id)
        .await?
        .ok_or_else(|| CommandError::not_found("code batch", id))
}

/// Stops the active batch holding `passphrase` if it has expired, so that
/// a new campaign may reuse a passphrase whose old batch ran out of time
/// (an unexpired holder is left for the insert to refuse).
async fn release_expired(
    tx: &Transaction<'_>,
    passphrase: &Passphrase,
    metadata: &Metadata,
    now: DateTime<Utc>,
) -> Result<(), CommandError> {
    let sql = "SELECT id FROM code_batches
                WHERE passphrase_key = $1 AND status = $2 AND expires_at <= $3 FOR UPDATE";
    let active = CodeBatchStatus::Active.as_str();
    if let Some(row) = tx.query_opt(sql, &[&passphrase.key, &active, &now]).await? {
        stop(tx, row.get(0), metadata, now).await?;
    }
    Ok(())
}

/// The template (not void) or the package (not stopped) exists.
async fn check_target(tx: &Transaction<'_>, target: &Target) -> Result<(), CommandError> {
    let (sql, sn, what) = match target {
        Target::Template(sn) => (
            "SELECT status FROM templates WHERE sn = $1",
            sn.as_str(),
            "template",
        ),
        Target::Package(sn) => (
            "SELECT status FROM packages WHERE sn = $1",
            sn.as_str(),
            "package",
        ),
    };
    let row = tx
        .query_opt(sql, &[&sn])
        .await?
        .ok_or_else(|| CommandError::not_found(what, sn))?;
    let (dead, status) = match target {
        Target::Template(_) => {
            let Named::<TemplateStatus>(status) = row.try_get(0)?;
            (status == TemplateStatus::Void, status.as_str())
        }
        Target::Package(_) => {
            let Named::<PackageStatus>(status) = row.try_get(0)?;
            (status == PackageStatus::Stopped, status.as_str())
        }
    };
    if dead {
        let why = format!("the {what} is {status}");
        return Err(CommandError::Unprocessable("target_status", why));
    }
    Ok(())
}

/// The first of `count` serials of `key_id` nobody has: one guarded update
/// of the key's counter (concurrent batches queue on its row).
async fn take_serials(tx: &Transaction<'_>, key_id: &str, count: i64) -> Result<i64, CommandError> {
    let max = i64::try_from(MAX_SERIALS).expect("2^31 fits i64");
    let sql = "INSERT INTO code_serials AS s (key_id, next_serial) VALUES ($1, $2)
               ON CONFLICT (key_id) DO UPDATE SET next_serial = s.next_serial + $2
                WHERE s.next_serial + $2 <= $3
               RETURNING next_serial - $2";
    let row = tx.query_opt(sql, &[&key_id, &count, &max]).await?;
    let first: i64 = row
        .ok_or_else(|| {
            let why =
                format!("key {key_id} has fewer than {count} codes left: rotate LEDGER_SECRET_KEY");
            CommandError::Unprocessable("codes_exhausted", why)
        })?
        .get(0);
    debug_assert!(first >= 0 && first + count <= max);
    Ok(first)
}

/// Stops a batch: its codes are refused from now on (422).
pub async fn stop(
    tx: &Transaction<'_>,
    id: Uuid,
    metadata: &Metadata,
    now: DateTime<Utc>,
) -> Result<Batch, CommandError> {
    let sql = "UPDATE code_batches SET status = $2, version = version + 1
                WHERE id = $1 AND status = $3 RETURNING version";
    let (stopped, active) = (
        CodeBatchStatus::Stopped.as_str(),
        CodeBatchStatus::Active.as_str(),
    );
    let Some(row) = tx.query_opt(sql, &[&id, &stopped, &active]).await? else {
        let batch = read(&**tx, id)
            .await?
            .ok_or_else(|| CommandError::not_found("code batch", id))?;
        return Ok(batch); // stopped before: nothing changes
    };
    let version: i32 = row.get(0);
    let event = LedgerEvent::CodeBatchStopped(CodeBatchStopped { batch_id: id });
    let stream = StreamKind::CodeBatch.id(id);
    let expected = version - 1;
    store::append(
        tx,
        &stream,
        expected,
        &[NewEvent::of(&event, metadata, now)?],
    )
    .await?;
    read(&**tx, id)
        .await?
        .ok_or_else(|| CommandError::not_found("code batch", id))
}

/// `batch` with its status and expiry as they are now, read inside a
/// redemption's transaction: the request found its batch in a cache
/// ([`super::batch_cache`]), and a stop committed since then refuses the code.
pub async fn current(tx: &Transaction<'_>, batch: &Batch) -> Result<Batch, CommandError> {
    let sql = "SELECT status, expires_at FROM code_batches WHERE id = $1";
    let row = tx
        .query_opt(&tx.prepare_cached(sql).await?, &[&batch.id])
        .await?
        .ok_or_else(|| CommandError::not_found("code batch", batch.id))?;
    Ok(Batch {
        status: row.try_get::<_, Named<CodeBatchStatus>>(0)?.0,
        expires_at: row.get(1),
        ..batch.clone()
    })
}

/// The batch holding the passphrase whose key is `key`: the active one,
/// else the latest (stopped: its redemption answers 422, not 404).
pub async fn by_passphrase(
    client: &deadpool_postgres::Client,
    key: &str,
) -> Result<Option<Batch>, tokio_postgres::Error> {
    let sql = format!(
        "SELECT {OWN_COLUMNS} FROM code_batches WHERE passphrase_key = $1
          ORDER BY status = $2 DESC, created_at DESC LIMIT 1"
    );
    let statement = client.prepare_cached(&sql).await?;
    let active = CodeBatchStatus::Active.as_str();
    let row = client.query_opt(&statement, &[&key, &active]).await?;
    row.as_ref().map(batch_from).transpose()
}

/// The batch of `key_id` whose range holds `serial`, if any (its
/// redemptions not counted).
pub async fn holding(
    client: &deadpool_postgres::Client,
    key_id: &str,
    serial: i64,
) -> Result<Option<Batch>, tokio_postgres::Error> {
    let sql = format!(
        "SELECT {OWN_COLUMNS} FROM code_batches
          WHERE key_id = $1 AND first_serial <= $2 ORDER BY first_serial DESC LIMIT 1"
    );
    let statement = client.prepare_cached(&sql).await?;
    let row = client.query_opt(&statement, &[&key_id, &serial]).await?;
    let batch = row.as_ref().map(batch_from).transpose()?;
    Ok(batch.filter(|b| b.holds(serial)))
}
