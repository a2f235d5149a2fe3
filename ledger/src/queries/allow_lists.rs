//! A template's allow-list as ops see it (docs/design.md §15): its size, the
//! files that changed it, one file with its invalid lines, and whether one
//! user is on it. Never the list itself.

use chrono::{DateTime, Utc};
use serde::Serialize;
use tokio_postgres::{GenericClient, Row};
use utoipa::ToSchema;
use uuid::Uuid;

use crate::db::Named;
use crate::domain::eligibility::{AllowListFileStatus, AllowListMode};
use crate::domain::ids::{TemplateSn, UserId};

/// Files a list's answer shows, newest first.
pub const RECENT_FILES: i64 = 20;

/// An uploaded file and what it did.
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct AllowListFileView {
    pub file_id: Uuid,
    pub template_sn: String,
    pub mode: AllowListMode,
    pub status: AllowListFileStatus,
    pub lines_read: i64,
    pub blank: i64,
    pub invalid: i64,
    pub valid: i64,
    /// Ids whose membership the file changed (added ones were not on the
    /// list, removed ones were).
    pub changed: i64,
    pub operator: Option<String>,
    pub created_at: DateTime<Utc>,
    pub finished_at: Option<DateTime<Utc>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// The first invalid lines (at most 1,000), with their 1-based number:
    /// in the answer to one file, not in a list's.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub errors: Option<Vec<InvalidLine>>,
}

/// A line of a file that names no user.
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct InvalidLine {
    pub line: i64,
    pub reason: String,
}

/// A template's allow-list.
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct AllowListView {
    pub template_sn: String,
    /// Whether the template's eligibility applies the list to claims,
    /// redemptions, package claims and bulk issuance.
    pub enforced: bool,
    pub members: i64,
    /// The files that changed it, newest first (at most 20).
    pub files: Vec<AllowListFileView>,
    /// Whether `?user_id=` is on the list (absent unless asked).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub contains: Option<bool>,
}

const FILE_COLUMNS: &str = "id, template_sn, mode, status, lines_read, blank, invalid, valid,
        changed, operator, created_at, finished_at, error";

fn file(r: &Row) -> Result<AllowListFileView, tokio_postgres::Error> {
    Ok(AllowListFileView {
        file_id: r.get(0),
        template_sn: r.get(1),
        mode: r.try_get::<_, Named<_>>(2)?.0,
        status: r.try_get::<_, Named<_>>(3)?.0,
        lines_read: r.get(4),
        blank: r.get(5),
        invalid: r.get(6),
        valid: r.get(7),
        changed: r.get(8),
        operator: r.get(9),
        created_at: r.get(10),
        finished_at: r.get(11),
        error: r.get(12),
        errors: None,
    })
}

/// One file of the template, with its first invalid lines.
pub async fn file_of(
    client: &impl GenericClient,
    sn: &TemplateSn,
    id: Uuid,
) -> Result<Option<AllowListFileView>, tokio_postgres::Error> {
    let sql =
        format!("SELECT {FILE_COLUMNS} FROM allow_list_files WHERE id = $1 AND template_sn = $2");
    let Some(row) = client.query_opt(&sql, &[&id, sn]).await? else {
        return Ok(None);
    };
    let mut view = file(&row)?;
    let sql = "SELECT line, reason FROM allow_list_errors WHERE file_id = $1 ORDER BY line";
    let rows = client.query(sql, &[&id]).await?;
    let errors = rows.iter().map(|r| InvalidLine {
        line: r.get(0),
        reason: r.get(1),
    });
    view.errors = Some(errors.collect());
    Ok(Some(view))
}

/// The template's list (None: no such template), and whether `user` is on it.
pub async fn list(
    client: &impl GenericClient,
    sn: &TemplateSn,
    user: Option<&UserId>,
) -> Result<Option<AllowListView>, tokio_postgres::Error> {
    let sql = "SELECT coalesce((t.eligibility->>'allow_list')::boolean, false),
                      coalesce(a.members, 0),
                      CASE WHEN $2::text IS NULL THEN NULL ELSE EXISTS (
                          SELECT 1 FROM template_allow_list m
                           WHERE m.template_sn = t.sn AND m.user_id = $2) END
                 FROM templates t LEFT JOIN allow_lists a ON a.template_sn = t.sn
                WHERE t.sn = $1";
    let user = user.map(UserId::as_str);
    let Some(row) = client.query_opt(sql, &[sn, &user]).await? else {
        return Ok(None);
    };
    let sql = format!(
        "SELECT {FILE_COLUMNS} FROM allow_list_files WHERE template_sn = $1
          ORDER BY created_at DESC, id DESC LIMIT {RECENT_FILES}"
    );
    let files = client.query(&sql, &[sn]).await?;
    Ok(Some(AllowListView {
        template_sn: sn.as_str().to_owned(),
        enforced: row.get(0),
        members: row.get(1),
        files: files.iter().map(file).collect::<Result<_, _>>()?,
        contains: row.get(2),
    }))
}
