//! `ledger events export` (docs/design.md §11): the events finance asks for, in the
//! store's commit-safe order (the relay's and the sealer's), each with its
//! seal (chain seq and link) when the sealer has reached it. One binary
//! COPY is streamed row by row into the writer, so memory stays flat
//! whatever the window.
//!
//! The payload and metadata are written as Postgres' own jsonb text, the
//! exact bytes the chain hashes (see [`super::chain`]): anyone can recompute
//! the links from an export alone.

use std::borrow::Cow;
use std::io::{self, Write};

use chrono::{DateTime, SecondsFormat, Utc};
use futures_util::{TryStreamExt, pin_mut};
use tokio_postgres::Client;
use tokio_postgres::binary_copy::{BinaryCopyOutRow, BinaryCopyOutStream};
use tokio_postgres::types::Type;

use super::chain::{Hash, SEALABLE_TYPES, Sealable, from_bytes, to_hex};
use crate::domain::stream::StreamKind;
use crate::store::read::committed;

/// Which events, by one of two measures. Both are half-open, `[from, to)`,
/// so consecutive windows (`--to` of one, `--from` of the next) never share
/// an event. Either way the rows come in commit-safe order, which is
/// neither time nor position order: a window is a set, not a slice.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Window {
    /// `occurred_at` in `[from, to)`.
    Time {
        from: DateTime<Utc>,
        to: Option<DateTime<Utc>>,
    },
    /// `position` in `[from, to)`.
    Position { from: i64, to: Option<i64> },
}

/// A window whose end is not after its start.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error(
    "the window is empty: its end ({to}) is not after its start ({from}); the end is exclusive"
)]
pub struct EmptyWindow {
    pub from: String,
    pub to: String,
}

impl Window {
    pub fn time(from: DateTime<Utc>, to: Option<DateTime<Utc>>) -> Result<Self, EmptyWindow> {
        match to {
            Some(to) if to <= from => Err(EmptyWindow {
                from: rfc3339(from),
                to: rfc3339(to),
            }),
            _ => Ok(Self::Time { from, to }),
        }
    }

    pub fn position(from: i64, to: Option<i64>) -> Result<Self, EmptyWindow> {
        match to {
            Some(to) if to <= from => Err(EmptyWindow {
                from: from.to_string(),
                to: to.to_string(),
            }),
            _ => Ok(Self::Position { from, to }),
        }
    }

    /// The SQL conditions on `events e`. Only integers are written into
    /// the text (COPY takes no parameters), so nothing can be injected.
    fn conditions(&self) -> Vec<String> {
        let (column, from, to) = match *self {
            Self::Time { from, to } => ("occurred_at", at_micros(from), to.map(at_micros)),
            Self::Position { from, to } => {
                ("position", from.to_string(), to.map(|p| p.to_string()))
            }
        };
        let mut conditions = vec![format!("e.{column} >= {from}")];
        conditions.extend(to.map(|to| format!("e.{column} < {to}")));
        conditions
    }
}

/// `t` as SQL, rounded up to the microsecond Postgres stores: on whole
/// microseconds, `x >= t` is `x >= ceil(t)` and `x < t` is `x < ceil(t)`.
fn at_micros(t: DateTime<Utc>) -> String {
    let micros =
        t.timestamp_micros() + i64::from(!t.timestamp_subsec_nanos().is_multiple_of(1_000));
    format!("(timestamptz 'epoch' + {micros} * interval '1 microsecond')")
}

/// What to export: a window, and optionally one kind of stream.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Selection {
    pub window: Window,
    pub kind: Option<StreamKind>,
}

/// How each row is written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// One JSON object per line; payload and metadata as JSON objects.
    Jsonl,
    /// A header, then one record per event; payload and metadata as JSON text.
    Csv,
}

impl Format {
    pub const ALL: [Format; 2] = [Self::Jsonl, Self::Csv];

    pub fn name(self) -> &'static str {
        match self {
            Self::Jsonl => "jsonl",
            Self::Csv => "csv",
        }
    }
}

/// The columns of an export, in order: the CSV header, the JSON keys.
/// `seal_seq` and `hash` are empty (null) for an event not sealed yet.
pub const COLUMNS: [&str; 11] = [
    "position",
    "seal_seq",
    "event_id",
    "stream_id",
    "stream_version",
    "event_type",
    "schema_version",
    "occurred_at",
    "payload",
    "metadata",
    "hash",
];

/// A link of the chain and where it stands in it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Seal {
    pub seq: i64,
    pub hash: Hash,
}

/// One exported event: the event as the chain hashes it, and its seal.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ExportedEvent {
    pub event: Sealable,
    pub seal: Option<Seal>,
}

/// What an export wrote.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Exported {
    pub events: u64,
    /// Events the sealer had not reached (no seal, no hash).
    pub unsealed: u64,
}

#[derive(Debug, thiserror::Error)]
pub enum ExportError {
    #[error("reading the events: {0}")]
    Db(#[from] tokio_postgres::Error),
    #[error("writing the export: {0}")]
    Write(#[from] io::Error),
}

/// Events written between two calls of the progress callback.
pub const PROGRESS_EVERY: u64 = 10_000;

/// Writes the selected events to `out` in the store's commit-safe order,
/// as of one snapshot, and flushes it. Like the relay, it stops before the
/// oldest transaction still running: what commits later sorts after it.
pub async fn export(
    client: &Client,
    selection: &Selection,
    format: Format,
    out: impl Write,
    mut progress: impl FnMut(u64),
) -> Result<Exported, ExportError> {
    let mut sink = Sink::new(format, out)?;
    let types: Vec<Type> = [Type::INT8, Type::BYTEA]
        .into_iter()
        .chain(SEALABLE_TYPES)
        .collect();
    let rows = BinaryCopyOutStream::new(client.copy_out(&copy_sql(selection)).await?, &types);
    pin_mut!(rows);
    let mut done = Exported::default();
    while let Some(row) = rows.try_next().await? {
        let exported = exported(&row)?;
        sink.write(&exported)?;
        done.events += 1;
        done.unsealed += u64::from(exported.seal.is_none());
        if done.events % PROGRESS_EVERY == 0 {
            progress(done.events);
        }
    }
    sink.finish()?;
    progress(done.events);
    Ok(done)
}

/// The COPY of the selection: each event with its seal, if any.
fn copy_sql(selection: &Selection) -> String {
    let mut conditions = vec![committed("e.tx_id")];
    conditions.extend(selection.window.conditions());
    if let Some(kind) = selection.kind {
        // A prefix is a constant of the code (letters and a dash).
        conditions.push(format!("starts_with(e.stream_id, '{}')", kind.prefix()));
    }
    format!(
        "COPY (SELECT s.seq, s.hash, {}
                 FROM events e LEFT JOIN event_seals s ON s.position = e.position
                WHERE {}
                ORDER BY e.tx_id, e.position)
         TO STDOUT (FORMAT binary)",
        Sealable::columns("e"),
        conditions.join(" AND ")
    )
}

fn exported(row: &BinaryCopyOutRow) -> Result<ExportedEvent, tokio_postgres::Error> {
    let seq: Option<i64> = row.try_get(0)?;
    let hash: Option<Vec<u8>> = row.try_get(1)?;
    let seal = seq.zip(hash).map(|(seq, hash)| Seal {
        seq,
        hash: from_bytes(hash),
    });
    let event = Sealable::from_copy_row_at(row, 2)?;
    Ok(ExportedEvent { event, seal })
}

/// Postgres' estimate of the rows an export writes (no scan), to size a
/// progress bar: from the positions for a position window (identities
/// have gaps only where a transaction rolled back), else the table's size.
pub async fn estimate(
    client: &Client,
    selection: &Selection,
) -> Result<u64, tokio_postgres::Error> {
    if let Window::Position { from, to } = selection.window {
        let row = client
            .query_one("SELECT coalesce(max(position), 0) FROM events", &[])
            .await?;
        let end = to.unwrap_or(i64::MAX).min(row.get::<_, i64>(0) + 1);
        return Ok(u64::try_from(end - from).unwrap_or(0));
    }
    crate::replay::estimated_rows(client, "events").await
}

/// One cell of a row, told apart for JSON (numbers, raw JSON, null).
enum Cell<'a> {
    Number(i64),
    Text(Cow<'a, str>),
    Json(&'a str),
    Null,
}

/// The cells of `row`, in [`COLUMNS`] order.
fn cells(row: &ExportedEvent) -> [Cell<'_>; 11] {
    let e = &row.event;
    let seq = row.seal.map_or(Cell::Null, |s| Cell::Number(s.seq));
    let hash = row
        .seal
        .map_or(Cell::Null, |s| Cell::Text(to_hex(&s.hash).into()));
    [
        Cell::Number(e.position),
        seq,
        Cell::Text(e.event_id.to_string().into()),
        Cell::Text(Cow::Borrowed(&e.stream_id)),
        Cell::Number(e.stream_version.into()),
        Cell::Text(Cow::Borrowed(&e.event_type)),
        Cell::Number(e.schema_version.into()),
        Cell::Text(rfc3339(e.occurred_at).into()),
        Cell::Json(&e.payload),
        Cell::Json(&e.metadata),
        hash,
    ]
}

/// An instant as RFC 3339 in UTC, to the microsecond (what is stored and hashed).
fn rfc3339(t: DateTime<Utc>) -> String {
    t.to_rfc3339_opts(SecondsFormat::Micros, true)
}

/// Where the rows go, in the chosen format.
enum Sink<W: Write> {
    Jsonl(W),
    // One sink per export: boxed to keep the enum small, not for speed.
    Csv(Box<csv::Writer<W>>),
}

impl<W: Write> Sink<W> {
    fn new(format: Format, out: W) -> io::Result<Self> {
        Ok(match format {
            Format::Jsonl => Self::Jsonl(out),
            Format::Csv => {
                let mut writer = csv::Writer::from_writer(out);
                writer.write_record(COLUMNS)?;
                Self::Csv(Box::new(writer))
            }
        })
    }

    fn write(&mut self, row: &ExportedEvent) -> io::Result<()> {
        match self {
            Self::Jsonl(out) => write_jsonl(out, row),
            Self::Csv(writer) => write_csv(writer, row),
        }
    }

    fn finish(self) -> io::Result<()> {
        match self {
            Self::Jsonl(mut out) => out.flush(),
            Self::Csv(mut writer) => writer.flush(),
        }
    }
}

/// One line: an object with [`COLUMNS`] as keys. The payload and metadata
/// are jsonb text, which is JSON: they go in as they are.
fn write_jsonl(out: &mut impl Write, row: &ExportedEvent) -> io::Result<()> {
    for (i, (name, cell)) in COLUMNS.iter().zip(cells(row)).enumerate() {
        out.write_all(if i == 0 { b"{\"" } else { b",\"" })?;
        out.write_all(name.as_bytes())?;
        out.write_all(b"\":")?;
        match cell {
            Cell::Number(n) => write!(out, "{n}")?,
            Cell::Text(text) => serde_json::to_writer(&mut *out, text.as_ref())?,
            Cell::Json(json) => out.write_all(json.as_bytes())?,
            Cell::Null => out.write_all(b"null")?,
        }
    }
    out.write_all(b"}\n")
}

/// One record; null is an empty cell (no other column is ever empty).
/// Text and JSON cells go through the exports' one neutraliser
/// (`csv_line::cell`): a spreadsheet opens the file as data.
fn write_csv(writer: &mut csv::Writer<impl Write>, row: &ExportedEvent) -> io::Result<()> {
    for cell in cells(row) {
        match cell {
            Cell::Number(n) => writer.write_field(n.to_string())?,
            Cell::Text(text) => {
                writer.write_field(crate::domain::csv_line::cell(text.as_ref()).as_bytes())?
            }
            Cell::Json(json) => {
                writer.write_field(crate::domain::csv_line::cell(json).as_bytes())?
            }
            Cell::Null => writer.write_field("")?,
        }
    }
    writer.write_record(None::<&[u8]>)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::TimeZone;

    fn row(seal: Option<Seal>) -> ExportedEvent {
        ExportedEvent {
            event: Sealable {
                position: 7,
                event_id: uuid::Uuid::nil(),
                stream_id: "coupon-\"quoted\"".into(),
                stream_version: 2,
                event_type: crate::domain::EventType::CouponIssued.as_str().into(),
                schema_version: 1,
                payload: r#"{"n": 1, "note": "a, b"}"#.into(),
                metadata: "{}".into(),
                occurred_at: Utc.with_ymd_and_hms(2026, 11, 23, 8, 0, 0).unwrap(),
                tx_id: 900,
            },
            seal,
        }
    }

    fn written(format: Format, row: &ExportedEvent) -> String {
        let mut out = Vec::new();
        let mut sink = Sink::new(format, &mut out).unwrap();
        sink.write(row).unwrap();
        sink.finish().unwrap();
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn a_jsonl_line_keeps_the_payload_text_and_escapes_strings() {
        let seal = Seal {
            seq: 3,
            hash: [0xab; 32],
        };
        let line = written(Format::Jsonl, &row(Some(seal)));
        assert!(line.ends_with("}\n") && line.matches('\n').count() == 1);
        assert!(line.contains(r#""payload":{"n": 1, "note": "a, b"},"metadata":{},"#));
        let v: serde_json::Value = serde_json::from_str(&line).unwrap();
        assert_eq!(v["stream_id"], "coupon-\"quoted\"");
        assert_eq!(v["occurred_at"], "2026-11-23T08:00:00.000000Z");
        assert_eq!(
            (v["seal_seq"].as_i64(), v["position"].as_i64()),
            (Some(3), Some(7))
        );
        assert_eq!(v["hash"], "ab".repeat(32));
        let keys: Vec<&str> = v.as_object().unwrap().keys().map(String::as_str).collect();
        assert_eq!(keys.len(), COLUMNS.len());
    }

    #[test]
    fn an_unsealed_row_has_null_in_json_and_empty_cells_in_csv() {
        let line = written(Format::Jsonl, &row(None));
        assert!(line.contains(r#""seal_seq":null,"#), "{line}");
        assert!(line.ends_with("\"hash\":null}\n"), "{line}");
        let csv = written(Format::Csv, &row(None));
        let mut lines = csv.lines();
        assert_eq!(lines.next(), Some(COLUMNS.join(",").as_str()));
        let record = lines.next().unwrap();
        assert!(record.starts_with("7,,00000000-0000-0000-0000-000000000000,"));
        assert!(record.ends_with(r#","{""n"": 1, ""note"": ""a, b""}",{},"#));
    }

    #[test]
    fn windows_are_half_open_and_refuse_an_end_not_after_the_start() {
        let t = Utc.with_ymd_and_hms(2026, 11, 23, 8, 0, 0).unwrap();
        assert!(Window::time(t, Some(t)).is_err());
        assert!(Window::time(t, Some(t - chrono::Duration::seconds(1))).is_err());
        assert!(Window::position(5, Some(5)).is_err());
        assert!(Window::position(5, Some(6)).is_ok() && Window::position(5, None).is_ok());
        let w = Window::position(5, Some(9)).unwrap();
        assert_eq!(w.conditions(), ["e.position >= 5", "e.position < 9"]);
    }

    #[test]
    fn an_instant_rounds_up_to_the_microsecond() {
        let t = Utc.with_ymd_and_hms(1970, 1, 1, 0, 0, 1).unwrap();
        let sql = |t| at_micros(t).split(" + ").nth(1).unwrap().to_owned();
        assert!(sql(t).starts_with("1000000 *"));
        assert!(sql(t + chrono::Duration::nanoseconds(1)).starts_with("1000001 *"));
        assert!(sql(t + chrono::Duration::nanoseconds(1_000)).starts_with("1000001 *"));
    }
}
