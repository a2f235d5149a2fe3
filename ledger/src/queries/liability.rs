//! Liability as of an instant, from the events alone (never the live
//! tables): the newest liability snapshot that holds only events at or
//! before the instant, then the events after it that occurred by then,
//! folded by `domain::liability`. The sealer builds a snapshot per seal
//! checkpoint ([`build_next_snapshot`]), each from the one before and the
//! checkpoint's own events, so a report folds at most about one
//! checkpoint's worth of events plus the unsealed tail.
//!
//! Events are read in the store's order, (tx_id, position), in keyset
//! pages; a page's coupons and orders that began before the snapshot are
//! looked up by their streams first (their events up to the snapshot).

use chrono::{DateTime, Utc};
use chrono_tz::Tz;
use rust_decimal::Decimal;
use tokio_postgres::{Client, GenericClient, Transaction};

use crate::domain::coupon_state::CouponChange;
use crate::domain::events::TemplateCreated;
use crate::domain::ids::ChannelId;
use crate::domain::ledger_event::{DecodeError, EventType, LedgerEvent};
use crate::domain::liability::{
    By, GroupKey, Liability, LiabilityFold, Needs, TemplateShops, Totals,
};
use crate::domain::stream::{Stream, StreamKind, UnknownStream};
use crate::store::GlobalCursor;

/// Events per page read.
const PAGE: i64 = 10_000;
/// After every event: the end of the tail.
const END: GlobalCursor = GlobalCursor {
    tx_id: i64::MAX,
    position: i64::MAX,
};

#[derive(Debug, thiserror::Error)]
pub enum LiabilityError {
    #[error(transparent)]
    Db(#[from] tokio_postgres::Error),
    #[error("event at position {position}: {source}")]
    Event { position: i64, source: EventError },
}

#[derive(Debug, thiserror::Error)]
pub enum EventError {
    #[error(transparent)]
    Decode(#[from] DecodeError),
    #[error(transparent)]
    Stream(#[from] UnknownStream),
}

/// A liability report and how it was made.
#[derive(Debug)]
pub struct Report {
    pub as_of: DateTime<Utc>,
    pub liability: Liability,
    /// The seal checkpoint whose snapshot it started from (None: the start).
    pub snapshot: Option<i64>,
    /// Events folded after the snapshot.
    pub events: u64,
    /// Events about a coupon or order that had not begun by `as_of`.
    pub unmatched: u64,
}

/// A seal checkpoint: where it ends in the store's order, and its
/// liability snapshot if one was built for this time zone.
struct Mark {
    id: i64,
    cursor: GlobalCursor,
    snapshot: Option<SnapshotMeta>,
}

#[derive(Clone, Copy)]
struct SnapshotMeta {
    min_occurred_at: Option<DateTime<Utc>>,
    max_occurred_at: Option<DateTime<Utc>>,
    events: i64,
}

/// The events after `after` up to `upto`, in the store's order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Span {
    after: GlobalCursor,
    upto: GlobalCursor,
}

/// What folding a span saw.
#[derive(Default)]
struct Folded {
    events: u64,
    min_occurred_at: Option<DateTime<Utc>>,
    max_occurred_at: Option<DateTime<Utc>>,
}

/// The liability as of `as_of` (inclusive), in one snapshot of the store.
/// `use_snapshots` false folds every event from the start (a check of the
/// snapshots, which are derived data).
pub async fn report(
    client: &mut Client,
    as_of: DateTime<Utc>,
    tz: Tz,
    use_snapshots: bool,
) -> Result<Report, LiabilityError> {
    let tx = crate::db::read_only_snapshot(client).await?;
    let marks = marks(&tx, tz).await?;
    let base = if use_snapshots {
        base_for(&marks, as_of)
    } else {
        None
    };
    let (liability, from) = match base {
        Some(i) => (load(&tx, tz, marks[i].id).await?, marks[i].cursor),
        None => (Liability::default(), GlobalCursor::START),
    };
    let mut fold = LiabilityFold::new(liability, tz);
    let mut events = 0;
    for span in spans(&marks, base, as_of) {
        events += fold_span(&tx, &mut fold, span, from, as_of).await?.events;
    }
    tx.rollback().await?;
    Ok(Report {
        as_of,
        snapshot: base.map(|i| marks[i].id),
        events,
        unmatched: fold.unmatched,
        liability: fold.liability,
    })
}

/// The newest snapshot whose every event occurred by `as_of`.
fn base_for(marks: &[Mark], as_of: DateTime<Utc>) -> Option<usize> {
    marks.iter().rposition(|m| {
        m.snapshot
            .is_some_and(|s| s.max_occurred_at.is_none_or(|max| max <= as_of))
    })
}

/// The spans to fold after the base: every later checkpoint's events but
/// those of checkpoints whose events all occurred after `as_of`, then the
/// tail after the last checkpoint.
fn spans(marks: &[Mark], base: Option<usize>, as_of: DateTime<Utc>) -> Vec<Span> {
    let mut spans = vec![];
    let mut from = base.map_or(GlobalCursor::START, |i| marks[i].cursor);
    let mut at = from;
    for m in &marks[base.map_or(0, |i| i + 1)..] {
        let later = m
            .snapshot
            .is_some_and(|s| s.min_occurred_at.is_none_or(|t| t > as_of));
        if later {
            if at > from {
                spans.push(Span {
                    after: from,
                    upto: at,
                });
            }
            from = m.cursor;
        }
        at = m.cursor;
    }
    spans.push(Span {
        after: from,
        upto: END,
    });
    spans
}

async fn marks(client: &impl GenericClient, tz: Tz) -> Result<Vec<Mark>, tokio_postgres::Error> {
    let sql = "SELECT c.id, s.tx_id, s.position, l.checkpoint_id IS NOT NULL,
                      l.min_occurred_at, l.max_occurred_at, l.events
                 FROM seal_checkpoints c
                 JOIN event_seals s ON s.seq = c.last_seq
                 LEFT JOIN liability_snapshots l ON l.tz = $1 AND l.checkpoint_id = c.id
                ORDER BY c.id";
    let rows = client.query(sql, &[&tz.name()]).await?;
    Ok(rows
        .iter()
        .map(|r| Mark {
            id: r.get(0),
            cursor: GlobalCursor {
                tx_id: r.get(1),
                position: r.get(2),
            },
            snapshot: r.get::<_, bool>(3).then(|| SnapshotMeta {
                min_occurred_at: r.get(4),
                max_occurred_at: r.get(5),
                events: r.get(6),
            }),
        })
        .collect())
}

/// Folds the events of `span` that occurred by `as_of` onto `fold`; coupons
/// and orders that began at or before `base` are looked up as needed.
async fn fold_span(
    tx: &Transaction<'_>,
    fold: &mut LiabilityFold,
    span: Span,
    base: GlobalCursor,
    as_of: DateTime<Utc>,
) -> Result<Folded, LiabilityError> {
    // Only coupon and order streams move liability and cost: the others
    // are not read (and a template created today does not bound a snapshot).
    let sql = format!(
        "SELECT tx_id, position, stream_id, event_type, schema_version, payload::text,
                occurred_at
           FROM events
          WHERE (tx_id, position) > ($1, $2) AND (tx_id, position) <= ($3, $4)
            AND occurred_at <= $5
            AND (starts_with(stream_id, '{}') OR starts_with(stream_id, '{}'))
          ORDER BY tx_id, position LIMIT $6",
        StreamKind::Coupon.prefix(),
        StreamKind::Order.prefix()
    );
    let statement = tx.prepare(&sql).await?;
    let (mut after, mut folded) = (span.after, Folded::default());
    loop {
        let params: [&(dyn tokio_postgres::types::ToSql + Sync); 6] = [
            &after.tx_id,
            &after.position,
            &span.upto.tx_id,
            &span.upto.position,
            &as_of,
            &PAGE,
        ];
        let rows = tx.query(&statement, &params).await?;
        let page = rows.iter().map(decode_row).collect::<Result<Vec<_>, _>>()?;
        let needs = fold.needs(&page);
        learn(tx, fold, needs, base).await?;
        for (stream, event) in &page {
            fold.apply(stream, event);
        }
        for row in &rows {
            let at: DateTime<Utc> = row.get(6);
            folded.min_occurred_at = Some(folded.min_occurred_at.map_or(at, |t| t.min(at)));
            folded.max_occurred_at = Some(folded.max_occurred_at.map_or(at, |t| t.max(at)));
        }
        folded.events += rows.len() as u64;
        match rows.last() {
            Some(last) if rows.len() as i64 == PAGE => {
                after = GlobalCursor {
                    tx_id: last.get(0),
                    position: last.get(1),
                }
            }
            _ => return Ok(folded),
        }
    }
}

fn decode_row(row: &tokio_postgres::Row) -> Result<(Stream<'_>, LedgerEvent), LiabilityError> {
    let decoded = || -> Result<_, EventError> {
        let stream = Stream::parse(row.get(2))?;
        let payload: &str = row.get(5);
        let event = LedgerEvent::decode_slice(row.get(3), row.get(4), payload.as_bytes())?;
        Ok((stream, event))
    };
    decoded().map_err(|source| LiabilityError::Event {
        position: row.get(1),
        source,
    })
}

/// Makes the coupons and orders of `needs` known to `fold` as they stood
/// at `base`; those that began after it stay unknown.
async fn learn(
    tx: &Transaction<'_>,
    fold: &mut LiabilityFold,
    needs: Needs,
    base: GlobalCursor,
) -> Result<(), LiabilityError> {
    if !needs.coupons.is_empty() {
        let ids: Vec<String> = needs
            .coupons
            .iter()
            .map(|id| StreamKind::Coupon.id(id))
            .collect();
        let sql = "SELECT tx_id, position, stream_id, event_type, schema_version, payload::text
                     FROM events
                    WHERE stream_id = ANY($1) AND (tx_id, position) <= ($2, $3)
                    ORDER BY stream_id, stream_version";
        let rows = tx.query(sql, &[&ids, &base.tx_id, &base.position]).await?;
        let events = rows.iter().map(decode_row).collect::<Result<Vec<_>, _>>()?;
        for coupon in events.chunk_by(|a, b| a.0 == b.0) {
            if let [(_, LedgerEvent::CouponIssued(issued)), rest @ ..] = coupon {
                let changes: Vec<CouponChange> =
                    rest.iter().filter_map(|(_, e)| e.coupon_change()).collect();
                fold.know_coupon(issued, &changes);
            }
        }
    }
    if !needs.orders.is_empty() {
        let ids: Vec<String> = needs
            .orders
            .iter()
            .map(|id| StreamKind::Order.id(id))
            .collect();
        let sql = format!(
            "SELECT DISTINCT ON (stream_id)
                    tx_id, position, stream_id, event_type, schema_version, payload::text
               FROM events
              WHERE stream_id = ANY($1) AND event_type = '{}'
                AND (tx_id, position) <= ($2, $3)
              ORDER BY stream_id, stream_version DESC",
            EventType::OrderLocked
        );
        let rows = tx.query(&sql, &[&ids, &base.tx_id, &base.position]).await?;
        for (stream, locked) in rows.iter().map(decode_row).collect::<Result<Vec<_>, _>>()? {
            if let Stream::Order(order_id) = stream {
                fold.know_lock(order_id, &locked);
            }
        }
    }
    Ok(())
}

/// The shop of each template of `liability` that belongs to one, from
/// their `TemplateCreated` events, when rows are grouped by shop (nothing
/// is read otherwise). A template's shop is fixed when it is created, so
/// any read after the report's own gives the same answer: the templates
/// of its groups were created before their coupons.
pub async fn shops_for(
    client: &impl GenericClient,
    liability: &Liability,
    by: By,
) -> Result<TemplateShops, LiabilityError> {
    if by != By::Shop {
        return Ok(TemplateShops::default());
    }
    let streams: Vec<String> = liability
        .templates()
        .into_iter()
        .map(|sn| StreamKind::Template.id(sn))
        .collect();
    let sql = format!(
        "SELECT tx_id, position, stream_id, event_type, schema_version, payload::text
           FROM events WHERE stream_id = ANY($1) AND event_type = '{}'",
        EventType::TemplateCreated
    );
    let rows = client.query(&sql, &[&streams]).await?;
    let mut shops = vec![];
    for (_, event) in rows.iter().map(decode_row).collect::<Result<Vec<_>, _>>()? {
        if let LedgerEvent::TemplateCreated(created) = event {
            let TemplateCreated { sn, shop_id, .. } = *created;
            shops.extend(shop_id.map(|shop| (sn, shop)));
        }
    }
    Ok(TemplateShops::new(shops))
}

/// A snapshot's rows.
async fn load(tx: &Transaction<'_>, tz: Tz, checkpoint: i64) -> Result<Liability, LiabilityError> {
    let sql = "SELECT template_sn, channel_id, day, issued, unused, locked, used, refunded,
                      expired, voided, outstanding, cost
                 FROM liability_snapshot_rows WHERE tz = $1 AND checkpoint_id = $2";
    let mut liability = Liability::default();
    for r in tx.query(sql, &[&tz.name(), &checkpoint]).await? {
        let key = GroupKey {
            template_sn: r.get(0),
            channel_id: r.get(1),
            day: r.get(2),
        };
        let slot = liability.group(key);
        *liability.totals_mut(slot) = Totals {
            issued: r.get(3),
            unused: r.get(4),
            locked: r.get(5),
            used: r.get(6),
            refunded: r.get(7),
            expired: r.get(8),
            void: r.get(9),
            outstanding: cents(r.get(10)),
            cost: cents(r.get(11)),
        };
    }
    Ok(liability)
}

fn cents(mut d: Decimal) -> i64 {
    d.rescale(2);
    i64::try_from(d.mantissa()).expect("numeric(20, 2) fits in i64 cents")
}

/// Builds the snapshot of the oldest seal checkpoint that has none for
/// `tz`, from the snapshot before it and the checkpoint's own events, in
/// one transaction; the checkpoint's id, or None when every one has one.
pub async fn build_next_snapshot(
    client: &mut Client,
    tz: Tz,
) -> Result<Option<i64>, LiabilityError> {
    let tx = client
        .build_transaction()
        .isolation_level(tokio_postgres::IsolationLevel::RepeatableRead)
        .start()
        .await?;
    let marks = marks(&tx, tz).await?;
    let Some(next) = marks.iter().position(|m| m.snapshot.is_none()) else {
        return Ok(None);
    };
    let before = next.checked_sub(1).map(|i| &marks[i]);
    let (liability, from, meta) = match before {
        Some(m) => (load(&tx, tz, m.id).await?, m.cursor, m.snapshot),
        None => (Liability::default(), GlobalCursor::START, None),
    };
    let mut fold = LiabilityFold::new(liability, tz);
    let span = Span {
        after: from,
        upto: marks[next].cursor,
    };
    let folded = fold_span(&tx, &mut fold, span, from, DateTime::<Utc>::MAX_UTC).await?;
    let max = meta
        .and_then(|m| m.max_occurred_at)
        .max(folded.max_occurred_at);
    let events = meta.map_or(0, |m| m.events) + folded.events as i64;
    let id = marks[next].id;
    tx.execute(
        "INSERT INTO liability_snapshots (tz, checkpoint_id, min_occurred_at, max_occurred_at, events)
         VALUES ($1, $2, $3, $4, $5)",
        &[&tz.name(), &id, &folded.min_occurred_at, &max, &events],
    )
    .await?;
    store_rows(&tx, tz, id, &fold.liability).await?;
    tx.commit().await?;
    Ok(Some(id))
}

async fn store_rows(
    tx: &Transaction<'_>,
    tz: Tz,
    checkpoint: i64,
    liability: &Liability,
) -> Result<(), tokio_postgres::Error> {
    let rows: Vec<_> = liability.rows().collect();
    let column = |f: fn(&Totals) -> i64| rows.iter().map(|(_, t)| f(t)).collect::<Vec<i64>>();
    let money = |f: fn(&Totals) -> i64| {
        rows.iter()
            .map(|(_, t)| Decimal::new(f(t), 2))
            .collect::<Vec<Decimal>>()
    };
    let sns: Vec<&str> = rows.iter().map(|(k, _)| k.template_sn.as_str()).collect();
    let channels: Vec<Option<ChannelId>> = rows.iter().map(|(k, _)| k.channel_id).collect();
    let days: Vec<chrono::NaiveDate> = rows.iter().map(|(k, _)| k.day).collect();
    tx.execute(
        "INSERT INTO liability_snapshot_rows
         SELECT $1, $2, * FROM unnest($3::text[], $4::uuid[], $5::date[], $6::bigint[],
                $7::bigint[], $8::bigint[], $9::bigint[], $10::bigint[], $11::bigint[],
                $12::bigint[], $13::numeric[], $14::numeric[])",
        &[
            &tz.name(),
            &checkpoint,
            &sns,
            &channels,
            &days,
            &column(|t| t.issued),
            &column(|t| t.unused),
            &column(|t| t.locked),
            &column(|t| t.used),
            &column(|t| t.refunded),
            &column(|t| t.expired),
            &column(|t| t.void),
            &money(|t| t.outstanding),
            &money(|t| t.cost),
        ],
    )
    .await?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::TimeZone;

    fn at(h: u32) -> DateTime<Utc> {
        Utc.with_ymd_and_hms(2026, 11, 20, h, 0, 0).unwrap()
    }

    fn cursor(n: i64) -> GlobalCursor {
        GlobalCursor {
            tx_id: n,
            position: n,
        }
    }

    fn mark(n: i64, occurred: Option<(u32, u32)>) -> Mark {
        Mark {
            id: n,
            cursor: cursor(n * 10),
            snapshot: occurred.map(|(min, max)| SnapshotMeta {
                min_occurred_at: Some(at(min)),
                max_occurred_at: Some(at(max)),
                events: 10 * n,
            }),
        }
    }

    #[test]
    fn the_base_is_the_newest_snapshot_wholly_at_or_before_the_instant() {
        let marks = [
            mark(1, Some((1, 2))),
            mark(2, Some((2, 5))),
            mark(3, Some((4, 8))),
        ];
        assert_eq!(base_for(&marks, at(0)), None);
        assert_eq!(base_for(&marks, at(2)), Some(0));
        assert_eq!(base_for(&marks, at(7)), Some(1));
        assert_eq!(base_for(&marks, at(9)), Some(2));
    }

    #[test]
    fn checkpoints_whose_events_all_came_later_are_skipped_and_the_tail_is_always_read() {
        let marks = [
            mark(1, Some((1, 2))),
            mark(2, Some((3, 5))),
            mark(3, Some((9, 10))),
            mark(4, Some((4, 12))),
            mark(5, None),
        ];
        let span = |a, b| Span {
            after: cursor(a),
            upto: b,
        };
        // As of 04:00 from checkpoint 1: 2 is read, 3 skipped, 4 and 5 (no
        // snapshot yet) read, then the tail.
        assert_eq!(
            spans(&marks, Some(0), at(4)),
            vec![span(10, cursor(20)), span(30, END)]
        );
        // Everything is read when every checkpoint may hold such events.
        assert_eq!(spans(&marks, None, at(12)), vec![span(0, END)]);
    }
}
