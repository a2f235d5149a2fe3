//! What the API serves from the projections, with the position each reflects.

use std::collections::BTreeMap;

use rust_decimal::Decimal;
use serde::Serialize;
use tokio_postgres::GenericClient;
use utoipa::ToSchema;

use crate::domain::coupon_state::CouponStatus;
use crate::domain::money::serialize_two_places;
use crate::domain::projection::Projection;

/// How many coupons are in one status, and their face value.
#[derive(Clone, Debug, Default, PartialEq, Serialize, ToSchema)]
pub struct Bucket {
    pub count: i64,
    #[schema(value_type = String, example = "20.00")]
    #[serde(serialize_with = "serialize_two_places")]
    pub face_value: Decimal,
}

/// Where a projection stands: the position of the last event it applied
/// and how many events it has been given (0 and 0 before the first).
#[derive(Clone, Debug, Default, PartialEq, Serialize, ToSchema)]
pub struct Reflects {
    pub position: i64,
    pub applied: i64,
}

#[derive(Clone, Debug, PartialEq, Serialize, ToSchema)]
pub struct Balance {
    pub user_id: String,
    /// Every status (`unused`, `locked`, `used`, `refunded`, `expired`, `void`).
    pub by_status: BTreeMap<String, Bucket>,
    pub reflects: Reflects,
}

#[derive(Clone, Debug, PartialEq, Serialize, ToSchema)]
pub struct TemplateStats {
    pub sn: String,
    pub issued: i64,
    pub locked: i64,
    pub used: i64,
    pub refunded: i64,
    pub expired: i64,
    /// Coupons in status `void` (the status's one word).
    pub void: i64,
    /// Face value of unused and locked coupons.
    #[schema(value_type = String, example = "2000.00")]
    #[serde(serialize_with = "serialize_two_places")]
    pub liability: Decimal,
    /// Discounts of used coupons, net of refund reversals.
    #[schema(value_type = String, example = "120.00")]
    #[serde(serialize_with = "serialize_two_places")]
    pub cost: Decimal,
    pub by_status: BTreeMap<String, Bucket>,
    pub reflects: Reflects,
}

pub async fn balance(
    client: &impl GenericClient,
    user_id: &str,
) -> Result<Balance, tokio_postgres::Error> {
    let sql = "SELECT status, count, face_value FROM balances WHERE user_id = $1";
    let rows = client.query(sql, &[&user_id]).await?;
    Ok(Balance {
        user_id: user_id.to_owned(),
        by_status: buckets(&rows),
        reflects: reflects(client, Projection::Balances).await?,
    })
}

pub async fn template_stats(
    client: &impl GenericClient,
    sn: &str,
) -> Result<TemplateStats, tokio_postgres::Error> {
    let sql = "SELECT status, count, face_value FROM template_stats WHERE template_sn = $1";
    let by_status = buckets(&client.query(sql, &[&sn]).await?);
    let sql = "SELECT issued, cost FROM template_totals WHERE template_sn = $1";
    let totals = client.query_opt(sql, &[&sn]).await?;
    let (issued, cost) = totals.map_or((0, Decimal::ZERO), |r| (r.get(0), r.get(1)));
    let count = |s: CouponStatus| by_status[s.as_str()].count;
    let value = |s: CouponStatus| by_status[s.as_str()].face_value;
    Ok(TemplateStats {
        sn: sn.to_owned(),
        issued,
        locked: count(CouponStatus::Locked),
        used: count(CouponStatus::Used),
        refunded: count(CouponStatus::Refunded),
        expired: count(CouponStatus::Expired),
        void: count(CouponStatus::Void),
        liability: value(CouponStatus::Unused) + value(CouponStatus::Locked),
        cost,
        reflects: reflects(client, Projection::TemplateStats).await?,
        by_status,
    })
}

/// Every status, zero where no row says otherwise.
fn buckets(rows: &[tokio_postgres::Row]) -> BTreeMap<String, Bucket> {
    let mut out: BTreeMap<String, Bucket> = CouponStatus::ALL
        .iter()
        .map(|s| (s.as_str().to_owned(), Bucket::default()))
        .collect();
    for row in rows {
        let status: String = row.get(0);
        out.insert(
            status,
            Bucket {
                count: row.get(1),
                face_value: row.get(2),
            },
        );
    }
    out
}

async fn reflects(
    client: &impl GenericClient,
    projection: Projection,
) -> Result<Reflects, tokio_postgres::Error> {
    let sql = "SELECT position, applied FROM projection_positions WHERE projection = $1";
    let row = client.query_opt(sql, &[&projection.as_str()]).await?;
    Ok(row.map_or_else(Reflects::default, |r| Reflects {
        position: r.get(0),
        applied: r.get(1),
    }))
}
