//! A template's history (`GET /v1/templates/{sn}/history`): its coupons
//! counted by issue time, each bucket split by what has become of them.
//!
//! Read from the `coupons` write model rather than the events: a coupon's
//! row carries its template, issue instant and status, and the index
//! `coupons_template_status_issued` (V19) answers the range with one
//! descent per status, however many coupons the template has outside it.
//! The events would need a join from each coupon's stream to its template.

use chrono::{DateTime, Utc};
use chrono_tz::Tz;
use serde::Serialize;
use tokio_postgres::GenericClient;
use utoipa::ToSchema;

use crate::domain::coupon_state::CouponStatus;
use crate::domain::history::{Buckets, HistoryBucket};
use crate::domain::ids::TemplateSn;

/// A template's coupons over time: every bucket from `from` to `to`, those
/// without coupons included (zeros), oldest first.
#[derive(Serialize, ToSchema)]
pub struct TemplateHistory {
    pub template_sn: String,
    /// `minute`, `hour` or `day`, cut in `time_zone`.
    pub bucket: String,
    /// The business time zone (`LEDGER_TZ`) the buckets are cut in.
    pub time_zone: String,
    /// The first bucket's start (`from` rounded down to its bucket).
    pub from: DateTime<Utc>,
    /// Where the last bucket ends (exclusive): `to` as asked, so the last
    /// bucket may be partial.
    pub to: DateTime<Utc>,
    pub buckets: Vec<HistoryBucket>,
}

/// Coupons of `sn` issued in each of `buckets` (the template must exist).
pub async fn history(
    client: &impl GenericClient,
    sn: &TemplateSn,
    buckets: &Buckets,
    tz: Tz,
) -> Result<TemplateHistory, tokio_postgres::Error> {
    // `status = ANY(every status)` filters nothing: it lets the index be
    // walked per status, straight to the range, instead of end to end.
    // Hot and cold coupons alike (docs/design.md §16): the history counts
    // every coupon issued, wherever it lives now.
    let sql = "SELECT width_bucket(issued_at, $2::timestamptz[]), status, count(*)
                 FROM (SELECT issued_at, status FROM coupons
                        WHERE template_sn = $1 AND status = ANY($3::text[])
                          AND issued_at >= $4 AND issued_at < $5
                       UNION ALL
                       SELECT issued_at, status FROM coupons_archive
                        WHERE template_sn = $1 AND status = ANY($3::text[])
                          AND issued_at >= $4 AND issued_at < $5) c
                GROUP BY 1, 2";
    let statuses: Vec<&str> = CouponStatus::ALL.iter().map(|s| s.as_str()).collect();
    let first = buckets.starts.first().copied().unwrap_or(buckets.to);
    let rows = client
        .query(
            sql,
            &[
                &sn.as_str(),
                &buckets.starts,
                &statuses,
                &first,
                &buckets.to,
            ],
        )
        .await?;
    let mut out: Vec<HistoryBucket> = buckets
        .starts
        .iter()
        .map(|s| HistoryBucket::empty(*s))
        .collect();
    for row in rows {
        // width_bucket numbers the buckets from 1; the range keeps it in bounds.
        let index = usize::try_from(row.get::<_, i32>(0) - 1).ok();
        let bucket = index.and_then(|i| out.get_mut(i));
        let crate::db::Named::<CouponStatus>(status) = row.try_get(1)?;
        if let Some(bucket) = bucket {
            bucket.add(status, row.get(2));
        }
    }
    Ok(TemplateHistory {
        template_sn: sn.as_str().to_owned(),
        bucket: buckets.bucket.as_str().to_owned(),
        time_zone: tz.name().to_owned(),
        from: first,
        to: buckets.to,
        buckets: out,
    })
}
