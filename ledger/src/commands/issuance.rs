//! One bulk-issuance chunk in ONE transaction (docs/design.md §9): the job's state,
//! the per-user limits of all its users (one read, one guarded upsert), the
//! quota for the chunk (the template's guards, [`super::template_guards`]), the coupons and their
//! `CouponIssued` events by binary COPY, the lines that got none, and the
//! chunk's outcome counts. The caller claims the inbox row in the same
//! transaction, so a redelivered chunk is a no-op.
//!
//! Two ways through, both exact:
//! - **optimistic** (the common case: quota left for the whole chunk): the
//!   users' counts are raised by guarded increments, the coupons written,
//!   and only then is the template's hot row updated (`issued + n <=
//!   total`), so chunks and claims of one template queue on that row for
//!   the commit only, not for the COPYs;
//! - **guarded** (when the optimistic guards refuse: the quota runs out, or
//!   a concurrent claim changed a user's count): rolled back to a
//!   savepoint, the chunk locks its users' rows and then the template's,
//!   and takes what quota is left (`sold_out` for the rest). A template
//!   stopped or voided since the chunk read it gives nothing: the chunk
//!   keeps nothing and its lines end `cancelled`.

use std::collections::HashMap;

use chrono::{DateTime, Utc};
use chrono_tz::Tz;
use deadpool_postgres::Transaction;

use super::CommandError;
use super::coupon_rows;
use super::template_guards::{open, quota, user_limits};
use crate::db::Named;
use crate::domain::events::{CouponIssued, Metadata};
use crate::domain::ids::CouponId;
use crate::domain::issuance::{
    ChunkLine, IssuanceChunk, IssuanceJobStatus, Outcome, claims_after, per_user, take_quota,
};
use crate::domain::ledger_event::LedgerEvent;
use crate::domain::new_coupon::{Issue, Origin};
use crate::domain::quota::{QuotaRefused, Take};
use crate::domain::reminder::RemindDays;
use crate::domain::template_status::{self, TemplateStatus};
use crate::domain::terms::{RawTerms, Terms};
use crate::store::{self, NewEvent, StreamEvent};

/// What became of a chunk's lines.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ChunkOutcome {
    pub issued: i32,
    pub over_limit: i32,
    pub sold_out: i32,
    pub cancelled: i32,
    pub not_eligible: i32,
}

/// The template as a chunk needs it.
struct Template {
    status: TemplateStatus,
    /// `total - issued` as the transaction's snapshot saw it (not locked).
    left: i64,
    issue_begin: DateTime<Utc>,
    issue_end: DateTime<Utc>,
    per_user_limit: i32,
    terms: Terms,
    remind_days_before: Option<RemindDays>,
    /// Only users on the allow-list get a coupon (docs/design.md §15): of
    /// the eligibility, the only rule a file's lines can answer (tags,
    /// regions and new users are what a claiming channel vouches for).
    allow_list: bool,
}

/// What every coupon of a chunk is issued under: the template, the events'
/// metadata, and whether the job asked `notify=true` (its coupons then say
/// so, and the notify projection makes their users' `CouponsGranted` rows).
struct Under<'a> {
    template: &'a Template,
    metadata: &'a Metadata,
    job_notify: bool,
}

/// The job as a chunk finds it.
struct JobState {
    status: IssuanceJobStatus,
    operator: Option<String>,
    notify: bool,
}

/// Issues what it can of `chunk`; every line ends in one outcome.
pub async fn apply_chunk(
    tx: &Transaction<'_>,
    chunk: &IssuanceChunk,
    metadata: &Metadata,
    now: DateTime<Utc>,
    tz: Tz,
) -> Result<ChunkOutcome, CommandError> {
    let started = std::time::Instant::now();
    let Some(job) = job_status(tx, chunk).await? else {
        return Ok(ChunkOutcome::default()); // done before: a late duplicate
    };
    // The coupons name the operator who uploaded the file (docs/design.md §7).
    let metadata = &Metadata {
        operator: job.operator.or_else(|| metadata.operator.clone()),
        ..metadata.clone()
    };
    let template = read_template(tx, chunk.template_sn.as_str()).await?;
    let closed = why_closed(job.status, &template, now);
    let all: Vec<usize> = (0..chunk.lines.len()).collect();
    let outcome = match closed {
        Some(reason) => {
            record_lines(tx, chunk, &all, Outcome::Cancelled, &reason).await?;
            ChunkOutcome {
                cancelled: count(&all),
                ..Default::default()
            }
        }
        None => {
            let under = Under {
                template: &template,
                metadata,
                job_notify: job.notify,
            };
            issue_eligible(tx, chunk, &under, (now, tz)).await?
        }
    };
    finish_chunk(tx, chunk, &outcome, now, started.elapsed()).await?;
    Ok(outcome)
}

/// Why no line of the chunk can be issued, if so.
fn why_closed(job: IssuanceJobStatus, t: &Template, now: DateTime<Utc>) -> Option<String> {
    if job == IssuanceJobStatus::Cancelled {
        return Some("the job was cancelled".into());
    }
    let window = (t.issue_begin, t.issue_end);
    template_status::issuing(t.status, window, now)
        .err()
        .map(|why| why.to_string())
}

/// The chunk's lines whose user the template admits are issued; the others
/// end `not_eligible`.
async fn issue_eligible(
    tx: &Transaction<'_>,
    chunk: &IssuanceChunk,
    under: &Under<'_>,
    (now, tz): (DateTime<Utc>, Tz),
) -> Result<ChunkOutcome, CommandError> {
    if !under.template.allow_list {
        return issue_open(tx, chunk, under, now, tz).await;
    }
    let users = distinct_users(&chunk.lines);
    let listed = open::on_allow_list(tx, &chunk.template_sn, &users).await?;
    let (admitted, refused): (Vec<usize>, Vec<usize>) =
        (0..chunk.lines.len()).partition(|&i| listed.contains(chunk.lines[i].user_id.as_str()));
    let reason = "the user is not on the template's allow-list";
    record_lines(tx, chunk, &refused, Outcome::NotEligible, reason).await?;
    let eligible = IssuanceChunk {
        lines: admitted.iter().map(|&i| chunk.lines[i].clone()).collect(),
        ..chunk.clone()
    };
    let mut outcome = if eligible.lines.is_empty() {
        ChunkOutcome::default()
    } else {
        issue_open(tx, &eligible, under, now, tz).await?
    };
    outcome.not_eligible = count(&refused);
    Ok(outcome)
}

async fn issue_open(
    tx: &Transaction<'_>,
    chunk: &IssuanceChunk,
    under: &Under<'_>,
    now: DateTime<Utc>,
    tz: Tz,
) -> Result<ChunkOutcome, CommandError> {
    tx.batch_execute("SAVEPOINT optimistic").await?;
    if let Some(outcome) = issue_optimistic(tx, chunk, under, now, tz).await? {
        tx.batch_execute("RELEASE SAVEPOINT optimistic").await?;
        return Ok(outcome);
    }
    tx.batch_execute("ROLLBACK TO SAVEPOINT optimistic").await?;
    match issue_guarded(tx, chunk, under, now, tz).await? {
        Ok(outcome) => Ok(outcome),
        // Stopped or voided since the chunk read it: nothing of the chunk
        // is kept, every line ends cancelled, as a chunk that finds the
        // template closed.
        Err(closed) => {
            tx.batch_execute("ROLLBACK TO SAVEPOINT optimistic").await?;
            let all: Vec<usize> = (0..chunk.lines.len()).collect();
            let reason = closed.to_string();
            record_lines(tx, chunk, &all, Outcome::Cancelled, &reason).await?;
            Ok(ChunkOutcome {
                cancelled: count(&all),
                ..Default::default()
            })
        }
    }
}

/// Every line that passes the per-user limit gets its coupon, or None
/// (nothing kept: the caller rolls back) when a guard refuses.
async fn issue_optimistic(
    tx: &Transaction<'_>,
    chunk: &IssuanceChunk,
    under: &Under<'_>,
    now: DateTime<Utc>,
    tz: Tz,
) -> Result<Option<ChunkOutcome>, CommandError> {
    let (sn, template) = (chunk.template_sn.as_str(), under.template);
    let claimed = user_limits::read(tx, sn, &distinct_users(&chunk.lines)).await?;
    let decided = per_user(&chunk.lines, &claimed, template.per_user_limit);
    let wanted = i64::try_from(decided.passing.len()).expect("chunk sizes fit i64");
    if wanted > template.left {
        return Ok(None);
    }
    let limit = template.per_user_limit;
    if !add_claims(tx, sn, &chunk.lines, &decided.passing, limit).await? {
        return Ok(None);
    }
    issue_coupons(tx, chunk, &decided.passing, under, (now, tz)).await?;
    if quota::take(tx, sn, wanted, Take::All).await?.is_err() {
        return Ok(None);
    }
    record_over_limit(tx, chunk, &decided.over_limit).await?;
    Ok(Some(ChunkOutcome {
        issued: count(&decided.passing),
        over_limit: count(&decided.over_limit),
        ..Default::default()
    }))
}

/// Locks the users' rows, then the template's, and takes what is left;
/// refused whole when the template left `active` since the chunk read it.
async fn issue_guarded(
    tx: &Transaction<'_>,
    chunk: &IssuanceChunk,
    under: &Under<'_>,
    now: DateTime<Utc>,
    tz: Tz,
) -> Result<Result<ChunkOutcome, QuotaRefused>, CommandError> {
    let (sn, template) = (chunk.template_sn.as_str(), under.template);
    let users = distinct_users(&chunk.lines);
    let claimed = user_limits::lock(tx, sn, &users).await?;
    let decided = per_user(&chunk.lines, &claimed, template.per_user_limit);
    let wanted = i64::try_from(decided.passing.len()).expect("chunk sizes fit i64");
    let granted = match quota::take(tx, sn, wanted, Take::UpTo).await? {
        Ok(n) => usize::try_from(n).expect("granted is in 0..=wanted"),
        Err(QuotaRefused::SoldOut) => 0,
        Err(closed) => return Ok(Err(closed)),
    };
    let (issued, sold_out) = take_quota(&decided.passing, granted);
    let after = claims_after(&chunk.lines, issued, &claimed);
    user_limits::set(tx, sn, &after, &users).await?;
    issue_coupons(tx, chunk, issued, under, (now, tz)).await?;
    record_over_limit(tx, chunk, &decided.over_limit).await?;
    let reason = "the quota is exhausted";
    record_lines(tx, chunk, sold_out, Outcome::SoldOut, reason).await?;
    Ok(Ok(ChunkOutcome {
        issued: count(issued),
        over_limit: count(&decided.over_limit),
        sold_out: count(sold_out),
        ..Default::default()
    }))
}

async fn record_over_limit(
    tx: &Transaction<'_>,
    chunk: &IssuanceChunk,
    over: &[usize],
) -> Result<(), tokio_postgres::Error> {
    let reason = "user at the per-user limit";
    record_lines(tx, chunk, over, Outcome::OverLimit, reason).await
}

fn count(lines: &[usize]) -> i32 {
    i32::try_from(lines.len()).expect("a chunk holds at most MAX_CHUNK_LINES lines")
}

/// The job's status, operator and notify; None when this chunk was applied before.
async fn job_status(
    tx: &Transaction<'_>,
    chunk: &IssuanceChunk,
) -> Result<Option<JobState>, CommandError> {
    let sql = "SELECT j.status, j.template_sn, c.done_at IS NOT NULL, j.operator, j.notify
                 FROM issuance_jobs j
                 JOIN issuance_chunks c ON c.job_id = j.id AND c.chunk_no = $2
                WHERE j.id = $1";
    let row = tx
        .query_opt(
            &tx.prepare_cached(sql).await?,
            &[&chunk.job_id, &chunk.chunk_no],
        )
        .await?
        .ok_or_else(|| {
            let id = format!("{} chunk {}", chunk.job_id, chunk.chunk_no);
            CommandError::not_found("issuance job", id)
        })?;
    if row.get::<_, &str>(1) != chunk.template_sn.as_str() {
        return Err(internal("the chunk names another template than its job"));
    }
    if row.get::<_, bool>(2) {
        return Ok(None);
    }
    let Named(status) = row.try_get::<_, Named<IssuanceJobStatus>>(0)?;
    Ok(Some(JobState {
        status,
        operator: row.get(3),
        notify: row.get(4),
    }))
}

async fn read_template(tx: &Transaction<'_>, sn: &str) -> Result<Template, CommandError> {
    let sql = "SELECT status, issue_begin, issue_end, per_user_limit, terms, total - issued,
                      remind_days_before, coalesce((eligibility->>'allow_list')::boolean, false)
                 FROM templates WHERE sn = $1";
    let row = tx
        .query_opt(&tx.prepare_cached(sql).await?, &[&sn])
        .await?
        .ok_or_else(|| CommandError::not_found("template", sn))?;
    let raw: RawTerms = serde_json::from_value(row.get(4)).map_err(|e| internal(&e.to_string()))?;
    Ok(Template {
        status: row.try_get::<_, Named<TemplateStatus>>(0)?.0,
        left: row.get(5),
        issue_begin: row.get(1),
        issue_end: row.get(2),
        per_user_limit: row.get(3),
        terms: Terms::parse(&raw).map_err(|e| internal(&e.to_string()))?,
        remind_days_before: RemindDays::from_db(row.get(6)),
        allow_list: row.get(7),
    })
}

/// Raises each user's count by their `issued` lines, every user guarded
/// by the limit (the same guard as claims). False when a guard refused: a
/// claim got there first.
async fn add_claims(
    tx: &Transaction<'_>,
    sn: &str,
    lines: &[ChunkLine],
    issued: &[usize],
    limit: i32,
) -> Result<bool, tokio_postgres::Error> {
    let added = claims_after(lines, issued, &HashMap::new());
    let users: Vec<&str> = added.iter().map(|(u, _)| u.as_str()).collect();
    let counts: Vec<i32> = added.iter().map(|(_, n)| *n).collect();
    let raised = user_limits::raise(tx, sn, &users, &counts, limit).await?;
    Ok(raised.len() == added.len())
}

fn distinct_users(lines: &[ChunkLine]) -> Vec<&str> {
    let mut users: Vec<&str> = lines.iter().map(|l| l.user_id.as_str()).collect();
    users.sort_unstable();
    users.dedup();
    users
}

fn internal(message: &str) -> CommandError {
    CommandError::Internal(anyhow::anyhow!("{message}"))
}

/// The coupons of the `issued` lines: rows and events, each by one COPY.
async fn issue_coupons(
    tx: &Transaction<'_>,
    chunk: &IssuanceChunk,
    issued: &[usize],
    under: &Under<'_>,
    (now, tz): (DateTime<Utc>, Tz),
) -> Result<(), CommandError> {
    if issued.is_empty() {
        return Ok(());
    }
    let terms = &under.template.terms;
    let remind = under.template.remind_days_before.clone();
    let issue = Issue::at(&chunk.template_sn, terms, remind, (now, tz))?;
    let coupons: Vec<CouponIssued> = issued
        .iter()
        .map(|&i| {
            let line = &chunk.lines[i];
            let origin = Origin {
                job: Some((chunk.job_id, line.line)),
                job_notify: under.job_notify,
                ..Origin::default()
            };
            issue.coupon(&line.user_id, origin)
        })
        .collect();
    coupon_rows::copy(tx, &coupons).await?;
    let events = coupons
        .into_iter()
        .map(|c| {
            let stream_id = CouponId(c.coupon_id).stream_id();
            let event = NewEvent::of(&LedgerEvent::CouponIssued(c), under.metadata, now)?;
            Ok(StreamEvent {
                stream_id,
                stream_version: 1,
                event,
            })
        })
        .collect::<Result<Vec<_>, CommandError>>()?;
    store::copy_events(tx, &events).await?;
    Ok(())
}

/// Records `which` lines of the chunk with their outcome (they got no coupon).
async fn record_lines(
    tx: &Transaction<'_>,
    chunk: &IssuanceChunk,
    which: &[usize],
    outcome: Outcome,
    reason: &str,
) -> Result<(), tokio_postgres::Error> {
    if which.is_empty() {
        return Ok(());
    }
    let lines: Vec<i64> = which
        .iter()
        .map(|&i| i64::try_from(chunk.lines[i].line).unwrap_or(i64::MAX))
        .collect();
    let users: Vec<&str> = which
        .iter()
        .map(|&i| chunk.lines[i].user_id.as_str())
        .collect();
    let sql = "INSERT INTO issuance_lines (job_id, line, user_id, outcome, reason)
               SELECT $1, l, u, $4, $5 FROM unnest($2::bigint[], $3::text[]) AS x (l, u)";
    let params: [&(dyn tokio_postgres::types::ToSql + Sync); 5] =
        [&chunk.job_id, &lines, &users, &outcome.as_str(), &reason];
    tx.execute(&tx.prepare_cached(sql).await?, &params).await?;
    Ok(())
}

/// Marks the chunk done with its counts (the job's totals add these up).
async fn finish_chunk(
    tx: &Transaction<'_>,
    chunk: &IssuanceChunk,
    o: &ChunkOutcome,
    now: DateTime<Utc>,
    took: std::time::Duration,
) -> Result<(), CommandError> {
    let sql = "UPDATE issuance_chunks SET done_at = $3, issued = $4, over_limit = $5,
                      sold_out = $6, cancelled = $7, duration_ms = $8, not_eligible = $9
                WHERE job_id = $1 AND chunk_no = $2 AND done_at IS NULL";
    let ms = took.as_secs_f64() * 1000.0;
    let params: [&(dyn tokio_postgres::types::ToSql + Sync); 9] = [
        &chunk.job_id,
        &chunk.chunk_no,
        &now,
        &o.issued,
        &o.over_limit,
        &o.sold_out,
        &o.cancelled,
        &ms,
        &o.not_eligible,
    ];
    let updated = tx.execute(&tx.prepare_cached(sql).await?, &params).await?;
    if updated != 1 {
        return Err(internal(
            "the chunk is unknown to its job or was already done",
        ));
    }
    advance_job(tx, chunk.job_id, now).await
}

/// Counts the chunk on its job and moves the job on: `running`, or `done`
/// with the last chunk, in the chunk's own transaction, so a read never
/// shows a status the store does not hold. The job row is taken last, and
/// held only for the commit. A cancelled or uploading job keeps its status
/// (the end of the upload sets it from the count).
async fn advance_job(
    tx: &Transaction<'_>,
    job_id: uuid::Uuid,
    now: DateTime<Utc>,
) -> Result<(), CommandError> {
    let sql = "UPDATE issuance_jobs
                  SET chunks_done = chunks_done + 1,
                      status = CASE WHEN status <> ALL($3::text[]) THEN status
                                    WHEN chunks_total = chunks_done + 1 THEN $4::text
                                    ELSE $5::text END,
                      finished_at = CASE WHEN status = ANY($3::text[])
                                          AND chunks_total = chunks_done + 1 THEN $2::timestamptz
                                         ELSE finished_at END
                WHERE id = $1";
    use IssuanceJobStatus as S;
    let issuing = [S::Queued.as_str(), S::Running.as_str()];
    let (done, running) = (S::Done.as_str(), S::Running.as_str());
    let params: [&(dyn tokio_postgres::types::ToSql + Sync); 5] =
        [&job_id, &now, &issuing.as_slice(), &done, &running];
    tx.execute(&tx.prepare_cached(sql).await?, &params).await?;
    Ok(())
}
