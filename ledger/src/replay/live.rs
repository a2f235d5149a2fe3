//! Reading the live tables, one row at a time, and comparing each with its
//! replayed row, which is taken out of the replay: what is left there at the
//! end was replayed but is not live. Rows that count nothing (an emptied
//! bucket, a zero claim count) are left out on both sides.

use std::collections::HashMap;
use std::fmt::Debug;
use std::hash::Hash;

use futures_util::{TryStreamExt, pin_mut};
use rust_decimal::Decimal;
use tokio_postgres::{GenericClient, Row};

use super::compare::Differences;
use super::fold::{Replay, ReplayedCoupon};
use super::tables::{
    BucketRow, Cents, ChannelRow, ClaimsRow, CouponRow, Fields, OrderRow, Present, RefundRow,
    TemplateRow, TotalsRow,
};

/// Compares every live table with `replay`, which it empties.
pub async fn compare(
    client: &impl GenericClient,
    replay: &mut Replay,
    out: &mut Differences,
) -> Result<(), tokio_postgres::Error> {
    let sql = "SELECT id, template_sn, user_id, status, order_id, issued_at, effective_at,
                      expires_at, channel_id, refund_from, version FROM coupons";
    let replayed = &mut replay.coupons;
    table(
        client,
        out,
        "coupons",
        sql,
        coupon,
        replayed,
        ReplayedCoupon::into_row,
    )
    .await?;
    let t = &mut replay.tables;
    let sql = "SELECT sn, name, kind, currency, terms, face_value, issue_begin, issue_end, total,
                      issued, per_user_limit, refund_policy, remind_days_before, status, version,
                      created_at FROM templates";
    table(
        client,
        out,
        "templates",
        sql,
        template,
        &mut t.templates,
        same,
    )
    .await?;
    let sql = "SELECT id, name, created_at FROM channels";
    table(client, out, "channels", sql, channel, &mut t.channels, same).await?;
    let sql = "SELECT template_sn, channel_id FROM template_channels";
    let present = |r: &Row| ((r.get(0), r.get(1)), Present {});
    table(
        client,
        out,
        "template_channels",
        sql,
        present,
        &mut t.template_channels,
        same,
    )
    .await?;
    let sql = "SELECT template_sn, user_id, claimed FROM user_claims WHERE claimed <> 0";
    let claims = |r: &Row| ((r.get(0), r.get(1)), ClaimsRow { claimed: r.get(2) });
    table(
        client,
        out,
        "user_claims",
        sql,
        claims,
        &mut t.user_claims,
        same,
    )
    .await?;
    // A lock that rolled back leaves no row; one still locking is not committed.
    let sql = "SELECT order_id, user_id, status, order_body, allocations, coupon_ids,
                      lock_expires_at, version FROM orders";
    table(client, out, "orders", sql, order, &mut t.orders, same).await?;
    let sql = "SELECT order_id, refund_id, seq, refund, created_at FROM refunds";
    table(client, out, "refunds", sql, refund, &mut t.refunds, same).await?;
    let sql = "SELECT user_id, status, count, face_value FROM balances
                WHERE count <> 0 OR face_value <> 0";
    table(client, out, "balances", sql, bucket, &mut t.balances, same).await?;
    let sql = "SELECT template_sn, status, count, face_value FROM template_stats
                WHERE count <> 0 OR face_value <> 0";
    table(
        client,
        out,
        "template_stats",
        sql,
        bucket,
        &mut t.template_stats,
        same,
    )
    .await?;
    let sql = "SELECT template_sn, issued, cost FROM template_totals";
    let totals = |r: &Row| {
        let row = TotalsRow {
            issued: r.get(1),
            cost: cents(r.get(2)),
        };
        (r.get(0), row)
    };
    table(
        client,
        out,
        "template_totals",
        sql,
        totals,
        &mut t.template_totals,
        same,
    )
    .await
}

/// Streams the rows of `sql` (no parameters), comparing each with the
/// replayed entry of the same key (made a row by `row_of`); then reports the
/// replayed entries left over.
async fn table<K, R, V>(
    client: &impl GenericClient,
    out: &mut Differences,
    name: &'static str,
    sql: &str,
    parse: impl Fn(&Row) -> (K, V),
    replayed: &mut HashMap<K, R>,
    row_of: impl Fn(R) -> V,
) -> Result<(), tokio_postgres::Error>
where
    K: Eq + Hash + Debug + Ord,
    V: Fields + PartialEq + Default,
{
    let rows = client.query_raw(sql, std::iter::empty::<i32>()).await?;
    pin_mut!(rows);
    while let Some(row) = rows.try_next().await? {
        let (key, live) = parse(&row);
        let replayed_row = replayed.remove(&key).map(&row_of);
        out.row(name, &key, Some(&live), replayed_row.as_ref());
    }
    // Sorted so that a report lists them in a stable order.
    let mut left: Vec<(K, R)> = replayed.drain().collect();
    left.sort_by(|a, b| a.0.cmp(&b.0));
    for (key, entry) in left {
        out.row(name, &key, None, Some(&row_of(entry)));
    }
    Ok(())
}

/// The replayed row is the compared row.
fn same<V>(row: V) -> V {
    row
}

fn coupon(r: &Row) -> (uuid::Uuid, CouponRow) {
    let row = CouponRow {
        template_sn: r.get(1),
        user_id: r.get(2),
        status: r.get(3),
        order_id: r.get(4),
        issued_at: r.get(5),
        effective_at: r.get(6),
        expires_at: r.get(7),
        channel_id: r.get(8),
        refund_from: r.get(9),
        version: r.get(10),
    };
    (r.get(0), row)
}

fn template(r: &Row) -> (String, TemplateRow) {
    let row = TemplateRow {
        name: r.get(1),
        kind: r.get(2),
        currency: r.get(3),
        terms: r.get(4),
        face_value: cents(r.get(5)),
        issue_begin: r.get(6),
        issue_end: r.get(7),
        total: r.get(8),
        issued: r.get(9),
        per_user_limit: r.get(10),
        refund_policy: r.get(11),
        remind_days_before: r.get(12),
        status: r.get(13),
        version: r.get(14),
        created_at: r.get(15),
    };
    (r.get(0), row)
}

fn channel(r: &Row) -> (uuid::Uuid, ChannelRow) {
    let row = ChannelRow {
        name: r.get(1),
        created_at: r.get(2),
    };
    (r.get(0), row)
}

fn order(r: &Row) -> (String, OrderRow) {
    let row = OrderRow {
        user_id: r.get(1),
        status: r.get(2),
        order_body: r.get(3),
        allocations: r.get(4),
        coupon_ids: r.get(5),
        lock_expires_at: r.get(6),
        version: r.get(7),
    };
    (r.get(0), row)
}

fn refund(r: &Row) -> ((String, String), RefundRow) {
    let row = RefundRow {
        seq: r.get(2),
        refund: r.get(3),
        created_at: r.get(4),
    };
    ((r.get(0), r.get(1)), row)
}

fn bucket(r: &Row) -> ((String, String), BucketRow) {
    let row = BucketRow {
        count: r.get(2),
        face_value: cents(r.get(3)),
    };
    ((r.get(0), r.get(1)), row)
}

fn cents(d: Decimal) -> Cents {
    Cents((d * Decimal::ONE_HUNDRED).try_into().unwrap_or(i64::MAX))
}
