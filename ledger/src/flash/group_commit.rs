//! The loop of a group-commit task, for claims ([`super::batcher`]) and
//! redemptions ([`super::redemptions`]) alike: collect up to `max` requests
//! or wait [`MAX_WAIT`] after the first, keep those the batch cannot hold
//! (`split`: a user or a code twice) for the next one, write, repeat; after
//! [`IDLE`] without a request, leave the registry and write what was sent
//! meanwhile.

use std::future::Future;
use std::time::Duration;

use chrono::{DateTime, Utc};
use deadpool_postgres::{Pool, Transaction};
use tokio::sync::mpsc;
use tokio::time::timeout_at;

use crate::commands::CommandError;

/// How long a batch waits for more requests after its first.
pub const MAX_WAIT: Duration = Duration::from_millis(2);
/// A task ends after this long without a request.
pub const IDLE: Duration = Duration::from_secs(30);

/// Splits arrivals into this batch and the requests left for the next.
pub type Split<P> = fn(Vec<P>) -> (Vec<P>, Vec<P>);

pub async fn run<P, W, F>(
    mut rx: mpsc::Receiver<P>,
    max: usize,
    split: Split<P>,
    mut write: W,
    leave: impl FnOnce(),
) where
    W: FnMut(Vec<P>) -> F,
    F: Future<Output = ()>,
{
    let mut carried: Vec<P> = Vec::new();
    while let Some(arrivals) = gather(&mut rx, std::mem::take(&mut carried), max).await {
        let (batch, later) = split(arrivals);
        carried = later;
        write(batch).await;
    }
    leave();
    rx.close();
    let mut last = Vec::new();
    while let Some(p) = rx.recv().await {
        last.push(p);
    }
    while !last.is_empty() {
        let rest = last.split_off(last.len().min(max));
        let (batch, later) = split(last);
        last = later.into_iter().chain(rest).collect();
        write(batch).await;
    }
}

/// The next batch's arrivals: those carried over (or the first to come
/// within [`IDLE`]), then what comes within [`MAX_WAIT`], up to `max`.
/// None once idle.
async fn gather<P>(rx: &mut mpsc::Receiver<P>, carried: Vec<P>, max: usize) -> Option<Vec<P>> {
    let mut arrivals = carried;
    if arrivals.is_empty() {
        match tokio::time::timeout(IDLE, rx.recv()).await {
            Ok(Some(p)) => arrivals.push(p),
            _ => return None,
        }
    }
    let deadline = tokio::time::Instant::now() + MAX_WAIT;
    while arrivals.len() < max {
        match timeout_at(deadline, rx.recv()).await {
            Ok(Some(p)) => arrivals.push(p),
            _ => break,
        }
    }
    Some(arrivals)
}

/// Runs `write` in one transaction at one instant: committed when it
/// succeeds, rolled back when it fails.
pub async fn transaction<T>(
    pool: &Pool,
    write: impl AsyncFnOnce(&Transaction<'_>, DateTime<Utc>) -> Result<T, CommandError>,
) -> Result<T, CommandError> {
    let mut client = pool
        .get()
        .await
        .map_err(|e| CommandError::Internal(e.into()))?;
    let tx = client.transaction().await?;
    match write(&tx, crate::store::now()).await {
        Ok(done) => {
            tx.commit().await?;
            Ok(done)
        }
        Err(e) => {
            let _ = tx.rollback().await;
            Err(e)
        }
    }
}
