//! One pass of a verification: its events, copied out of the store in the
//! store's order and folded; then its coupons' holdings spilled for the
//! buckets of users, added to the per-template buckets, and its coupons,
//! orders and refunds compared with the live rows of the pass.

use std::sync::Arc;

use futures_util::{TryStreamExt, pin_mut};
use tokio_postgres::Transaction;
use tokio_postgres::binary_copy::BinaryCopyOutStream;
use tokio_postgres::types::{FromSql, Type};

use super::compare::Differences;
use super::event::Event;
use super::fold::{self, Replay};
use super::partition::Partitions;
use super::spill::{Record, Spill, Writers};
use super::users::{self, LastPass};
use super::{Progress, ReplayError, holdings, live};

/// The columns of a pass's events (`Partitions::events`).
const EVENT_TYPES: [Type; 10] = [
    Type::INT8,
    Type::TEXT,
    Type::INT4,
    Type::TEXT,
    Type::JSONB,
    Type::TIMESTAMPTZ,
    Type::INT2,
    Type::INT8,
    Type::BOOL,
    Type::INT4,
];

/// Events folded between two calls of the progress callback.
pub const PROGRESS_EVERY: u64 = 10_000;

/// Where a verification is: the pass, and the events folded before it.
pub struct At {
    pub part: u32,
    pub partitions: Partitions,
    pub events_before: u64,
}

impl At {
    fn progress(&self, events: u64) -> Progress {
        Progress {
            events: self.events_before + events,
            pass: self.part,
            passes: self.partitions.count(),
        }
    }
}

/// Folds the events of pass `at` into `replay` (its reminder steps into
/// `spill`); how many it folded. An order's event that reaches several
/// passes is counted in its own.
pub async fn fold(
    tx: &Transaction<'_>,
    at: &At,
    replay: &mut Replay,
    spill: &Spill,
    progress: &mut impl FnMut(Progress),
) -> Result<u64, ReplayError> {
    let copy = tx.copy_out(&at.partitions.events(at.part)).await?;
    let rows = BinaryCopyOutStream::new(copy, &EVENT_TYPES);
    pin_mut!(rows);
    let mut steps = replay
        .notifies()
        .then(|| spill.steps_writers(at.part))
        .transpose()?;
    let mut events = 0;
    while let Some(row) = rows.try_next().await? {
        let payload: JsonText<'_> = row.try_get(4)?;
        let event = Event {
            order: (row.try_get(7)?, row.try_get(0)?),
            stream_id: row.try_get(1)?,
            version: row.try_get(2)?,
            event_type: row.try_get(3)?,
            schema_version: row.try_get(6)?,
            payload: payload.0,
            occurred_at: row.try_get(5)?,
            own: row.try_get(8)?,
            bucket: row
                .try_get::<Option<i32>>(9)?
                .map_or(0, |b| b.unsigned_abs()),
        };
        replay.apply(&event).map_err(|source| ReplayError::Event {
            position: event.order.1,
            stream_id: event.stream_id.to_owned(),
            version: event.version,
            source,
        })?;
        if let Some(writers) = &mut steps {
            write_steps(replay, writers)?;
        }
        if event.own {
            events += 1;
            if events % PROGRESS_EVERY == 0 {
                progress(at.progress(events));
            }
        }
    }
    progress(at.progress(events));
    steps.map_or(Ok(()), Writers::finish)?;
    Ok(events)
}

/// Moves the steps the fold recorded into their buckets' files.
fn write_steps(replay: &mut Replay, writers: &mut Writers) -> std::io::Result<()> {
    for (bucket, step) in replay.steps.drain(..) {
        step.write(writers.bucket(bucket))?;
    }
    Ok(())
}

/// Ends a pass before the last: spills its coupons' holdings, adds them
/// to the per-template buckets, and compares its rows with the live ones.
pub async fn finish(
    tx: &Transaction<'_>,
    at: &At,
    replay: &mut Replay,
    spill: &Spill,
    out: &mut Differences,
) -> Result<(), ReplayError> {
    let mut pass = std::mem::take(&mut replay.pass);
    let mut writers = spill.holdings_writers()?;
    holdings::spill(&pass, &mut writers)?;
    writers.finish()?;
    fold::add_template_stats(&pass, &mut replay.tables.template_stats);
    let mut rows = std::mem::take(&mut pass.orders);
    let pass_at = (at.partitions, at.part);
    live::compare_pass(tx, pass_at, (&pass.names, &pass.coupons), &mut rows, out).await?;
    Ok(())
}

/// Ends the last pass: its names and its coupons' holdings (by bucket)
/// are handed to the buckets of users (`start`) while its rows are
/// compared here; then its coupon map is dropped.
pub async fn finish_last(
    tx: &Transaction<'_>,
    at: &At,
    replay: &mut Replay,
    start: impl FnOnce(LastPass),
    out: &mut Differences,
) -> Result<(), ReplayError> {
    let mut pass = std::mem::take(&mut replay.pass);
    fold::add_template_stats(&pass, &mut replay.tables.template_stats);
    let mut rows = std::mem::take(&mut pass.orders);
    let names = Arc::new(std::mem::take(&mut pass.names));
    let buckets = at.partitions.buckets();
    let holdings = holdings::by_bucket(&pass.coupons, buckets);
    let ahead = std::mem::take(&mut replay.tables.claims_ahead);
    start(LastPass {
        names: Arc::clone(&names),
        holdings,
        claims_ahead: users::ahead_by_bucket(ahead, buckets),
    });
    let pass_at = (at.partitions, at.part);
    live::compare_pass(tx, pass_at, (&names, &pass.coupons), &mut rows, out).await?;
    Ok(())
}

/// A `jsonb` column as its JSON text, unparsed: the fold parses it once,
/// straight into the payload type its event needs.
struct JsonText<'a>(&'a [u8]);

impl<'a> FromSql<'a> for JsonText<'a> {
    fn from_sql(
        ty: &Type,
        raw: &'a [u8],
    ) -> Result<Self, Box<dyn std::error::Error + Sync + Send>> {
        if *ty != Type::JSONB {
            return Ok(JsonText(raw));
        }
        // Binary jsonb is a format version (1) and the JSON text.
        match raw.split_first() {
            Some((1, text)) => Ok(JsonText(text)),
            _ => Err("unsupported jsonb format version".into()),
        }
    }

    fn accepts(ty: &Type) -> bool {
        *ty == Type::JSON || *ty == Type::JSONB
    }
}
