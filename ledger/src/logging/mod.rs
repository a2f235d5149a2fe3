//! Logging of both binaries: tracing to stderr, filtered by `RUST_LOG`
//! (default `info`), as text or as one JSON object per line
//! (`LEDGER_LOG_FORMAT`, see [`LogFormat`]).
//!
//! JSON lines are tracing-subscriber's JSON format with the event's fields
//! at the top level: `timestamp`, `level`, `target`, `message`, the fields,
//! and `span`/`spans` when the line was written inside one (every line of a
//! request is inside its `request` span, which carries `request_id`).
//!
//! - [`redact`]: passwords kept out of what is logged and answered.

pub mod redact;

use std::error::Error;
use std::fmt::Write as _;
use std::io::IsTerminal;

use tracing_subscriber::EnvFilter;
use tracing_subscriber::filter::Directive;

use crate::config::LogFormat;

/// Kept whatever `RUST_LOG` says, because the lines they silence would
/// carry message bodies (user ids) into the log: lapin warns with the whole
/// message of every return, and its debug and trace lines print frames.
/// The ledger counts and summarises returns itself (`messaging::publish`).
/// lapin's channel errors are also returned to the caller, which logs them
/// in its own words once (or, for the store guard, refuses in one line).
const ALWAYS: [&str; 4] = [
    "lapin::returned_messages=off",
    "lapin::channel=off",
    "lapin=info",
    "amq_protocol=info",
];

/// Installs the global subscriber. Call once, first thing in `main`.
pub fn init(format: LogFormat) {
    let builder = tracing_subscriber::fmt()
        .with_env_filter(filter())
        // Colour codes only for a person at a terminal, never in a file.
        .with_ansi(std::io::stderr().is_terminal())
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

/// `RUST_LOG` (default `info`) with [`ALWAYS`] on top.
fn filter() -> EnvFilter {
    let filter = EnvFilter::try_from_default_env().unwrap_or_else(|_| "info".into());
    ALWAYS.iter().fold(filter, |filter, directive| {
        let directive: Directive = directive.parse().expect("the directives above parse");
        filter.add_directive(directive)
    })
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

    /// As tokio-postgres prints a database error: its cause already in it.
    #[derive(Debug, thiserror::Error)]
    #[error("db error: {0}")]
    struct PgLike(#[source] std::io::Error);

    #[derive(Debug, thiserror::Error)]
    enum Store {
        #[error("event store: {0}")]
        Db(#[from] PgLike),
    }

    #[test]
    fn an_error_that_prints_its_cause_says_db_error_once() {
        let e = Store::Db(PgLike(std::io::Error::other("ERROR: no such table")));
        let wrapped = anyhow::Error::new(e).context("session failed");
        let line = super::chain(wrapped.as_ref());
        assert_eq!(
            line,
            "session failed: event store: db error: ERROR: no such table"
        );
        // anyhow's own `{:#}` repeats what each error already printed.
        assert!(format!("{wrapped:#}").matches("db error").count() > 1);
    }

    #[test]
    fn chain_lists_each_source_once() {
        let e = Outer(Middle(std::io::Error::other("disk on fire")));
        assert_eq!(super::chain(&e), "outer: middle: disk on fire");
    }
}
