//! Order streams: what the coupons of confirmed orders cost their templates.

use deadpool_postgres::Transaction;
use uuid::Uuid;

use super::{Applied, ApplyError, coupons, decimal};
use crate::domain::projection::{Effect, Tally, order_effect};
use crate::store::{RecordedEvent, read_stream};

/// Applies an order stream's event, after any versions missing before it.
pub async fn apply(
    tx: &Transaction<'_>,
    tally: Tally,
    event: &RecordedEvent,
) -> Result<Applied, ApplyError> {
    let current = version(tx, tally, &event.stream_id).await?;
    if event.stream_version <= current {
        return Ok(Applied::AlreadyApplied);
    }
    let missing = i64::from(event.stream_version - 1 - current);
    if missing > 0 {
        for earlier in read_stream(&**tx, &event.stream_id, current, missing).await? {
            step(tx, tally, &earlier).await?;
        }
    }
    step(tx, tally, event).await?;
    let sql = "INSERT INTO projection_streams (projection, stream_id, version) VALUES ($1, $2, $3)
               ON CONFLICT (projection, stream_id) DO UPDATE SET version = EXCLUDED.version";
    let params: [&(dyn tokio_postgres::types::ToSql + Sync); 3] = [
        &tally.projection().as_str(),
        &event.stream_id,
        &event.stream_version,
    ];
    tx.execute(&tx.prepare_cached(sql).await?, &params).await?;
    Ok(Applied::Applied)
}

async fn version(
    tx: &Transaction<'_>,
    tally: Tally,
    stream_id: &str,
) -> Result<i32, tokio_postgres::Error> {
    let sql = "SELECT version FROM projection_streams
                WHERE projection = $1 AND stream_id = $2 FOR UPDATE";
    let row = tx
        .query_opt(
            &tx.prepare_cached(sql).await?,
            &[&tally.projection().as_str(), &stream_id],
        )
        .await?;
    Ok(row.map_or(0, |r| r.get(0)))
}

async fn step(tx: &Transaction<'_>, tally: Tally, event: &RecordedEvent) -> Result<(), ApplyError> {
    match order_effect(&event.decode()?) {
        Effect::Discounts(discounts) => {
            for (coupon_id, cents) in discounts {
                ensure_coupon(tx, tally, coupon_id).await?;
                let sql = "UPDATE projection_coupons SET locked_discount = $3
                            WHERE projection = $1 AND coupon_id = $2";
                let params: [&(dyn tokio_postgres::types::ToSql + Sync); 3] =
                    [&tally.projection().as_str(), &coupon_id, &decimal(cents)];
                tx.execute(&tx.prepare_cached(sql).await?, &params).await?;
            }
        }
        Effect::Confirmed(coupon_ids) => {
            let costs = coupon_ids.into_iter().map(|id| (id, None)).collect();
            add_cost(tx, tally, costs).await?;
        }
        Effect::Reversals(reversals) => {
            let costs = reversals
                .into_iter()
                .map(|(id, c)| (id, Some(-c)))
                .collect();
            add_cost(tx, tally, costs).await?;
        }
        _ => {}
    }
    Ok(())
}

/// The coupon's issue must be known before an order can cost its template:
/// if the projection has not seen it yet, it is read from the store.
async fn ensure_coupon(
    tx: &Transaction<'_>,
    tally: Tally,
    coupon_id: Uuid,
) -> Result<(), ApplyError> {
    if coupons::load(tx, tally, coupon_id).await?.is_none() {
        coupons::catch_up(tx, tally, coupon_id, None, 1).await?;
    }
    Ok(())
}

/// Adds to each coupon's template cost: the given cents, or (None) the
/// coupon's locked discount.
async fn add_cost(
    tx: &Transaction<'_>,
    tally: Tally,
    costs: Vec<(Uuid, Option<i64>)>,
) -> Result<(), ApplyError> {
    for (coupon_id, _) in &costs {
        ensure_coupon(tx, tally, *coupon_id).await?;
    }
    let ids: Vec<Uuid> = costs.iter().map(|c| c.0).collect();
    let amounts: Vec<Option<rust_decimal::Decimal>> =
        costs.iter().map(|c| c.1.map(decimal)).collect();
    let sql = "INSERT INTO template_totals (template_sn, issued, cost)
               SELECT c.template_sn, 0, sum(coalesce(d.amount, c.locked_discount))
                 FROM unnest($2::uuid[], $3::numeric[]) AS d (coupon_id, amount)
                 JOIN projection_coupons c ON c.projection = $1 AND c.coupon_id = d.coupon_id
                GROUP BY c.template_sn
               ON CONFLICT (template_sn) DO UPDATE
                 SET cost = template_totals.cost + EXCLUDED.cost";
    let params: [&(dyn tokio_postgres::types::ToSql + Sync); 3] =
        [&tally.projection().as_str(), &ids, &amounts];
    tx.execute(&tx.prepare_cached(sql).await?, &params).await?;
    Ok(())
}
