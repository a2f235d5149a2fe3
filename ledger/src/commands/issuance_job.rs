//! A bulk-issuance job's life on the upload side (docs/design.md §9): opened under
//! its key, each chunk recorded (with the digest of its lines) before it is
//! published and marked published after the broker confirmed it, the lines
//! that name no user recorded, progress saved as the file streams, and the
//! end of the upload. The job row is touched only by the upload and by
//! cancel: chunk transactions write their own rows, so they never queue on
//! it (the job's totals add up its chunks).

use chrono::{DateTime, Utc};
use tokio_postgres::GenericClient;
use uuid::Uuid;

use super::CommandError;
use crate::domain::issuance::IssuanceJobStatus as Status;
use crate::domain::user_file::FileFormat;

/// What an upload finds under its key.
#[derive(Debug)]
pub enum Opened {
    /// A new job: read the file and publish every chunk.
    New(Uuid),
    /// The key names a job whose upload did not end: read the file again,
    /// publish what was not published.
    Resume(Uuid),
    /// The key names a job whose upload ended: the file must be the same.
    Complete { id: Uuid, file_sha256: Vec<u8> },
}

impl Opened {
    pub fn id(&self) -> Uuid {
        match self {
            Self::New(id) | Self::Resume(id) | Self::Complete { id, .. } => *id,
        }
    }
}

pub use crate::domain::issuance::UPLOAD_SILENCE_SECS;

/// Counts of an upload so far.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct UploadCounts {
    pub bytes_read: i64,
    pub lines_read: i64,
    pub blank: i64,
    pub invalid: i64,
    pub valid: i64,
}

pub fn format_name(format: FileFormat) -> &'static str {
    match format {
        FileFormat::Plain => "text/plain",
        FileFormat::Csv => "text/csv",
    }
}

/// Who opens a job, and what for.
pub struct JobOpening<'a> {
    pub key: &'a str,
    pub sn: &'a str,
    pub format: FileFormat,
    /// The operator who uploads; the job's coupons name them
    /// (docs/design.md §7 "Operators"). A resumed job keeps its first.
    pub operator: &'a str,
    /// Each user gets one `CouponsGranted` message (docs/design.md §10).
    /// Part of what the key names: the same key asking otherwise is 422.
    pub notify: bool,
}

/// Opens the job named `key` for `sn`, or finds it.
pub async fn open(
    client: &impl GenericClient,
    job: &JobOpening<'_>,
    now: DateTime<Utc>,
) -> Result<Opened, CommandError> {
    let (key, sn) = (job.key, job.sn);
    let insert = "INSERT INTO issuance_jobs (id, template_sn, job_key, format, status,
                                             created_at, updated_at, operator, notify)
                  VALUES ($1, $2, $3, $4, $7, $5, $5, $6, $8)
                  ON CONFLICT (job_key) DO NOTHING";
    let id = Uuid::now_v7();
    let params: [&(dyn tokio_postgres::types::ToSql + Sync); 8] = [
        &id,
        &sn,
        &key,
        &format_name(job.format),
        &now,
        &job.operator,
        &Status::Uploading.as_str(),
        &job.notify,
    ];
    if client.execute(insert, &params).await? == 1 {
        return Ok(Opened::New(id));
    }
    let claim = "UPDATE issuance_jobs SET status = $5, updated_at = $3
                  WHERE job_key = $1 AND template_sn = $2 AND notify = $7
                    AND (status = $6
                         OR status = $5 AND updated_at < $3::timestamptz - make_interval(secs => $4))
              RETURNING id";
    let silence = UPLOAD_SILENCE_SECS as f64;
    let (uploading, incomplete) = (Status::Uploading.as_str(), Status::Incomplete.as_str());
    let params: [&(dyn tokio_postgres::types::ToSql + Sync); 7] = [
        &key,
        &sn,
        &now,
        &silence,
        &uploading,
        &incomplete,
        &job.notify,
    ];
    if let Some(row) = client.query_opt(claim, &params).await? {
        return Ok(Opened::Resume(row.get(0)));
    }
    existing(client, job).await
}

/// The job the key already names, if the upload asks for the same job.
async fn existing(
    client: &impl GenericClient,
    job: &JobOpening<'_>,
) -> Result<Opened, CommandError> {
    let row = client
        .query_one(
            "SELECT id, template_sn, status, file_sha256, notify FROM issuance_jobs
              WHERE job_key = $1",
            &[&job.key],
        )
        .await?;
    if row.get::<_, &str>(1) != job.sn {
        return Err(CommandError::Unprocessable(
            "idempotency_key_reused",
            "this Idempotency-Key names a job of another template".into(),
        ));
    }
    let notify: bool = row.get(4);
    if notify != job.notify {
        return Err(CommandError::Unprocessable(
            "idempotency_key_reused",
            format!("this Idempotency-Key names a job opened with notify={notify}"),
        ));
    }
    match row.get::<_, Option<Vec<u8>>>(3) {
        Some(file_sha256) => Ok(Opened::Complete {
            id: row.get(0),
            file_sha256,
        }),
        None => Err(CommandError::Conflict(
            "upload_in_progress",
            "an upload of this job is in progress; try again when it ends".into(),
        )),
    }
}

/// Records chunk `chunk_no` before it is published. Returns whether it
/// still needs publishing; a resumed upload whose chunk differs from the
/// one recorded is another file (422).
pub async fn record_chunk(
    client: &impl GenericClient,
    job_id: Uuid,
    chunk_no: i32,
    lines: i32,
    (first_line, last_line): (i64, i64),
    digest: &[u8],
) -> Result<bool, CommandError> {
    let sql = "INSERT INTO issuance_chunks (job_id, chunk_no, lines, first_line, last_line,
                                            digest, published_at)
               VALUES ($1, $2, $3, $4, $5, $6, NULL)
               ON CONFLICT (job_id, chunk_no) DO UPDATE SET job_id = EXCLUDED.job_id
               RETURNING digest, published_at IS NOT NULL";
    let params: [&(dyn tokio_postgres::types::ToSql + Sync); 6] =
        [&job_id, &chunk_no, &lines, &first_line, &last_line, &digest];
    let row = client.query_one(sql, &params).await?;
    if row.get::<_, &[u8]>(0) != digest {
        return Err(CommandError::Unprocessable(
            "different_file",
            "this Idempotency-Key names a job uploaded with another file".into(),
        ));
    }
    Ok(!row.get::<_, bool>(1))
}

/// The broker confirmed the chunk.
pub async fn chunk_published(
    client: &impl GenericClient,
    job_id: Uuid,
    chunk_no: i32,
    now: DateTime<Utc>,
) -> Result<(), tokio_postgres::Error> {
    client
        .execute(
            "UPDATE issuance_chunks SET published_at = $3 WHERE job_id = $1 AND chunk_no = $2",
            &[&job_id, &chunk_no, &now],
        )
        .await?;
    Ok(())
}

/// Lines of the file that name no user (their text escaped and bounded).
pub async fn record_invalid(
    client: &impl GenericClient,
    job_id: Uuid,
    lines: &[(i64, String, String)],
) -> Result<(), tokio_postgres::Error> {
    if lines.is_empty() {
        return Ok(());
    }
    let numbers: Vec<i64> = lines.iter().map(|l| l.0).collect();
    let texts: Vec<&str> = lines.iter().map(|l| l.1.as_str()).collect();
    let reasons: Vec<&str> = lines.iter().map(|l| l.2.as_str()).collect();
    let sql = "INSERT INTO issuance_lines (job_id, line, user_id, outcome, reason)
               SELECT $1, l, u, 'invalid', r FROM unnest($2::bigint[], $3::text[], $4::text[])
                 AS x (l, u, r)
               ON CONFLICT (job_id, line) DO NOTHING";
    client
        .execute(sql, &[&job_id, &numbers, &texts, &reasons])
        .await?;
    Ok(())
}

/// Saves the upload's progress (and that it is alive).
pub async fn progress(
    client: &impl GenericClient,
    job_id: Uuid,
    c: &UploadCounts,
    now: DateTime<Utc>,
) -> Result<(), tokio_postgres::Error> {
    let sql = "UPDATE issuance_jobs SET bytes_read = $2, lines_read = $3, blank = $4,
                      invalid = $5, valid = $6, updated_at = $7
                WHERE id = $1 AND status = $8";
    let params: [&(dyn tokio_postgres::types::ToSql + Sync); 8] = [
        &job_id,
        &c.bytes_read,
        &c.lines_read,
        &c.blank,
        &c.invalid,
        &c.valid,
        &now,
        &Status::Uploading.as_str(),
    ];
    client.execute(sql, &params).await?;
    Ok(())
}

/// The whole file was read and every chunk confirmed: the job is queued.
pub async fn finish_upload(
    client: &impl GenericClient,
    job_id: Uuid,
    c: &UploadCounts,
    file_sha256: &[u8],
    chunks_total: i32,
    now: DateTime<Utc>,
) -> Result<(), tokio_postgres::Error> {
    progress(client, job_id, c, now).await?;
    // Chunks may have finished while the file was still read: the job is
    // then already running, or done.
    let sql = "UPDATE issuance_jobs
                  SET status = CASE WHEN chunks_done = $3 THEN $5::text
                                    WHEN chunks_done > 0 THEN $6::text ELSE $7::text END,
                      finished_at = CASE WHEN chunks_done = $3 THEN $4::timestamptz END,
                      file_sha256 = $2, chunks_total = $3
                WHERE id = $1 AND status = $8";
    let [done, running, queued, uploading] = [
        Status::Done,
        Status::Running,
        Status::Queued,
        Status::Uploading,
    ]
    .map(Status::as_str);
    let params: [&(dyn tokio_postgres::types::ToSql + Sync); 8] = [
        &job_id,
        &file_sha256,
        &chunks_total,
        &now,
        &done,
        &running,
        &queued,
        &uploading,
    ];
    client.execute(sql, &params).await?;
    Ok(())
}

/// The upload broke off (client gone, body unreadable): resumable.
pub async fn broke_off(
    client: &impl GenericClient,
    job_id: Uuid,
    error: &str,
) -> Result<(), tokio_postgres::Error> {
    let sql = "UPDATE issuance_jobs SET status = $3, error = $2
                WHERE id = $1 AND status = $4";
    let (incomplete, uploading) = (Status::Incomplete.as_str(), Status::Uploading.as_str());
    client
        .execute(sql, &[&job_id, &error, &incomplete, &uploading])
        .await?;
    Ok(())
}

/// Deletes a job whose file had no line of data, unless an earlier upload
/// of its key recorded something (chunks or invalid lines): true if deleted.
pub async fn discard_empty(
    client: &impl GenericClient,
    job_id: Uuid,
) -> Result<bool, tokio_postgres::Error> {
    let sql = "DELETE FROM issuance_jobs j WHERE id = $1 AND status = $2
                  AND NOT EXISTS (SELECT 1 FROM issuance_chunks c WHERE c.job_id = j.id)
                  AND NOT EXISTS (SELECT 1 FROM issuance_lines l WHERE l.job_id = j.id)";
    let uploading = Status::Uploading.as_str();
    Ok(client.execute(sql, &[&job_id, &uploading]).await? == 1)
}

/// Cancels a job: chunks not yet issued end `cancelled`. A finished job
/// cannot be cancelled (409).
pub async fn cancel(client: &impl GenericClient, job_id: Uuid) -> Result<(), CommandError> {
    let sql = "UPDATE issuance_jobs SET status = $3, finished_at = $2
                WHERE id = $1 AND status <> ALL($4::text[])";
    let ended = Status::final_names();
    let (now, cancelled) = (crate::store::now(), Status::Cancelled.as_str());
    if client
        .execute(sql, &[&job_id, &now, &cancelled, &ended])
        .await?
        == 1
    {
        return Ok(());
    }
    let exists = client
        .query_opt("SELECT status FROM issuance_jobs WHERE id = $1", &[&job_id])
        .await?;
    match exists {
        None => Err(CommandError::not_found("issuance job", job_id)),
        Some(_) => Err(CommandError::Conflict(
            "job_finished",
            "the job has ended; there is nothing to cancel".into(),
        )),
    }
}
