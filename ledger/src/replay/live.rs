//! Reading the live tables, one row at a time, and comparing each with its
//! replayed row, which is taken out of the replay: what is left there at the
//! end was replayed but is not live. Rows that count nothing (an emptied
//! bucket, a zero claim count) are left out on both sides. A pass (or a
//! bucket of users) reads only its own live rows: Postgres filters them by
//! the same partition as the events (see `partition`).

use std::fmt::Debug;
use std::hash::Hash;

use chrono::{DateTime, Utc};
use futures_util::{TryStreamExt, pin_mut};
use rust_decimal::Decimal;
use tokio_postgres::Transaction;
use tokio_postgres::binary_copy::{BinaryCopyOutRow, BinaryCopyOutStream};
use tokio_postgres::types::Type;
use uuid::Uuid;

use super::compare::Differences;
use super::partition::Partitions;
use super::tables::{
    BucketRow, Cents, ClaimsRow, Counts, CouponRow, Fields, Map, Names, NamesOver, OrderRow,
    OrderRows, RefundRow, ReplayedCoupon, Sym, Tables,
};
use crate::domain::coupon_state::CouponStatus;
use crate::domain::projection::Projection;

/// Compares pass `part`'s coupons, orders and refunds (`rows`, which it
/// empties) with the live rows of that pass.
pub async fn compare_pass(
    tx: &Transaction<'_>,
    (partitions, part): (Partitions, u32),
    (names, coupons): (&Names, &Map<Uuid, ReplayedCoupon>),
    rows: &mut OrderRows,
    out: &mut Differences,
) -> Result<(), tokio_postgres::Error> {
    let filter = partitions.coupons(part);
    let mut c = Live {
        tx,
        out,
        filter: filter.as_deref(),
    };
    c.coupons(names, coupons).await?;
    let filter = partitions.orders(part);
    let mut c = Live {
        tx,
        out: c.out,
        filter: filter.as_deref(),
    };
    c.table("orders", ORDERS, plain(order), &mut rows.orders, debug)
        .await?;
    c.table("refunds", REFUNDS, plain(refund), &mut rows.refunds, debug)
        .await
}

/// Compares the templates' and channels' tables, which every pass added
/// to, with `t`'s (which it empties).
pub async fn compare_templates(
    tx: &Transaction<'_>,
    t: &mut Tables,
    out: &mut Differences,
) -> Result<(), tokio_postgres::Error> {
    let mut c = Live::unfiltered(tx, out);
    super::templates_live::compare(&mut c, t).await?;
    super::keys_live::compare(&mut c, &mut t.api_keys).await
}

/// Compares the per-template status buckets (`template_stats`), which
/// every pass added to, with `t`'s (which it empties).
pub async fn compare_template_stats(
    tx: &Transaction<'_>,
    t: &mut Tables,
    out: &mut Differences,
) -> Result<(), tokio_postgres::Error> {
    let mut c = Live::unfiltered(tx, out);
    let show = |k: &(String, CouponStatus)| format!("{:?}", (k.0.as_str(), k.1.as_str()));
    let stats = &mut t.template_stats;
    c.table(
        Projection::TemplateStats.table(),
        TEMPLATE_STATS,
        template_bucket,
        stats,
        show,
    )
    .await
}

/// Compares a bucket of users' claims and balances with `counts`; `filter`
/// (SQL) keeps the bucket's live rows.
pub async fn compare_counts(
    tx: &Transaction<'_>,
    counts: Counts<'_>,
    filter: Option<&str>,
    out: &mut Differences,
) -> Result<(), tokio_postgres::Error> {
    let Counts {
        names,
        mut user_claims,
        mut balances,
    } = counts;
    let mut c = Live { tx, out, filter };
    let claims = |r: &Line| {
        let (template, user) = (r.try_get(0)?, r.try_get(1)?);
        let key = match (names.get(template), names.get(user)) {
            (Some(t), Some(u)) => Key::Known((t, u)),
            _ => Key::Unknown(format!("{:?}", (template, user))),
        };
        Ok((
            key,
            ClaimsRow {
                claimed: r.try_get(2)?,
            },
        ))
    };
    let show = |k: &(Sym, Sym)| format!("{:?}", (names.name(k.0), names.name(k.1)));
    c.table("user_claims", USER_CLAIMS, claims, &mut user_claims, show)
        .await?;
    let show = |k: &(Sym, CouponStatus)| format!("{:?}", (names.name(k.0), k.1.as_str()));
    let bucket = |r: &Line| user_bucket(&names, r);
    c.table(
        Projection::Balances.table(),
        BALANCES,
        bucket,
        &mut balances,
        show,
    )
    .await
}

/// A live row's key: one the replay may hold, or one it cannot (it names a
/// user or template the log never mentioned), shown as it reads.
pub(super) enum Key<K> {
    Known(K),
    Unknown(String),
}

pub(super) type Parsed<K, V> = Result<(Key<K>, V), tokio_postgres::Error>;

/// A parser whose keys are the replay's own (ids, names, plain strings).
pub(super) fn plain<K, V>(
    parse: impl Fn(&Line) -> Result<(K, V), tokio_postgres::Error>,
) -> impl Fn(&Line) -> Parsed<K, V> {
    move |r| parse(r).map(|(k, v)| (Key::Known(k), v))
}

/// A key shown as it is.
pub(super) fn debug<K: Debug>(key: &K) -> String {
    format!("{key:?}")
}

/// A live table: the query (copied out in binary) and its column types.
pub(super) type Query = (&'static str, &'static [Type]);

// Hot and cold alike (docs/design.md §16): a coupon is in one of the two.
const COUPONS: Query = (
    "SELECT id, template_sn, user_id, status, order_id, issued_at, effective_at, expires_at,
            channel_id, refund_from, version, job_id, job_line FROM coupons
     UNION ALL
     SELECT id, template_sn, user_id, status, order_id, issued_at, effective_at, expires_at,
            channel_id, refund_from, version, job_id, job_line FROM coupons_archive",
    &[
        Type::UUID,
        Type::TEXT,
        Type::TEXT,
        Type::TEXT,
        Type::TEXT,
        Type::TIMESTAMPTZ,
        Type::TIMESTAMPTZ,
        Type::TIMESTAMPTZ,
        Type::UUID,
        Type::UUID,
        Type::INT4,
        Type::UUID,
        Type::INT8,
    ],
);
const COUPON_IDS: Query = (
    "SELECT id FROM coupons UNION ALL SELECT id FROM coupons_archive",
    &[Type::UUID],
);
const USER_CLAIMS: Query = (
    "SELECT template_sn, user_id, claimed FROM user_claims WHERE claimed <> 0",
    &[Type::TEXT, Type::TEXT, Type::INT4],
);
// A lock that rolled back leaves no row; one still locking is not committed.
const ORDERS: Query = (
    "SELECT order_id, user_id, status, order_body, allocations, coupon_ids, lock_expires_at,
            version, budget_charges FROM orders",
    &[
        Type::TEXT,
        Type::TEXT,
        Type::TEXT,
        Type::JSONB,
        Type::JSONB,
        Type::UUID_ARRAY,
        Type::TIMESTAMPTZ,
        Type::INT4,
        Type::JSONB,
    ],
);
const REFUNDS: Query = (
    "SELECT order_id, refund_id, seq, refund, created_at FROM refunds",
    &[
        Type::TEXT,
        Type::TEXT,
        Type::INT4,
        Type::JSONB,
        Type::TIMESTAMPTZ,
    ],
);
const BALANCES: Query = (
    "SELECT user_id, status, count, face_value FROM balances WHERE count <> 0 OR face_value <> 0",
    &[Type::TEXT, Type::TEXT, Type::INT8, Type::NUMERIC],
);
const TEMPLATE_STATS: Query = (
    "SELECT template_sn, status, count, face_value FROM template_stats
      WHERE count <> 0 OR face_value <> 0",
    &[Type::TEXT, Type::TEXT, Type::INT8, Type::NUMERIC],
);

/// One row of a live table, as copied out.
pub(super) type Line = BinaryCopyOutRow;

/// Copies live tables out of `tx`, the rows `filter` (SQL) keeps (none:
/// all), reporting into `out`.
pub(super) struct Live<'t, 'o, 'f> {
    tx: &'t Transaction<'t>,
    out: &'o mut Differences,
    filter: Option<&'f str>,
}

impl<'t, 'o, 'f> Live<'t, 'o, 'f> {
    /// Copies every row of each table (no partition filter).
    pub(super) fn unfiltered(tx: &'t Transaction<'t>, out: &'o mut Differences) -> Self {
        Live {
            tx,
            out,
            filter: None,
        }
    }

    /// The rows of `query` the filter keeps, copied out in binary.
    async fn rows(
        &self,
        (sql, types): Query,
    ) -> Result<BinaryCopyOutStream, tokio_postgres::Error> {
        let copy = match self.filter {
            Some(filter) => format!(
                "COPY (SELECT * FROM ({sql}) AS live WHERE {filter}) TO STDOUT (FORMAT binary)"
            ),
            None => format!("COPY ({sql}) TO STDOUT (FORMAT binary)"),
        };
        Ok(BinaryCopyOutStream::new(
            self.tx.copy_out(&copy).await?,
            types,
        ))
    }

    /// Streams the rows of `query`, comparing each with the replayed row of
    /// the same key; then reports the replayed rows left over. `show` prints
    /// a replayed key as a live one reads.
    pub(super) async fn table<K, V>(
        &mut self,
        name: &'static str,
        query: Query,
        parse: impl Fn(&Line) -> Parsed<K, V>,
        replayed: &mut Map<K, V>,
        show: impl Fn(&K) -> String,
    ) -> Result<(), tokio_postgres::Error>
    where
        K: Eq + Hash + Ord,
        V: Fields + PartialEq + Default,
    {
        let rows = self.rows(query).await?;
        pin_mut!(rows);
        while let Some(row) = rows.try_next().await? {
            match parse(&row)? {
                (Key::Known(key), live) => {
                    let replayed_row = replayed.remove(&key);
                    self.out
                        .row(name, &show(&key), Some(&live), replayed_row.as_ref());
                }
                (Key::Unknown(key), live) => self.out.row(name, &key, Some(&live), None),
            }
        }
        self.left_over(name, replayed, show);
        Ok(())
    }

    /// The coupons: like [`Live::table`], but read-only (the buckets of
    /// users count the last pass's coupons meanwhile), and a live row that
    /// matches its replayed coupon is compared in place, never copied.
    async fn coupons(
        &mut self,
        names: &Names,
        replayed: &Map<Uuid, ReplayedCoupon>,
    ) -> Result<(), tokio_postgres::Error> {
        let rows = self.rows(COUPONS).await?;
        pin_mut!(rows);
        let mut met = 0;
        while let Some(row) = rows.try_next().await? {
            let id: Uuid = row.try_get(0)?;
            let replayed_coupon = replayed.get(&id);
            met += usize::from(replayed_coupon.is_some());
            if let Some(c) = replayed_coupon
                && c.matches(names, &row)?
            {
                continue;
            }
            let (_, live) = coupon(&row)?;
            let replayed_row = replayed_coupon.map(|c| c.row(names));
            self.out
                .row("coupons", &debug(&id), Some(&live), replayed_row.as_ref());
        }
        // Live ids are unique (the primary key): if every replayed coupon
        // was met, none is missing.
        if met < replayed.len() {
            self.missing_coupons(names, replayed).await?;
        }
        Ok(())
    }

    /// Reports the replayed coupons that have no live row, but for those
    /// that ended before the purge horizon: their rows were purged.
    async fn missing_coupons(
        &mut self,
        names: &Names,
        replayed: &Map<Uuid, ReplayedCoupon>,
    ) -> Result<(), tokio_postgres::Error> {
        let horizon = crate::cold::purge::horizon(self.tx).await?;
        let mut live: Map<Uuid, ()> = Map::default();
        let rows = self.rows(COUPON_IDS).await?;
        pin_mut!(rows);
        while let Some(row) = rows.try_next().await? {
            live.insert(row.try_get(0)?, ());
        }
        let mut missing: Vec<(&Uuid, &ReplayedCoupon)> = replayed
            .iter()
            .filter(|(id, c)| !live.contains_key(id) && !c.purged_before(horizon))
            .collect();
        missing.sort_by_key(|(id, _)| **id);
        for (id, c) in missing {
            self.out
                .row("coupons", &debug(id), None, Some(&c.row(names)));
        }
        Ok(())
    }

    /// Reports the replayed rows no live row claimed, in key order.
    fn left_over<K: Ord, V: Fields + PartialEq + Default>(
        &mut self,
        name: &'static str,
        replayed: &mut Map<K, V>,
        show: impl Fn(&K) -> String,
    ) {
        let mut left: Vec<(K, V)> = replayed.drain().collect();
        left.sort_by(|a, b| a.0.cmp(&b.0));
        for (key, row) in left {
            self.out.row(name, &show(&key), None, Some(&row));
        }
    }
}

impl ReplayedCoupon {
    /// Whether the live `coupons` row (in `COUPONS`' columns) is this coupon's.
    fn matches(&self, names: &Names, r: &Line) -> Result<bool, tokio_postgres::Error> {
        Ok(r.try_get::<&str>(1)? == names.name(self.template)
            && r.try_get::<&str>(2)? == names.name(self.user)
            && r.try_get::<&str>(3)? == self.state.status.as_str()
            && r.try_get::<Option<&str>>(4)? == self.state.order_id.as_deref()
            && r.try_get::<DateTime<Utc>>(5)? == self.issued_at
            && r.try_get::<DateTime<Utc>>(6)? == self.effective_at
            && r.try_get::<DateTime<Utc>>(7)? == self.state.expires_at
            && r.try_get::<Option<Uuid>>(8)? == self.channel_id
            && r.try_get::<Option<Uuid>>(9)? == self.refund_from
            && r.try_get::<i32>(10)? == self.version
            && r.try_get::<Option<Uuid>>(11)? == self.job_id
            && r.try_get::<Option<i64>>(12)? == self.job_line)
    }
}

fn coupon(r: &Line) -> Result<(Uuid, CouponRow), tokio_postgres::Error> {
    let row = CouponRow {
        template_sn: r.try_get(1)?,
        user_id: r.try_get(2)?,
        status: r.try_get(3)?,
        order_id: r.try_get(4)?,
        issued_at: r.try_get(5)?,
        effective_at: r.try_get(6)?,
        expires_at: r.try_get(7)?,
        channel_id: r.try_get(8)?,
        refund_from: r.try_get(9)?,
        version: r.try_get(10)?,
        job_id: r.try_get(11)?,
        job_line: r.try_get(12)?,
    };
    Ok((r.try_get(0)?, row))
}

fn order(r: &Line) -> Result<(String, OrderRow), tokio_postgres::Error> {
    let row = OrderRow {
        user_id: r.try_get(1)?,
        status: r.try_get(2)?,
        order_body: r.try_get(3)?,
        allocations: r.try_get(4)?,
        coupon_ids: r.try_get(5)?,
        lock_expires_at: r.try_get(6)?,
        version: r.try_get(7)?,
        budget_charges: r.try_get(8)?,
    };
    Ok((r.try_get(0)?, row))
}

fn refund(r: &Line) -> Result<((String, String), RefundRow), tokio_postgres::Error> {
    let row = RefundRow {
        seq: r.try_get(2)?,
        refund: r.try_get(3)?,
        created_at: r.try_get(4)?,
    };
    Ok(((r.try_get(0)?, r.try_get(1)?), row))
}

/// A user's status bucket (`balances`).
fn user_bucket(names: &NamesOver<'_>, r: &Line) -> Parsed<(Sym, CouponStatus), BucketRow> {
    let (user, status): (&str, &str) = (r.try_get(0)?, r.try_get(1)?);
    let key = match (names.get(user), CouponStatus::parse(status)) {
        (Some(u), Some(s)) => Key::Known((u, s)),
        _ => Key::Unknown(format!("{:?}", (user, status))),
    };
    Ok((key, bucket_row(r)?))
}

/// A template's status bucket (`template_stats`).
fn template_bucket(r: &Line) -> Parsed<(String, CouponStatus), BucketRow> {
    let (sn, status): (&str, &str) = (r.try_get(0)?, r.try_get(1)?);
    let key = match CouponStatus::parse(status) {
        Some(s) => Key::Known((sn.to_owned(), s)),
        None => Key::Unknown(format!("{:?}", (sn, status))),
    };
    Ok((key, bucket_row(r)?))
}

fn bucket_row(r: &Line) -> Result<BucketRow, tokio_postgres::Error> {
    Ok(BucketRow {
        count: r.try_get(2)?,
        face_value: cents(r.try_get(3)?),
    })
}

pub(super) fn cents(d: Decimal) -> Cents {
    Cents((d * Decimal::ONE_HUNDRED).try_into().unwrap_or(i64::MAX))
}
