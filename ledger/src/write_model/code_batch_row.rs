//! A batch of redemption codes as stored: read by the commands that
//! create, stop and redeem (and by the package jobs) and by the lists.

use chrono::{DateTime, Utc};
use tokio_postgres::GenericClient;
use uuid::Uuid;

use crate::db::Named;
use crate::domain::code_batch::CodeBatchStatus;
use crate::domain::ids::{PackageSn, TemplateSn};

/// A batch as stored.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Batch {
    pub id: Uuid,
    /// The template whose coupon a code gives, or the package.
    pub template_sn: Option<TemplateSn>,
    pub package_sn: Option<PackageSn>,
    pub key_id: String,
    pub first_serial: i64,
    pub count: i64,
    pub uses_per_code: i32,
    pub per_user: i32,
    pub status: CodeBatchStatus,
    pub expires_at: Option<DateTime<Utc>>,
    /// The passphrase as the operator typed it, for a passphrase batch
    /// (one code, chosen by hand: docs/design.md §20).
    pub passphrase: Option<String>,
    /// Redemptions so far; None where the read did not count them.
    pub redeemed: Option<i64>,
    pub created_at: DateTime<Utc>,
}

impl Batch {
    /// Whether `serial` is one of this batch's codes.
    pub fn holds(&self, serial: i64) -> bool {
        (self.first_serial..self.first_serial + self.count).contains(&serial)
    }
}

/// A batch's own columns, then its redemptions (summed: no hot counter row
/// for concurrent redemptions to queue on).
pub(crate) const COLUMNS: &str =
    "id, template_sn, package_sn, key_id, first_serial, count, uses_per_code,
                       per_user, status, expires_at, created_at, passphrase,
                       (SELECT coalesce(sum(u.redeemed), 0)::int8 FROM code_batch_users u
                         WHERE u.batch_id = code_batches.id)";

/// [`COLUMNS`] without the sum, which grows with the batch's redemptions:
/// what a redemption reads.
pub(crate) const OWN_COLUMNS: &str = "id, template_sn, package_sn, key_id, first_serial, count,
                           uses_per_code, per_user, status, expires_at, created_at,
                           passphrase";

/// A batch read from [`COLUMNS`] or [`OWN_COLUMNS`]; a status that is none
/// of the list fails the read.
pub(crate) fn batch_from(r: &tokio_postgres::Row) -> Result<Batch, tokio_postgres::Error> {
    Ok(Batch {
        id: r.get(0),
        template_sn: r.get(1),
        package_sn: r.get(2),
        key_id: r.get(3),
        first_serial: r.get(4),
        count: r.get(5),
        uses_per_code: r.get(6),
        per_user: r.get(7),
        status: r.try_get::<_, Named<CodeBatchStatus>>(8)?.0,
        expires_at: r.get(9),
        created_at: r.get(10),
        passphrase: r.get(11),
        redeemed: (r.len() > 12).then(|| r.get(12)),
    })
}

pub async fn read(
    client: &impl GenericClient,
    id: Uuid,
) -> Result<Option<Batch>, tokio_postgres::Error> {
    let sql = format!("SELECT {COLUMNS} FROM code_batches WHERE id = $1");
    client
        .query_opt(&sql, &[&id])
        .await?
        .as_ref()
        .map(batch_from)
        .transpose()
}
