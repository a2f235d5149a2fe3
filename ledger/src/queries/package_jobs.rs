//! Package jobs as their callers see them (docs/design.md §13): where a large
//! package's claim stands, why it was refused, and its coupons once done.

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use tokio_postgres::{GenericClient, Row};
use utoipa::ToSchema;
use uuid::Uuid;

use crate::db::Named;
use crate::domain::ids::ChannelId;
use crate::domain::package_job::PackageJobStatus;
use crate::queries::page::Bounds;

/// A package claim run as a job.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct PackageJobView {
    pub job_id: Uuid,
    pub package_sn: String,
    pub user_id: String,
    /// The channel that asked; absent for the service.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<Uuid>)]
    pub channel_id: Option<ChannelId>,
    /// The redemption code that asked (its batch and serial), for a package's code.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub code_batch_id: Option<Uuid>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub code_serial: Option<i64>,
    /// `refused`: nothing was issued (see `error`); `failed`: the claim
    /// could not be kept (an item's template stopped or voided after the
    /// 202, or its request answered 503). Either gave its counts back.
    pub status: PackageJobStatus,
    /// Refused: the answer the claim would have had at once (its HTTP
    /// status, error code and message); failed: 422 `template_not_active`
    /// naming the template, or the request's 503.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<JobError>,
    /// Coupons issued: all the package's once done, else 0.
    pub coupons_issued: i64,
    /// Done: the coupons' ids, in the package's item order, one page of
    /// them (`?offset=&limit=`, at most [`MAX_COUPON_PAGE`]).
    pub coupon_ids: Vec<Uuid>,
    /// Where the next page of `coupon_ids` starts, while one follows.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub next_offset: Option<i64>,
    pub created_at: DateTime<Utc>,
    pub finished_at: Option<DateTime<Utc>>,
}

/// Why a job issued nothing.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct JobError {
    /// The HTTP status the same refusal answers at once: 404, 409, 410, 422 (503: failed).
    pub status: u16,
    /// `sold_out`, `already_redeemed`, `channel_disabled`, `template_not_active`, ...
    pub code: String,
    pub message: String,
}

/// Coupon ids per page: a 10,000-coupon job's ids are 370 KB of JSON.
pub const MAX_COUPON_PAGE: i64 = 1_000;

/// A job's first page of coupons (what a claim's answer shows).
pub const FIRST_PAGE: Bounds = Bounds {
    offset: 0,
    limit: MAX_COUPON_PAGE,
};

/// `coupon_ids[offset + 1 : offset + limit]` (Postgres arrays count from
/// 1; a slice past the end is empty), and how many there are in all.
const SELECT: &str = "SELECT id, package_sn, user_id, channel_id, code_batch_id, code_serial,
        status, error_status, error_code, error_message,
        coalesce(coupon_ids[($2::bigint + 1)::int : ($2::bigint + $3::bigint)::int], '{}'),
        created_at, finished_at, cardinality(coupon_ids)::bigint
   FROM package_jobs";

/// The job, with the page (offset, limit) of its coupon ids.
pub async fn read(
    client: &impl GenericClient,
    id: Uuid,
    Bounds { offset, limit }: Bounds,
) -> Result<Option<PackageJobView>, tokio_postgres::Error> {
    let limit = limit.clamp(1, MAX_COUPON_PAGE);
    // A job holds at most 10,000 coupons: past that every page is empty,
    // and the subscripts stay within Postgres' int.
    let offset = offset.clamp(0, 1_000_000);
    let sql = format!("{SELECT} WHERE id = $1");
    let row = client.query_opt(&sql, &[&id, &offset, &limit]).await?;
    row.as_ref().map(|r| view(r, offset)).transpose()
}

fn view(r: &Row, offset: i64) -> Result<PackageJobView, tokio_postgres::Error> {
    let error = r.get::<_, Option<String>>(8).map(|code| JobError {
        status: r
            .get::<_, Option<i16>>(7)
            .and_then(|s| u16::try_from(s).ok())
            .unwrap_or(0),
        code,
        message: r.get::<_, Option<String>>(9).unwrap_or_default(),
    });
    let coupon_ids: Vec<Uuid> = r.get(10);
    let total: i64 = r.get(13);
    let end = offset + i64::try_from(coupon_ids.len()).unwrap_or(0);
    Ok(PackageJobView {
        job_id: r.get(0),
        package_sn: r.get(1),
        user_id: r.get(2),
        channel_id: r.get(3),
        code_batch_id: r.get(4),
        code_serial: r.get(5),
        status: r.try_get::<_, Named<_>>(6)?.0,
        error,
        coupons_issued: total,
        next_offset: (end < total).then_some(end),
        coupon_ids,
        created_at: r.get(11),
        finished_at: r.get(12),
    })
}
