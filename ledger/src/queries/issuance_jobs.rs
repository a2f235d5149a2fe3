//! Bulk-issuance jobs as ops see them (docs/design.md §9): a job's progress (its
//! chunks' outcomes added up), the jobs of a template, and the report of
//! every line's outcome, streamed in line order.

use chrono::{DateTime, Utc};
use futures_util::{Stream, TryStreamExt};
use serde::{Deserialize, Serialize};
use tokio_postgres::{GenericClient, Row};
use utoipa::ToSchema;
use uuid::Uuid;

use crate::db::Named;
use crate::domain::issuance::UPLOAD_SILENCE_SECS;
use crate::domain::issuance::{IssuanceJobStatus, JobProgress};

/// Largest page of jobs.
pub const MAX_PAGE: i64 = 200;

/// A job and where it stands. Every line read ends in one of `blank`,
/// `invalid`, `issued`, `over_limit`, `sold_out`, `cancelled`,
/// `not_eligible` once the job is done.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct JobView {
    pub job_id: Uuid,
    pub template_sn: String,
    pub status: IssuanceJobStatus,
    /// Each user gets one `CouponsGranted` message once the job has ended
    /// (`?notify=true` on the upload).
    pub notify: bool,
    pub lines_read: i64,
    pub blank: i64,
    pub invalid: i64,
    pub valid: i64,
    /// Known once the upload ended.
    pub chunks_total: Option<i32>,
    pub chunks_done: i32,
    pub issued: i64,
    pub over_limit: i64,
    pub sold_out: i64,
    pub cancelled: i64,
    /// Lines whose user is not on the template's allow-list (docs/design.md §15).
    pub not_eligible: i64,
    pub created_at: DateTime<Utc>,
    pub started_at: Option<DateTime<Utc>>,
    pub finished_at: Option<DateTime<Utc>>,
    /// Lines decided per second since the first chunk was issued, to two
    /// decimals (more would be noise: the times are milliseconds apart).
    pub lines_per_second: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

const SELECT: &str = "SELECT j.id, j.template_sn, j.status, j.lines_read, j.blank, j.invalid,
        j.valid, j.chunks_total, j.chunks_done,
        coalesce(sum(c.issued), 0)::bigint, coalesce(sum(c.over_limit), 0)::bigint,
        coalesce(sum(c.sold_out), 0)::bigint, coalesce(sum(c.cancelled), 0)::bigint,
        j.created_at, min(c.done_at), max(c.done_at), j.updated_at, j.error,
        coalesce(sum(c.lines) FILTER (WHERE c.done_at IS NOT NULL), 0)::bigint, j.finished_at,
        coalesce(sum(c.not_eligible), 0)::bigint, j.notify
   FROM issuance_jobs j LEFT JOIN issuance_chunks c ON c.job_id = j.id";

pub async fn job(
    client: &impl GenericClient,
    id: Uuid,
    now: DateTime<Utc>,
) -> Result<Option<JobView>, tokio_postgres::Error> {
    let sql = format!("{SELECT} WHERE j.id = $1 GROUP BY j.id");
    let row = client.query_opt(&sql, &[&id]).await?;
    row.map(|r| view(&r, now)).transpose()
}

/// Jobs newest first, optionally of one template and in one stored status.
pub async fn list(
    client: &impl GenericClient,
    template_sn: Option<&str>,
    status: Option<IssuanceJobStatus>,
    shops: Option<Vec<String>>,
    (offset, limit): (i64, i64),
    now: DateTime<Utc>,
) -> Result<Vec<JobView>, tokio_postgres::Error> {
    // The stored status is the shown one, but for an upload gone silent
    // (`incomplete` without a write): the filter says so in SQL, so that
    // pages are full.
    let sql = format!(
        "{SELECT} WHERE ($1::text IS NULL OR j.template_sn = $1)
            AND ($4::text IS NULL
                 OR (CASE WHEN j.status = $6 AND j.updated_at < $5 THEN $7::text
                          ELSE j.status END) = $4)
            AND ($8::text[] IS NULL OR EXISTS (
                SELECT 1 FROM templates t WHERE t.sn = j.template_sn AND t.shop_id = ANY($8)))
          GROUP BY j.id ORDER BY j.created_at DESC, j.id DESC OFFSET $2 LIMIT $3"
    );
    let silent_since = now - chrono::Duration::seconds(UPLOAD_SILENCE_SECS);
    let status = status.map(IssuanceJobStatus::as_str);
    let limit = limit.clamp(1, MAX_PAGE);
    let (uploading, incomplete) = (
        IssuanceJobStatus::Uploading.as_str(),
        IssuanceJobStatus::Incomplete.as_str(),
    );
    let params: [&(dyn tokio_postgres::types::ToSql + Sync); 8] = [
        &template_sn,
        &offset,
        &limit,
        &status,
        &silent_since,
        &uploading,
        &incomplete,
        &shops,
    ];
    let rows = client.query(&sql, &params).await?;
    rows.iter().map(|r| view(r, now)).collect()
}

fn view(r: &Row, now: DateTime<Utc>) -> Result<JobView, tokio_postgres::Error> {
    let Named(stored) = r.try_get::<_, Named<IssuanceJobStatus>>(2)?;
    let chunks_done: i32 = r.get(8);
    let progress = JobProgress {
        chunks_total: r.get(7),
        chunks_done,
        updated_at: r.get(16),
        now,
    };
    let status = stored.shown(progress, chrono::Duration::seconds(UPLOAD_SILENCE_SECS));
    let started_at: Option<DateTime<Utc>> = r.get(14);
    let last_done: Option<DateTime<Utc>> = r.get(15);
    let decided: i64 = r.get(18);
    let lines_per_second = started_at.zip(last_done).and_then(|(first, last)| {
        let seconds = (last - first).num_milliseconds() as f64 / 1000.0;
        (seconds > 0.0).then(|| (decided as f64 / seconds * 100.0).round() / 100.0)
    });
    Ok(JobView {
        job_id: r.get(0),
        template_sn: r.get(1),
        status,
        notify: r.get(21),
        lines_read: r.get(3),
        blank: r.get(4),
        invalid: r.get(5),
        valid: r.get(6),
        chunks_total: progress.chunks_total,
        chunks_done,
        issued: r.get(9),
        over_limit: r.get(10),
        sold_out: r.get(11),
        cancelled: r.get(12),
        not_eligible: r.get(20),
        created_at: r.get(13),
        started_at,
        finished_at: r.get(19),
        lines_per_second,
        error: r.get(17),
    })
}

/// One line of a job's report.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ReportLine {
    pub line: i64,
    pub user_id: String,
    pub outcome: String,
    pub reason: Option<String>,
    pub coupon_id: Option<Uuid>,
}

impl ReportLine {
    /// The line as a CSV record (`coupon_id` last when `all`).
    pub fn csv(&self, all: bool) -> String {
        let line = self.line.to_string();
        let coupon = self.coupon_id.map(|id| id.to_string()).unwrap_or_default();
        let reason = self.reason.as_deref().unwrap_or("");
        let mut fields = vec![line.as_str(), &self.user_id, &self.outcome, reason];
        if all {
            fields.push(&coupon);
        }
        crate::domain::csv_line::record(&fields)
    }
}

/// The job's lines in line order: those without a coupon, and with `all`
/// also those with one. Streamed: memory does not grow with the job; the
/// pooled connection stays with the stream until its last row.
pub async fn report(
    client: deadpool_postgres::Object,
    id: Uuid,
    all: bool,
) -> Result<
    impl Stream<Item = Result<ReportLine, tokio_postgres::Error>> + 'static,
    tokio_postgres::Error,
> {
    let sql = "SELECT line, user_id, outcome, reason, NULL::uuid FROM issuance_lines
                WHERE job_id = $1
               UNION ALL
               SELECT job_line, user_id, 'issued', NULL, id FROM coupons
                WHERE job_id = $1 AND $2
               UNION ALL
               SELECT job_line, user_id, 'issued', NULL, id FROM coupons_archive
                WHERE job_id = $1 AND $2
               ORDER BY 1";
    let params: [&(dyn tokio_postgres::types::ToSql + Sync); 2] = [&id, &all];
    let rows = client.query_raw(sql, params).await?;
    Ok(rows.map_ok(move |r| {
        let _connection = &client;
        ReportLine {
            line: r.get(0),
            user_id: r.get(1),
            outcome: r.get(2),
            reason: r.get(3),
            coupon_id: r.get(4),
        }
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn report_fields_are_quoted_only_where_needed() {
        let line = ReportLine {
            line: 7,
            user_id: "a\"b,c".into(),
            outcome: "invalid".into(),
            reason: Some("contains a control, space".into()),
            coupon_id: None,
        };
        assert_eq!(
            line.csv(false),
            "7,\"a\"\"b,c\",invalid,\"contains a control, space\"\n"
        );
        assert_eq!(line.csv(true).matches(',').count(), 6);
    }
}
