//! `ledger events export`: the events for finance, ordered like the relay,
//! each with its chain link (the library side is `audit/export.rs`).

use std::fs::File;
use std::io::{self, BufWriter, IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use anyhow::Context;
use chrono::{DateTime, Utc};
use clap::builder::{PossibleValuesParser, TypedValueParser};
use ledger::audit::export::{self, EmptyWindow, Exported, Format, Selection, Window};
use ledger::config::Config;
use ledger::domain::stream::StreamKind;

use super::progress;

pub const AFTER_HELP: &str = "\
Windows are half-open: --from (or --from-position) is included, --to (or
--to-position) is not. --from/--to filter by occurred_at, which is not in
commit order; every window is a set of events written in the store's
commit-safe order (the relay's and the sealer's). Events of transactions
still running, and those committed after one still running began, are left
for the next export, as the relay leaves them.

Columns: position, seal_seq, event_id, stream_id, stream_version,
event_type, schema_version, occurred_at (RFC 3339, UTC), payload, metadata
(Postgres' jsonb text, the bytes the chain hashes), hash (the chain link,
hex). seal_seq and hash are empty (null in jsonl) for events the sealer has
not reached yet; the summary on stderr counts them.

Exit codes: 0 exported; 2 bad arguments; 1 any other error.";

#[derive(clap::Args)]
#[command(group = clap::ArgGroup::new("start").required(true).args(["from", "from_position"]))]
pub struct Args {
    /// Events that occurred at or after this instant (RFC 3339, e.g. 2026-11-23T00:00:00Z).
    #[arg(long, value_parser = instant)]
    from: Option<DateTime<Utc>>,
    /// Events that occurred before this instant (RFC 3339; exclusive).
    #[arg(long, value_parser = instant, conflicts_with = "from_position")]
    to: Option<DateTime<Utc>>,
    /// Events at or after this position.
    #[arg(long, value_parser = clap::value_parser!(i64).range(1..))]
    from_position: Option<i64>,
    /// Events before this position (exclusive).
    #[arg(long, value_parser = clap::value_parser!(i64).range(1..), conflicts_with = "from")]
    to_position: Option<i64>,
    /// Only the events of this kind of stream.
    #[arg(long, value_parser = one_of(&StreamKind::ALL, StreamKind::name))]
    stream_kind: Option<StreamKind>,
    /// JSON lines (payload and metadata as objects) or CSV with a header
    /// (payload and metadata as JSON text).
    #[arg(long, value_parser = one_of(&Format::ALL, Format::name))]
    format: Format,
    /// The file to write (replaced); stdout without it.
    #[arg(long)]
    output: Option<PathBuf>,
}

impl Args {
    fn selection(&self) -> Result<Selection, EmptyWindow> {
        let window = match (self.from, self.from_position) {
            (Some(from), _) => Window::time(from, self.to)?,
            // clap requires one of the two.
            (None, from) => Window::position(from.unwrap_or(1), self.to_position)?,
        };
        Ok(Selection {
            window,
            kind: self.stream_kind,
        })
    }
}

fn instant(text: &str) -> Result<DateTime<Utc>, String> {
    DateTime::parse_from_rfc3339(text)
        .map(|t| t.to_utc())
        .map_err(|e| format!("{e}: expected an RFC 3339 instant such as 2026-11-23T08:00:00Z"))
}

/// A parser of one of `all` by its name; `--help` and errors list the names.
fn one_of<T: Copy + Send + Sync + 'static>(
    all: &'static [T],
    name: fn(T) -> &'static str,
) -> impl TypedValueParser<Value = T> {
    let names = all.iter().map(|t| name(*t));
    PossibleValuesParser::new(names).try_map(move |chosen| {
        all.iter()
            .copied()
            .find(|t| name(*t) == chosen)
            .ok_or_else(|| format!("unknown value {chosen:?}"))
    })
}

/// The exit code: 0 exported, 2 a window that cannot hold an event.
pub async fn run(config: &Config, args: Args) -> anyhow::Result<u8> {
    let selection = match args.selection() {
        Ok(selection) => selection,
        Err(e) => {
            eprintln!("error: {e}");
            return Ok(2);
        }
    };
    let client = ledger::db::connect(&config.database).await?;
    let out = open(args.output.as_deref())?;
    let bar = if io::stderr().is_terminal() {
        progress::bar(export::estimate(&client, &selection).await?, "exporting")
    } else {
        indicatif::ProgressBar::hidden()
    };
    let started = Instant::now();
    let done = export::export(&client, &selection, args.format, out, |n| {
        bar.set_position(n)
    })
    .await?;
    bar.finish_and_clear();
    eprintln!(
        "{}",
        summary(done, started.elapsed(), args.output.as_deref())
    );
    Ok(0)
}

/// The output, buffered: the file (created or replaced) or stdout.
fn open(path: Option<&Path>) -> anyhow::Result<BufWriter<Box<dyn Write>>> {
    let out: Box<dyn Write> = match path {
        Some(path) => {
            Box::new(File::create(path).with_context(|| format!("creating {}", path.display()))?)
        }
        None => Box::new(io::stdout().lock()),
    };
    Ok(BufWriter::with_capacity(1 << 16, out))
}

fn summary(done: Exported, took: Duration, path: Option<&Path>) -> String {
    let to = path.map_or("stdout".to_owned(), |p| p.display().to_string());
    let secs = took.as_secs_f64();
    let rate = if secs > 0.0 {
        done.events as f64 / secs
    } else {
        0.0
    };
    let why = if done.unsealed > 0 {
        ": not reached by the sealer yet, no hash"
    } else {
        ""
    };
    format!(
        "exported {} events to {to} ({} unsealed{why}) in {secs:.2} s, {} events/s",
        done.events,
        done.unsealed,
        super::rate::amount(rate)
    )
}
