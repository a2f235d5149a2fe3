//! Logging of both binaries: tracing to stderr, filtered by `RUST_LOG`
//! (default `info`), as text or as one JSON object per line
//! (`LEDGER_LOG_FORMAT`, see [`LogFormat`]).
//!
//! JSON lines are tracing-subscriber's JSON format with the event's fields
//! at the top level: `timestamp`, `level`, `target`, `message`, the fields,
//! and `span`/`spans` when the line was written inside one (every line of a
//! request is inside its `request` span, which carries `request_id`).

use std::error::Error;
use std::fmt::Write as _;

use tracing_subscriber::EnvFilter;

use crate::config::LogFormat;

/// Installs the global subscriber. Call once, first thing in `main`.
pub fn init(format: LogFormat) {
    let filter = EnvFilter::try_from_default_env().unwrap_or_else(|_| "info".into());
    let builder = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr);
    match format {
        LogFormat::Text => builder.init(),
        LogFormat::Json => builder
            .json()
            .flatten_event(true)
            .with_current_span(true)
            .with_span_list(false)
            .init(),
    }
}

/// `text` on one line: the final error of a binary is read by people, so a
/// message of several lines (an HTTP answer quoted in it) is joined. With
/// anyhow's `{:#}` (causes after colons, never the backtrace that `{:?}`
/// adds under `RUST_BACKTRACE`) it gives the one line the binaries print.
pub fn one_line(text: &str) -> String {
    let lines: Vec<&str> = text
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect();
    lines.join(" ")
}

/// `error` and its sources, `outer: inner: innermost` (as anyhow's `{:#}`),
/// skipping a source whose text its parent already ends with (errors that
/// print their cause themselves, such as tokio-postgres's).
pub fn chain(error: &(dyn Error + 'static)) -> String {
    let mut out = error.to_string();
    let mut source = error.source();
    while let Some(e) = source {
        let text = e.to_string();
        if !text.is_empty() && !out.ends_with(&text) {
            let _ = write!(out, ": {text}");
        }
        source = e.source();
    }
    out
}

#[cfg(test)]
mod tests {
    #[derive(Debug, thiserror::Error)]
    #[error("outer")]
    struct Outer(#[source] Middle);

    #[derive(Debug, thiserror::Error)]
    #[error("middle: {0}")]
    struct Middle(#[source] std::io::Error);

    #[test]
    fn chain_lists_each_source_once() {
        let e = Outer(Middle(std::io::Error::other("disk on fire")));
        assert_eq!(super::chain(&e), "outer: middle: disk on fire");
    }
}
