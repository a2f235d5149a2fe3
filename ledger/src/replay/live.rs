//! Reading the live tables into [`Tables`] (rows that count nothing, such
//! as an emptied bucket, are left out on both sides).

use futures_util::{TryStreamExt, pin_mut};
use rust_decimal::Decimal;
use tokio_postgres::{GenericClient, Row};

use super::tables::{BucketRow, CouponRow, OrderRow, Tables, TemplateRow, TotalsRow};

pub async fn read(client: &impl GenericClient) -> Result<Tables, tokio_postgres::Error> {
    let mut t = Tables::default();
    for_each(client, "SELECT id, status, version FROM coupons", |r| {
        t.coupons.insert(
            r.get(0),
            CouponRow {
                status: r.get(1),
                version: r.get(2),
            },
        );
    })
    .await?;
    for_each(
        client,
        "SELECT sn, status, total, issued, version FROM templates",
        |r| {
            let row = TemplateRow {
                status: r.get(1),
                total: r.get(2),
                issued: r.get(3),
                version: r.get(4),
            };
            t.templates.insert(r.get(0), row);
        },
    )
    .await?;
    for_each(
        client,
        "SELECT template_sn, user_id, claimed FROM user_claims WHERE claimed <> 0",
        |r| {
            t.user_claims.insert((r.get(0), r.get(1)), r.get(2));
        },
    )
    .await?;
    // An order whose lock rolled back leaves no row; one still locking is not committed.
    for_each(
        client,
        "SELECT order_id, status, version FROM orders",
        |r| {
            t.orders.insert(
                r.get(0),
                OrderRow {
                    status: r.get(1),
                    version: r.get(2),
                },
            );
        },
    )
    .await?;
    for_each(
        client,
        "SELECT user_id, status, count, face_value FROM balances",
        |r| {
            insert_bucket(&mut t.balances, r);
        },
    )
    .await?;
    for_each(
        client,
        "SELECT template_sn, status, count, face_value FROM template_stats",
        |r| {
            insert_bucket(&mut t.template_stats, r);
        },
    )
    .await?;
    for_each(
        client,
        "SELECT template_sn, issued, cost FROM template_totals",
        |r| {
            let row = TotalsRow {
                issued: r.get(1),
                cost: cents(r.get(2)),
            };
            t.template_totals.insert(r.get(0), row);
        },
    )
    .await?;
    Ok(t)
}

fn insert_bucket(map: &mut std::collections::HashMap<(String, String), BucketRow>, r: &Row) {
    let row = BucketRow {
        count: r.get(2),
        face_value: cents(r.get(3)),
    };
    if row != BucketRow::default() {
        map.insert((r.get(0), r.get(1)), row);
    }
}

fn cents(d: Decimal) -> i64 {
    (d * Decimal::ONE_HUNDRED).try_into().unwrap_or(i64::MAX)
}

/// Streams the rows of `sql` (no parameters) without holding them all.
async fn for_each(
    client: &impl GenericClient,
    sql: &str,
    mut f: impl FnMut(&Row),
) -> Result<(), tokio_postgres::Error> {
    let rows = client.query_raw(sql, std::iter::empty::<i32>()).await?;
    pin_mut!(rows);
    while let Some(row) = rows.try_next().await? {
        f(&row);
    }
    Ok(())
}
