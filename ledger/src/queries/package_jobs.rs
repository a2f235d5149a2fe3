//! Package jobs as their callers see them (DESIGN §13): where a large
//! package's claim stands, why it was refused, and its coupons once done.

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use tokio_postgres::{GenericClient, Row};
use utoipa::ToSchema;
use uuid::Uuid;

/// A package claim run as a job.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct PackageJobView {
    pub job_id: Uuid,
    pub package_sn: String,
    pub user_id: String,
    /// The channel that asked; absent for the service.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub channel_id: Option<Uuid>,
    /// The redemption code that asked (its batch and serial), for a package's code.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub code_batch_id: Option<Uuid>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub code_serial: Option<i64>,
    /// `queued`, `done`, `refused` (nothing was issued: see `error`) or
    /// `failed` (never ran: its request answered 503).
    pub status: String,
    /// Refused: the answer the claim would have had at once (its HTTP
    /// status, error code and message); failed: the request's 503.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<JobError>,
    /// Coupons issued: all the package's once done, else 0.
    pub coupons_issued: i64,
    /// Done: the coupons' ids, in the package's item order.
    pub coupon_ids: Vec<Uuid>,
    pub created_at: DateTime<Utc>,
    pub finished_at: Option<DateTime<Utc>>,
}

/// Why a job issued nothing.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct JobError {
    /// The HTTP status the same refusal answers at once: 404, 409, 410, 422 (503: failed).
    pub status: u16,
    /// `sold_out`, `per_user_limit`, `already_redeemed`, `package_not_active`, ...
    pub code: String,
    pub message: String,
}

const SELECT: &str = "SELECT id, package_sn, user_id, channel_id, code_batch_id, code_serial,
        status, error_status, error_code, error_message, coupon_ids, created_at, finished_at
   FROM package_jobs";

pub async fn read(
    client: &impl GenericClient,
    id: Uuid,
) -> Result<Option<PackageJobView>, tokio_postgres::Error> {
    let sql = format!("{SELECT} WHERE id = $1");
    Ok(client.query_opt(&sql, &[&id]).await?.as_ref().map(view))
}

fn view(r: &Row) -> PackageJobView {
    let error = r.get::<_, Option<String>>(8).map(|code| JobError {
        status: r
            .get::<_, Option<i16>>(7)
            .and_then(|s| u16::try_from(s).ok())
            .unwrap_or(0),
        code,
        message: r.get::<_, Option<String>>(9).unwrap_or_default(),
    });
    let coupon_ids: Vec<Uuid> = r.get(10);
    PackageJobView {
        job_id: r.get(0),
        package_sn: r.get(1),
        user_id: r.get(2),
        channel_id: r.get(3),
        code_batch_id: r.get(4),
        code_serial: r.get(5),
        status: r.get(6),
        error,
        coupons_issued: i64::try_from(coupon_ids.len()).unwrap_or(i64::MAX),
        coupon_ids,
        created_at: r.get(11),
        finished_at: r.get(12),
    }
}
