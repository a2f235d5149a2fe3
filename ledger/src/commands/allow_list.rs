//! A template's allow-list changed by an uploaded file (docs/design.md §15).
//!
//! The file is read as it streams, like a bulk-issuance file
//! (`domain/user_file.rs`: `text/plain` or `text/csv`, gzip, line numbers),
//! and applied part by part: every [`PART_IDS`] valid ids, one transaction
//! adds them to (or removes them from) `template_allow_list`, appends the
//! ids whose membership changed as one `TemplateAllowListAdded` (or
//! `...Removed`) event on the stream `allowlist-<sn>`, and records the
//! file's progress. Adding an id that is on the list, or removing one that
//! is not, changes nothing, so a file sent again (a broken-off upload
//! resumed under its key, or simply twice) ends with the same list.
//! Memory holds a frame and a part, never the file.

use std::time::Instant;

use chrono::{DateTime, Utc};
use deadpool_postgres::{Pool, Transaction};
use sha2::{Digest, Sha256};
use tokio_postgres::GenericClient;
use uuid::Uuid;

use super::CommandError;
use super::body_stream::{Awaited, Frames, Inflater, PROGRESS_EVERY, Waiting};
use super::upload_error::UploadError;
use crate::db::Named;
use crate::domain::eligibility::{
    AllowListFileStatus as FileStatus, AllowListMode, MAX_ALLOW_LIST,
};
use crate::domain::events::{AllowListChanged, Metadata};
use crate::domain::ids::{TemplateSn, UserId};
use crate::domain::ledger_event::LedgerEvent;
use crate::domain::stream::StreamKind;
use crate::domain::template_status::TemplateStatus;
use crate::domain::user_file::{FileError, FileFormat, Line, LineKind, UserFile};
use crate::store::{self, NewEvent};

/// Ids applied (and carried by one event) at a time: ~200 KiB of event,
/// a transaction of tens of milliseconds.
pub const PART_IDS: usize = 10_000;
/// Invalid lines a file keeps with their number and reason; the count is
/// exact beyond (a file with more is most likely the wrong file).
pub const MAX_ERRORS: i64 = 1_000;

/// Where a file goes and how it is read.
pub struct Target {
    pub file_id: Uuid,
    pub template_sn: TemplateSn,
    pub mode: AllowListMode,
    pub format: FileFormat,
    pub max_bytes: u64,
    pub idle: std::time::Duration,
}

/// What an upload finds.
#[derive(Debug)]
pub enum Opened {
    /// A new file, or one whose upload under the same key did not end:
    /// read it (again) and apply it.
    Apply(Uuid),
    /// The key names a file whose upload ended: the body must be the same.
    Complete { id: Uuid, sha256: Vec<u8> },
}

/// Who uploads what, under which key.
pub struct Opening<'a> {
    pub sn: &'a TemplateSn,
    pub mode: AllowListMode,
    pub key: Option<&'a str>,
    pub operator: &'a str,
}

/// Opens a file record for `sn` (404 unknown, 409 void), or finds the
/// one its key names (422 when that one was for the other mode).
pub async fn open(
    client: &impl GenericClient,
    o: &Opening<'_>,
    now: DateTime<Utc>,
) -> Result<Opened, CommandError> {
    let sql = "SELECT status FROM templates WHERE sn = $1";
    let row = client.query_opt(sql, &[o.sn]).await?;
    let row = row.ok_or_else(|| CommandError::not_found("template", o.sn))?;
    if row.try_get::<_, Named<TemplateStatus>>(0)?.0 == TemplateStatus::Void {
        let why = "the template is void: its allow-list no longer changes".to_owned();
        return Err(CommandError::Conflict("template_status", why));
    }
    let insert = "INSERT INTO allow_list_files (id, template_sn, mode, status, operator,
                                                idempotency_key, created_at)
                  VALUES ($1, $2, $3, $7, $4, $5, $6)
                  ON CONFLICT (template_sn, idempotency_key) DO NOTHING";
    let id = Uuid::now_v7();
    let uploading = FileStatus::Uploading.as_str();
    let params: [&(dyn tokio_postgres::types::ToSql + Sync); 7] = [
        &id,
        o.sn,
        &o.mode.as_str(),
        &o.operator,
        &o.key,
        &now,
        &uploading,
    ];
    if client.execute(insert, &params).await? == 1 {
        return Ok(Opened::Apply(id));
    }
    let sql = "SELECT id, mode, status, sha256 FROM allow_list_files
                WHERE template_sn = $1 AND idempotency_key = $2";
    let row = client.query_one(sql, &[o.sn, &o.key]).await?;
    if row.get::<_, &str>(1) != o.mode.as_str() {
        let why = "this key names an upload of the other mode".to_owned();
        return Err(CommandError::Unprocessable("different_file", why));
    }
    let id = row.get(0);
    let Named(status) = row.try_get::<_, Named<FileStatus>>(2)?;
    match (status, row.get::<_, Option<Vec<u8>>>(3)) {
        (FileStatus::Done, Some(sha256)) => Ok(Opened::Complete { id, sha256 }),
        _ => {
            restart(client, id).await?;
            Ok(Opened::Apply(id))
        }
    }
}

/// A file read again from its first line: its counts and errors start over
/// (what it applied stays: applying it again changes nothing).
async fn restart(client: &impl GenericClient, id: Uuid) -> Result<(), tokio_postgres::Error> {
    client
        .execute("DELETE FROM allow_list_errors WHERE file_id = $1", &[&id])
        .await?;
    let sql = "UPDATE allow_list_files SET status = $2, lines_read = 0, blank = 0,
                      invalid = 0, valid = 0, changed = 0, error = NULL WHERE id = $1";
    let uploading = FileStatus::Uploading.as_str();
    client.execute(sql, &[&id, &uploading]).await?;
    Ok(())
}

/// Counts of a file so far.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Counts {
    pub lines_read: i64,
    pub blank: i64,
    pub invalid: i64,
    pub valid: i64,
    pub changed: i64,
}

/// The file's lines, sorted as they are parsed, waiting to be applied.
struct Gathered {
    parser: UserFile,
    lines: Vec<Line>,
    counts: Counts,
    sha: Sha256,
    part: Vec<UserId>,
    /// Invalid lines to record: (line, reason).
    errors: Vec<(i64, String)>,
    saved: Instant,
}

impl Gathered {
    fn feed(&mut self, bytes: &[u8]) -> Result<(), UploadError> {
        self.sha.update(bytes);
        self.parser.feed(bytes, &mut self.lines)?;
        self.sort();
        Ok(())
    }

    fn sort(&mut self) {
        self.counts.lines_read = i64::try_from(self.parser.lines_read()).unwrap_or(i64::MAX);
        for line in self.lines.drain(..) {
            match line.kind {
                LineKind::Blank => self.counts.blank += 1,
                LineKind::Invalid(reason, _) => {
                    // Only the reason: a line's text may be a user id.
                    if self.counts.invalid < MAX_ERRORS {
                        let number = i64::try_from(line.number).unwrap_or(i64::MAX);
                        self.errors.push((number, reason.to_string()));
                    }
                    self.counts.invalid += 1;
                }
                LineKind::User(user) => {
                    self.counts.valid += 1;
                    self.part.push(user);
                }
            }
        }
    }
}

/// Reads the file and applies it part by part; the file ends `done`, or
/// `incomplete` with the error (what was applied stays).
pub async fn ingest(
    pool: &Pool,
    target: &Target,
    frames: impl Frames,
    gzip: bool,
    metadata: &Metadata,
) -> Result<Counts, UploadError> {
    let result = read_file(pool, target, frames, gzip, metadata).await;
    let client = pool.get().await?;
    match result {
        Ok((counts, sha256)) => {
            finish(&**client, target.file_id, &counts, Some(&sha256), None).await?;
            // A list of a million ids is otherwise planned as the few it held
            // at the last ANALYZE: claims and issuance scan it whole.
            crate::db::analyze_if_stale(&client, "template_allow_list").await?;
            Ok(counts)
        }
        Err(UploadError::File(FileError::Empty)) if discard_empty(&**client, target).await? => {
            Err(FileError::Empty.into())
        }
        Err(e) => {
            let (counts, error) = (Counts::default(), e.to_string());
            finish(&**client, target.file_id, &counts, None, Some(&error)).await?;
            Err(e)
        }
    }
}

/// Deletes a file record with no line of data (a file that could change
/// nothing is not kept); true if deleted.
async fn discard_empty(
    client: &impl GenericClient,
    target: &Target,
) -> Result<bool, tokio_postgres::Error> {
    let sql = "DELETE FROM allow_list_files WHERE id = $1 AND valid = 0 AND invalid = 0";
    Ok(client.execute(sql, &[&target.file_id]).await? == 1)
}

async fn read_file(
    pool: &Pool,
    target: &Target,
    mut frames: impl Frames,
    gzip: bool,
    metadata: &Metadata,
) -> Result<(Counts, Vec<u8>), UploadError> {
    let mut inflater = Inflater::new(gzip, target.max_bytes);
    let mut g = Gathered {
        parser: UserFile::new(target.format),
        lines: Vec::new(),
        counts: Counts::default(),
        sha: Sha256::new(),
        part: Vec::with_capacity(PART_IDS),
        errors: Vec::new(),
        saved: Instant::now(),
    };
    loop {
        let waiting = Waiting {
            since: Instant::now(),
            idle: target.idle,
        };
        // Nothing to keep alive while waiting: a file is not resumed by
        // time, only by its key.
        let frame = loop {
            match waiting.next(&mut frames).await? {
                Some(Awaited::Frame(frame)) => break Some(frame),
                Some(Awaited::Nothing) => {}
                None => break None,
            }
        };
        let Some(frame) = frame else { break };
        inflater.push(&frame, |bytes| g.feed(bytes))?;
        apply_ready(pool, target, &mut g, metadata, false).await?;
    }
    inflater.finish(|bytes| g.feed(bytes))?;
    g.parser.finish(&mut g.lines)?;
    g.sort();
    apply_ready(pool, target, &mut g, metadata, true).await?;
    Ok((g.counts, g.sha.finalize().to_vec()))
}

/// Applies the parts gathered (the rest too at the `end`) and records the
/// file's progress and errors; otherwise at most every [`PROGRESS_EVERY`].
async fn apply_ready(
    pool: &Pool,
    target: &Target,
    g: &mut Gathered,
    metadata: &Metadata,
    end: bool,
) -> Result<(), UploadError> {
    let full = g.part.len() >= PART_IDS;
    if !full && !end && g.saved.elapsed() < PROGRESS_EVERY {
        return Ok(());
    }
    while g.part.len() >= PART_IDS || (end && !g.part.is_empty()) {
        let rest = g.part.split_off(g.part.len().min(PART_IDS));
        let part = std::mem::replace(&mut g.part, rest);
        g.counts.changed += apply_part(pool, target, part, metadata).await?;
    }
    let client = pool.get().await?;
    record_errors(&**client, target.file_id, &std::mem::take(&mut g.errors)).await?;
    progress(&**client, target.file_id, &g.counts).await?;
    g.saved = Instant::now();
    Ok(())
}

/// One part in one transaction: the set changed, the event of what
/// changed, the list's version and size. How many ids it changed.
async fn apply_part(
    pool: &Pool,
    target: &Target,
    mut ids: Vec<UserId>,
    metadata: &Metadata,
) -> Result<i64, UploadError> {
    ids.sort_unstable();
    ids.dedup();
    let mut client = pool.get().await?;
    let tx = client.transaction().await?;
    let sn = &target.template_sn;
    let changed = match lock_list(&tx, sn, target.mode).await? {
        None => Vec::new(),
        Some((version, members)) => {
            let changed = change_members(&tx, sn, target.mode, &ids).await?;
            if !changed.is_empty() {
                let event = List { version, members };
                record_change(&tx, target, event, &changed, metadata).await?;
            }
            changed
        }
    };
    tx.commit().await?;
    Ok(i64::try_from(changed.len()).expect("a part is small"))
}

/// The list's row, locked: its stream version and size. A list is made by
/// its first addition; removing from none changes nothing (None).
async fn lock_list(
    tx: &Transaction<'_>,
    sn: &TemplateSn,
    mode: AllowListMode,
) -> Result<Option<(i32, i64)>, tokio_postgres::Error> {
    if mode == AllowListMode::Add {
        let make = "INSERT INTO allow_lists (template_sn, version, members) VALUES ($1, 0, 0)
                    ON CONFLICT DO NOTHING";
        tx.execute(&tx.prepare_cached(make).await?, &[sn]).await?;
    }
    let sql = "SELECT version, members FROM allow_lists WHERE template_sn = $1 FOR UPDATE";
    let row = tx.query_opt(&tx.prepare_cached(sql).await?, &[sn]).await?;
    Ok(row.map(|r| (r.get(0), r.get(1))))
}

/// Adds or removes the ids; the ones whose membership changed.
async fn change_members(
    tx: &Transaction<'_>,
    sn: &TemplateSn,
    mode: AllowListMode,
    ids: &[UserId],
) -> Result<Vec<UserId>, tokio_postgres::Error> {
    let ids: Vec<&str> = ids.iter().map(UserId::as_str).collect();
    let sql = match mode {
        AllowListMode::Add => {
            "INSERT INTO template_allow_list (template_sn, user_id)
             SELECT $1, u FROM unnest($2::text[]) AS u
             ON CONFLICT DO NOTHING RETURNING user_id"
        }
        AllowListMode::Remove => {
            "DELETE FROM template_allow_list WHERE template_sn = $1 AND user_id = ANY($2)
             RETURNING user_id"
        }
    };
    let rows = tx
        .query(&tx.prepare_cached(sql).await?, &[sn, &ids])
        .await?;
    let mut changed: Vec<UserId> = rows.iter().map(|r| r.get(0)).collect();
    changed.sort_unstable();
    Ok(changed)
}

/// The list's row as the part found it.
struct List {
    version: i32,
    members: i64,
}

/// Appends the part's event and moves the list's version and size on;
/// refuses (rolling the part back) a list that would pass its bound.
async fn record_change(
    tx: &Transaction<'_>,
    target: &Target,
    list: List,
    changed: &[UserId],
    metadata: &Metadata,
) -> Result<(), UploadError> {
    let n = i64::try_from(changed.len()).expect("a part is small");
    let members = match target.mode {
        AllowListMode::Add => list.members + n,
        AllowListMode::Remove => list.members - n,
    };
    if members > MAX_ALLOW_LIST {
        return Err(CommandError::Unprocessable(
            "allow_list_full",
            format!("an allow-list holds at most {MAX_ALLOW_LIST} users"),
        )
        .into());
    }
    debug_assert!(members >= 0, "only members are removed");
    let payload = AllowListChanged {
        template_sn: target.template_sn.clone(),
        file_id: target.file_id,
        user_ids: changed.to_vec(),
    };
    let event = match target.mode {
        AllowListMode::Add => LedgerEvent::TemplateAllowListAdded(payload),
        AllowListMode::Remove => LedgerEvent::TemplateAllowListRemoved(payload),
    };
    let now = store::now();
    let stream = StreamKind::AllowList.id(target.template_sn.as_str());
    let new = NewEvent::of(&event, metadata, now).map_err(CommandError::from)?;
    let out = store::append(tx, &stream, list.version, &[new])
        .await
        .map_err(CommandError::from)?;
    let sql = "UPDATE allow_lists SET version = $2, members = $3 WHERE template_sn = $1";
    let params: [&(dyn tokio_postgres::types::ToSql + Sync); 3] =
        [&target.template_sn, &out.version, &members];
    tx.execute(&tx.prepare_cached(sql).await?, &params).await?;
    Ok(())
}

async fn record_errors(
    client: &impl GenericClient,
    file_id: Uuid,
    errors: &[(i64, String)],
) -> Result<(), tokio_postgres::Error> {
    if errors.is_empty() {
        return Ok(());
    }
    let (lines, reasons): (Vec<i64>, Vec<&str>) =
        errors.iter().map(|(l, r)| (*l, r.as_str())).unzip();
    let sql = "INSERT INTO allow_list_errors (file_id, line, reason)
               SELECT $1, l, r FROM unnest($2::bigint[], $3::text[]) AS x (l, r)
               ON CONFLICT DO NOTHING";
    client.execute(sql, &[&file_id, &lines, &reasons]).await?;
    Ok(())
}

async fn progress(
    client: &impl GenericClient,
    file_id: Uuid,
    c: &Counts,
) -> Result<(), tokio_postgres::Error> {
    let sql = "UPDATE allow_list_files SET lines_read = $2, blank = $3, invalid = $4,
                      valid = $5, changed = $6 WHERE id = $1";
    let params: [&(dyn tokio_postgres::types::ToSql + Sync); 6] = [
        &file_id,
        &c.lines_read,
        &c.blank,
        &c.invalid,
        &c.valid,
        &c.changed,
    ];
    client.execute(sql, &params).await?;
    Ok(())
}

/// The upload's end: `done` with the file's digest and counts, or
/// `incomplete` with its error (the counts saved so far stay).
async fn finish(
    client: &impl GenericClient,
    file_id: Uuid,
    c: &Counts,
    sha256: Option<&[u8]>,
    error: Option<&str>,
) -> Result<(), tokio_postgres::Error> {
    if sha256.is_some() {
        progress(client, file_id, c).await?;
    }
    let sql = "UPDATE allow_list_files
                  SET status = $5, sha256 = $2, error = $3, finished_at = $4
                WHERE id = $1";
    // Read to the end (its digest known), or broken off.
    let status = match sha256 {
        Some(_) => FileStatus::Done,
        None => FileStatus::Incomplete,
    };
    let params: [&(dyn tokio_postgres::types::ToSql + Sync); 5] =
        [&file_id, &sha256, &error, &store::now(), &status.as_str()];
    client.execute(sql, &params).await?;
    Ok(())
}
