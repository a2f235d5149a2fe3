//! The projection workers' write side: apply one event to `balances` or
//! `template_stats` in the caller's transaction (docs/design.md §5).
//!
//! Each projection remembers the last version it applied per stream, so a
//! redelivered or already caught-up event is skipped (this is its only
//! dedupe: the inbox keeps a receipt per message, not a row per event), and an event that
//! arrives after a gap first pulls the missing versions from `events`
//! (never applying out of order). The effect itself is
//! [`crate::domain::projection`]'s pure fold.
//!
//! - [`coupons`]: coupon streams → status buckets.
//! - [`issued_run`]: a run of `CouponIssued` → status buckets, set-based.
//! - [`notify`]: coupon streams → expiry reminders (`notify_msg`), docs/design.md §10;
//!   [`granted`]: its `CouponsGranted` rows, one per (job, user) of jobs
//!   that asked `notify=true`.
//! - [`orders`]: order streams → template cost.
//! - [`read`]: what the API serves (a user's balance, a template's stats).

pub mod coupons;
pub(crate) mod granted;
pub(crate) mod issued_run;
pub mod notify;
pub(crate) mod orders;
pub(crate) mod read;

use deadpool_postgres::Transaction;

use crate::domain::projection::{Projection, ProjectionError, Tally, follows};
use crate::domain::stream::{Stream, UnknownStream};
use crate::store::{RecordedEvent, StoredEventError};

#[derive(Debug, thiserror::Error)]
pub enum ApplyError {
    #[error(transparent)]
    Projection(#[from] ProjectionError),
    /// An event of a type or version this build does not know.
    #[error(transparent)]
    Decode(#[from] StoredEventError),
    #[error("event at position {position}: {source}")]
    Stream {
        position: i64,
        source: UnknownStream,
    },
    #[error(transparent)]
    Db(#[from] tokio_postgres::Error),
}

/// What applying an event did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Applied {
    /// The event (and any versions missing before it) took effect.
    Applied,
    /// The projection had already applied this stream version.
    AlreadyApplied,
    /// The projection does not follow this stream.
    NotFollowed,
}

/// Applies `event` to `projection`.
pub async fn apply(
    tx: &Transaction<'_>,
    tally: Tally,
    event: &RecordedEvent,
) -> Result<Applied, ApplyError> {
    let stream = Stream::parse(&event.stream_id).map_err(|source| ApplyError::Stream {
        position: event.position,
        source,
    })?;
    let applied = match stream {
        _ if !follows(tally, stream.kind()) => Applied::NotFollowed,
        Stream::Coupon(id) => coupons::apply(tx, tally, id, event).await?,
        Stream::Order(_) => orders::apply(tx, tally, event).await?,
        Stream::Template(_)
        | Stream::Channel(_)
        | Stream::CodeBatch(_)
        | Stream::Code(..)
        | Stream::Package(_)
        | Stream::AllowList(_)
        | Stream::ApiKey(_) => Applied::NotFollowed,
    };
    record_position(tx, tally.projection(), event, applied).await?;
    Ok(applied)
}

/// Applies `events` in order: runs of first `CouponIssued` (what bulk
/// issuance writes) set-based, every other event by [`apply`]. On
/// failure, the index of the event to blame.
pub async fn apply_batch(
    tx: &Transaction<'_>,
    tally: Tally,
    events: &[RecordedEvent],
) -> Result<(), (usize, ApplyError)> {
    let mut i = 0;
    while i < events.len() {
        let run = events[i..]
            .iter()
            .take(issued_run::MAX_RUN)
            .take_while(|e| issued_run::is_first_issue(e))
            .count();
        if run == 0 {
            apply(tx, tally, &events[i]).await.map_err(|e| (i, e))?;
            i += 1;
        } else {
            issued_run::apply(tx, tally, &events[i..i + run])
                .await
                .map_err(|(at, e)| (i + at, e))?;
            i += run;
        }
    }
    Ok(())
}

/// The position the projection reflects, after `event`: counted as given
/// unless it was a repeat.
async fn record_position(
    tx: &Transaction<'_>,
    projection: Projection,
    event: &RecordedEvent,
    applied: Applied,
) -> Result<(), tokio_postgres::Error> {
    let given = i64::from(applied != Applied::AlreadyApplied);
    record_positions(tx, projection, event, given).await
}

/// The position after `applied` more events, the last `last`. Positions
/// follow the commit order (`tx_id`, then position), which lag counts
/// from: a repeat of earlier events (a redelivery) never moves it back.
pub(crate) async fn record_positions(
    tx: &Transaction<'_>,
    projection: Projection,
    last: &RecordedEvent,
    applied: i64,
) -> Result<(), tokio_postgres::Error> {
    // Both CASEs read the row as it was (SET sees the old values).
    let sql = "INSERT INTO projection_positions AS p (projection, position, tx_id, applied)
               VALUES ($1, $2, $3, $4)
               ON CONFLICT (projection) DO UPDATE
                 SET position = CASE WHEN p.tx_id IS NULL
                                       OR (EXCLUDED.tx_id, EXCLUDED.position) > (p.tx_id, p.position)
                                     THEN EXCLUDED.position ELSE p.position END,
                     tx_id = CASE WHEN p.tx_id IS NULL
                                    OR (EXCLUDED.tx_id, EXCLUDED.position) > (p.tx_id, p.position)
                                  THEN EXCLUDED.tx_id ELSE p.tx_id END,
                     applied = p.applied + EXCLUDED.applied,
                     updated_at = now()";
    tx.execute(
        &tx.prepare_cached(sql).await?,
        &[&projection.as_str(), &last.position, &last.tx_id, &applied],
    )
    .await?;
    Ok(())
}

/// Cents as the numeric(20, 2) the tables hold.
fn decimal(cents: i64) -> rust_decimal::Decimal {
    rust_decimal::Decimal::new(cents, 2)
}
