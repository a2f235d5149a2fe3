//! Fixed windows of failure counts shared through Redis, so that every API
//! process counts against one limit (N processes do not allow N times the
//! failures). One counter per key: a failure increments it, and the first
//! failure of a window gives it the window as its time to live, in one
//! script, so a counter never outlives its window. A check reads the
//! counters and answers how long the used-up ones still live (the
//! `Retry-After`), in one round trip. Bounded: a key lives one window.
//!
//! Redis's own clock ends the windows, so the processes agree on them. The
//! caller decides what happens when Redis cannot answer (`guess_limit`
//! falls back to its in-process windows).

use std::sync::LazyLock;
use std::time::Duration;

use redis::Script;
use redis::aio::ConnectionManager;

static FAIL: LazyLock<Script> =
    LazyLock::new(|| Script::new(include_str!("shared_window_fail.lua")));
static WAIT: LazyLock<Script> =
    LazyLock::new(|| Script::new(include_str!("shared_window_wait.lua")));

/// One counter: its Redis key and the failures its window allows.
pub(crate) struct Counter {
    pub key: String,
    pub limit: u32,
}

/// How long until the windows of the counters that reached their limit
/// end; None when none has.
pub(crate) async fn wait(
    conn: &mut ConnectionManager,
    counters: &[Counter],
) -> redis::RedisResult<Option<Duration>> {
    let mut call = WAIT.prepare_invoke();
    for counter in counters {
        call.key(&counter.key).arg(counter.limit);
    }
    let millis: i64 = call.invoke_async(conn).await?;
    Ok(u64::try_from(millis)
        .ok()
        .filter(|&ms| ms > 0)
        .map(Duration::from_millis))
}

/// Counts one failure against each counter; a counter's first failure
/// starts its window of `window`.
pub(crate) async fn fail(
    conn: &mut ConnectionManager,
    counters: &[Counter],
    window: Duration,
) -> redis::RedisResult<()> {
    let mut call = FAIL.prepare_invoke();
    for counter in counters {
        call.key(&counter.key);
    }
    let window_ms = u64::try_from(window.as_millis()).unwrap_or(u64::MAX);
    call.arg(window_ms).invoke_async::<i64>(conn).await?;
    Ok(())
}
