//! The file of one exported event partition (docs/design.md §16, "The
//! export file"): JSON lines, written by `ledger archive export-events`
//! and read by `ledger audit verify --file`, with no I/O here: each line
//! is made (and remade, to check a line read) by one function, so the
//! writer and the verifier can never disagree on a byte.
//!
//! 1. A header: format and version, store id, partition number and range,
//!    the count of its events, when it was exported; then `sha256`, the
//!    SHA-256 of the line's bytes before `,"sha256"`.
//! 2. One line per link of the chain from the partition's first event (in
//!    chain order) to the closing checkpoint's last seal: `kind` `event`
//!    (the partition's) or `bridge` (an event of a neighbouring partition
//!    that commit order interleaves with it, or that lies between its last
//!    event and the checkpoint), `seq`, the event's fields exactly as the
//!    chain hashes them (payload and metadata as Postgres' jsonb text),
//!    `prev` (the link before) and `hash` (its link).
//! 3. A footer: the closing checkpoint (id, seqs, positions, head,
//!    created_at), the counts of events and bridges, and its own `sha256`.
//!
//! Every byte is covered: a chain line by its link and the next line's
//! `prev`, the header and footer by their own digest, and any byte that
//! changes nothing parsed by the line no longer being the one remade.

use std::borrow::Cow;
use std::io::Write;

use chrono::{DateTime, SecondsFormat, Utc};
use serde::Deserialize;
use serde_json::value::RawValue;
use sha2::{Digest, Sha256};
use uuid::Uuid;

use super::chain::{Hash, Sealable, parse_hex, to_hex};
use super::seal::Checkpoint;

/// The format's name, in every header.
pub const FORMAT: &str = "couponledger-event-partition";
/// The format's version; a reader refuses any other.
pub const VERSION: i64 = 1;

/// The longest line a reader accepts. The largest event the store writes
/// is an allow-list part of 10,000 ids (under 1 MiB); a longer line is not
/// one the exporter wrote, and reading it would hold it in memory.
pub const MAX_LINE: usize = 16 << 20;

/// How each kind of line begins, always (its first key is `kind`).
pub const HEADER_START: &[u8] = b"{\"kind\":\"header\",";
pub const EVENT_START: &[u8] = b"{\"kind\":\"event\",";
pub const BRIDGE_START: &[u8] = b"{\"kind\":\"bridge\",";
pub const FOOTER_START: &[u8] = b"{\"kind\":\"checkpoint\",";

/// The first line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Header {
    pub store_id: Uuid,
    pub partition: i64,
    /// `[lower, upper)` of positions.
    pub range: (i64, i64),
    /// The partition's events in the file.
    pub events: i64,
    pub exported_at: DateTime<Utc>,
}

/// A chain line: the partition's own event, or a bridge.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Event,
    Bridge,
}

/// One link of the chain, as a line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ChainLine {
    pub kind: Kind,
    pub seq: i64,
    /// The event as the chain hashes it (its `tx_id`, which the chain does
    /// not hash, is not in the file: 0 when read back).
    pub event: Sealable,
    pub prev: Hash,
    pub hash: Hash,
}

/// The last line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Footer {
    pub checkpoint: Checkpoint,
    pub events: i64,
    pub bridges: i64,
}

/// An instant as the file writes it: RFC 3339, UTC, to the microsecond
/// (what Postgres stores and the chain hashes).
pub fn instant(t: DateTime<Utc>) -> String {
    t.to_rfc3339_opts(SecondsFormat::Micros, true)
}

/// `text` as a JSON string.
fn string(out: &mut Vec<u8>, text: &str) {
    serde_json::to_writer(&mut *out, text).expect("writing to a Vec cannot fail");
}

/// Appends `body` and its digest: `,"sha256":"<hex>"}` and the newline.
fn sealed(out: &mut Vec<u8>, body: &[u8]) {
    out.extend_from_slice(body);
    let digest: Hash = Sha256::digest(body).into();
    let _ = writeln!(out, ",\"sha256\":\"{}\"}}", to_hex(&digest));
}

/// The header line, newline included.
pub fn header_line(h: &Header, out: &mut Vec<u8>) {
    let mut body = Vec::with_capacity(256);
    body.extend_from_slice(HEADER_START);
    body.extend_from_slice(b"\"format\":");
    string(&mut body, FORMAT);
    let _ = write!(
        body,
        ",\"version\":{VERSION},\"store_id\":\"{}\",\"partition\":{},\"range\":[{},{}],\
         \"events\":{},\"exported_at\":\"{}\"",
        h.store_id,
        h.partition,
        h.range.0,
        h.range.1,
        h.events,
        instant(h.exported_at)
    );
    sealed(out, &body);
}

/// A chain line, newline included.
pub fn chain_line(l: &ChainLine, out: &mut Vec<u8>) {
    let e = &l.event;
    out.extend_from_slice(match l.kind {
        Kind::Event => EVENT_START,
        Kind::Bridge => BRIDGE_START,
    });
    let _ = write!(
        out,
        "\"seq\":{},\"position\":{},\"event_id\":\"{}\",\"stream_id\":",
        l.seq, e.position, e.event_id
    );
    string(out, &e.stream_id);
    let _ = write!(
        out,
        ",\"stream_version\":{},\"event_type\":",
        e.stream_version
    );
    string(out, &e.event_type);
    let _ = write!(
        out,
        ",\"schema_version\":{},\"occurred_at\":\"{}\",\"payload\":",
        e.schema_version,
        instant(e.occurred_at)
    );
    // jsonb text is JSON on one line (Postgres escapes newlines in strings).
    out.extend_from_slice(e.payload.as_bytes());
    out.extend_from_slice(b",\"metadata\":");
    out.extend_from_slice(e.metadata.as_bytes());
    let _ = writeln!(
        out,
        ",\"prev\":\"{}\",\"hash\":\"{}\"}}",
        to_hex(&l.prev),
        to_hex(&l.hash)
    );
}

/// The footer line, newline included.
pub fn footer_line(f: &Footer, out: &mut Vec<u8>) {
    let c = &f.checkpoint;
    let mut body = Vec::with_capacity(320);
    body.extend_from_slice(FOOTER_START);
    let _ = write!(
        body,
        "\"id\":{},\"first_seq\":{},\"last_seq\":{},\"min_position\":{},\"max_position\":{},\
         \"head\":\"{}\",\"created_at\":\"{}\",\"events\":{},\"bridges\":{}",
        c.id,
        c.first_seq,
        c.last_seq,
        c.min_position,
        c.max_position,
        to_hex(&c.head),
        instant(c.created_at),
        f.events,
        f.bridges
    );
    sealed(out, &body);
}

/// Why a line could not be read as what it says it is.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum LineError {
    #[error("not a valid line of its kind: {0}")]
    Json(String),
    #[error("{field} is not valid: {value:?}")]
    Field { field: &'static str, value: String },
    #[error(
        "the format is {format:?} version {version}; this reader knows {FORMAT:?} version {VERSION}"
    )]
    Format { format: String, version: i64 },
    #[error("its content no longer gives its own sha256: a byte of it was changed")]
    Digest,
}

fn field<T>(field: &'static str, value: &str, parsed: Option<T>) -> Result<T, LineError> {
    parsed.ok_or_else(|| LineError::Field {
        field,
        value: value.to_owned(),
    })
}

fn hash_field(name: &'static str, text: &str) -> Result<Hash, LineError> {
    field(name, text, parse_hex(text))
}

fn instant_field(name: &'static str, text: &str) -> Result<DateTime<Utc>, LineError> {
    let parsed = DateTime::parse_from_rfc3339(text).ok();
    field(name, text, parsed.map(|t| t.with_timezone(&Utc)))
}

fn json<'a, T: Deserialize<'a>>(line: &'a [u8]) -> Result<T, LineError> {
    serde_json::from_slice(line).map_err(|e| LineError::Json(e.to_string()))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct HeaderIn<'a> {
    #[serde(rename = "kind")]
    _kind: &'a str,
    #[serde(borrow)]
    format: Cow<'a, str>,
    version: i64,
    store_id: &'a str,
    partition: i64,
    range: (i64, i64),
    events: i64,
    exported_at: &'a str,
    sha256: &'a str,
}

/// The header of `line` (which begins with [`HEADER_START`]).
pub fn parse_header(line: &[u8]) -> Result<(Header, Hash), LineError> {
    let h: HeaderIn = json(line)?;
    if h.format != FORMAT || h.version != VERSION {
        return Err(LineError::Format {
            format: h.format.into_owned(),
            version: h.version,
        });
    }
    let header = Header {
        store_id: field("store_id", h.store_id, Uuid::parse_str(h.store_id).ok())?,
        partition: h.partition,
        range: h.range,
        events: h.events,
        exported_at: instant_field("exported_at", h.exported_at)?,
    };
    Ok((header, hash_field("sha256", h.sha256)?))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ChainIn<'a> {
    #[serde(rename = "kind")]
    _kind: &'a str,
    seq: i64,
    position: i64,
    event_id: &'a str,
    #[serde(borrow)]
    stream_id: Cow<'a, str>,
    stream_version: i32,
    #[serde(borrow)]
    event_type: Cow<'a, str>,
    schema_version: i16,
    occurred_at: &'a str,
    #[serde(borrow)]
    payload: &'a RawValue,
    #[serde(borrow)]
    metadata: &'a RawValue,
    prev: &'a str,
    hash: &'a str,
}

/// The chain line `line` (which begins with [`EVENT_START`] or
/// [`BRIDGE_START`]: `kind`).
pub fn parse_chain_line(line: &[u8], kind: Kind) -> Result<ChainLine, LineError> {
    let l: ChainIn = json(line)?;
    let event = Sealable {
        position: l.position,
        event_id: field("event_id", l.event_id, Uuid::parse_str(l.event_id).ok())?,
        stream_id: l.stream_id.into_owned(),
        stream_version: l.stream_version,
        event_type: l.event_type.into_owned(),
        schema_version: l.schema_version,
        payload: l.payload.get().to_owned(),
        metadata: l.metadata.get().to_owned(),
        occurred_at: instant_field("occurred_at", l.occurred_at)?,
        tx_id: 0,
    };
    Ok(ChainLine {
        kind,
        seq: l.seq,
        event,
        prev: hash_field("prev", l.prev)?,
        hash: hash_field("hash", l.hash)?,
    })
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct FooterIn<'a> {
    #[serde(rename = "kind")]
    _kind: &'a str,
    id: i64,
    first_seq: i64,
    last_seq: i64,
    min_position: i64,
    max_position: i64,
    head: &'a str,
    created_at: &'a str,
    events: i64,
    bridges: i64,
    sha256: &'a str,
}

/// The footer of `line` (which begins with [`FOOTER_START`]).
pub fn parse_footer(line: &[u8]) -> Result<(Footer, Hash), LineError> {
    let f: FooterIn = json(line)?;
    let checkpoint = Checkpoint {
        id: f.id,
        first_seq: f.first_seq,
        last_seq: f.last_seq,
        min_position: f.min_position,
        max_position: f.max_position,
        head: hash_field("head", f.head)?,
        created_at: instant_field("created_at", f.created_at)?,
    };
    let footer = Footer {
        checkpoint,
        events: f.events,
        bridges: f.bridges,
    };
    Ok((footer, hash_field("sha256", f.sha256)?))
}

/// Whether a header or footer read back is what its line says: remade,
/// its digest must be the one it carries (else a byte of its content
/// changed) and its bytes those read (else a byte changed that parses the
/// same, as an upper-case hex digit does).
pub fn check_sealed(line: &[u8], stated: &Hash, remade: &[u8]) -> Result<(), LineError> {
    let body_end = remade.len() - ",\"sha256\":\"\"}\n".len() - 64;
    let digest: Hash = Sha256::digest(&remade[..body_end]).into();
    if digest != *stated {
        return Err(LineError::Digest);
    }
    if remade != line {
        return Err(LineError::Digest);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::TimeZone;

    fn at() -> DateTime<Utc> {
        Utc.with_ymd_and_hms(2026, 11, 23, 8, 0, 0).unwrap()
    }

    fn chain() -> ChainLine {
        ChainLine {
            kind: Kind::Bridge,
            seq: 4,
            event: Sealable {
                position: 9,
                event_id: Uuid::nil(),
                stream_id: "coupon-\"q\"\n".into(),
                stream_version: 2,
                event_type: "ChannelCreated".into(),
                schema_version: 1,
                payload: r#"{"n": 1, "s": "é\u0001"}"#.into(),
                metadata: "{}".into(),
                occurred_at: at(),
                tx_id: 0,
            },
            prev: [1; 32],
            hash: [2; 32],
        }
    }

    #[test]
    fn a_chain_line_reads_back_as_written_byte_for_byte() {
        let mut out = Vec::new();
        chain_line(&chain(), &mut out);
        assert!(out.starts_with(BRIDGE_START) && out.ends_with(b"}\n"));
        assert_eq!(out.iter().filter(|b| **b == b'\n').count(), 1);
        let back = parse_chain_line(&out, Kind::Bridge).unwrap();
        assert_eq!(back, chain());
        let mut again = Vec::new();
        chain_line(&back, &mut again);
        assert_eq!(again, out);
    }

    #[test]
    fn a_header_and_footer_carry_their_own_digest() {
        let h = Header {
            store_id: Uuid::nil(),
            partition: 1,
            range: (50, 100),
            events: 3,
            exported_at: at(),
        };
        let mut line = Vec::new();
        header_line(&h, &mut line);
        let (back, digest) = parse_header(&line).unwrap();
        assert_eq!(back, h);
        assert_eq!(check_sealed(&line, &digest, &line), Ok(()));
        let mut changed = line.clone();
        let digit = changed.windows(3).position(|w| w == b":3,").unwrap();
        changed[digit + 1] = b'4';
        let (read, digest) = parse_header(&changed).unwrap();
        let mut remade = Vec::new();
        header_line(&read, &mut remade);
        assert_eq!(
            check_sealed(&changed, &digest, &remade),
            Err(LineError::Digest)
        );
        let f = Footer {
            checkpoint: Checkpoint {
                id: 2,
                first_seq: 1,
                last_seq: 9,
                min_position: 1,
                max_position: 12,
                head: [7; 32],
                created_at: at(),
            },
            events: 3,
            bridges: 1,
        };
        let mut line = Vec::new();
        footer_line(&f, &mut line);
        let (back, digest) = parse_footer(&line).unwrap();
        assert_eq!(back, f);
        assert_eq!(check_sealed(&line, &digest, &line), Ok(()));
    }
}
