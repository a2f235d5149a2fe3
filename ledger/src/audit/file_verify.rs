//! `ledger audit verify --file FILE`: an exported event partition
//! ([`super::partition_file`]) verified offline, with no database. Each
//! line is read, parsed, remade and compared byte for byte; every link is
//! recomputed from its event and its `prev`, which must be the line
//! before's link; the chain must run without a gap in `seq` from the
//! partition's first event to the footer's checkpoint head; the events
//! marked the partition's must lie in its range and be as many as the
//! header says, the bridges outside it. The first thing that does not
//! hold is named with its line and position. One line is held at a time,
//! so memory stays flat whatever the file's size.

use std::fmt;
use std::io::{self, BufRead, Read};

use super::chain::{Hash, link, to_hex};
use super::partition_file::{
    self as file, BRIDGE_START, ChainLine, EVENT_START, FOOTER_START, Footer, HEADER_START, Header,
    Kind, LineError, MAX_LINE,
};

/// What a file that verified holds.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FileVerified {
    pub header: Header,
    pub footer: Footer,
    /// The seq of the file's first chain line.
    pub first_seq: i64,
    pub lines: u64,
}

/// The first thing in the file that does not hold.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FileFinding {
    /// 1-based.
    pub line: u64,
    /// The position of the event on that line, when it has one.
    pub position: Option<i64>,
    pub what: Difference,
}

/// What differs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Difference {
    /// The line cannot be read as what it begins as.
    Unreadable(LineError),
    /// The line begins as no kind of line of this format.
    UnknownLine,
    /// A line longer than [`MAX_LINE`].
    TooLong,
    /// Line 1 is not a header.
    NoHeader,
    /// A chain line reads, but is not the line the exporter makes of what
    /// it says: a byte changed that parses the same.
    NotAsWritten,
    /// `seq` is not the one after the line before.
    SeqGap { expected: i64, found: i64 },
    /// `prev` is not the line before's link.
    PrevDiffers { expected: Hash, found: Hash },
    /// The link recomputed from the line's event and `prev` is not its `hash`.
    LinkDiffers { computed: Hash, stated: Hash },
    /// The first chain line is a bridge: the file starts at the
    /// partition's first event.
    StartsWithBridge,
    /// An event of the partition outside the header's range.
    EventOutsideRange { range: (i64, i64) },
    /// A bridge inside the partition's range: an event of it marked as
    /// another's.
    BridgeInsideRange { range: (i64, i64) },
    /// The footer's checkpoint does not close the chain the file holds.
    CheckpointDiffers { last_seq: i64, head: Hash },
    /// The header or the footer count other than the lines hold.
    CountDiffers {
        what: &'static str,
        stated: i64,
        found: i64,
    },
    /// `--expect`'s head is none of the file's links.
    ExpectedHeadAbsent { expected: Hash },
    /// The file ends before its footer.
    Truncated,
    /// A line after the footer.
    AfterFooter,
}

impl fmt::Display for FileFinding {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "line {}", self.line)?;
        if let Some(p) = self.position {
            write!(f, " (position {p})")?;
        }
        write!(f, ": {}", self.what)
    }
}

impl fmt::Display for Difference {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Unreadable(e) => write!(f, "{e}"),
            Self::UnknownLine => f.write_str("not a line of an event partition export"),
            Self::TooLong => write!(f, "longer than {MAX_LINE} bytes: not an export line"),
            Self::NoHeader => f.write_str("the file does not begin with an export header"),
            Self::NotAsWritten => f.write_str(
                "the line reads, but not as the export wrote it: a byte of it was changed",
            ),
            Self::SeqGap { expected, found } => {
                write!(f, "seq {found} where the chain's next is {expected}")
            }
            Self::PrevDiffers { expected, found } => write!(
                f,
                "prev {} is not the link of the line before ({}): a hash was changed",
                to_hex(found),
                to_hex(expected)
            ),
            Self::LinkDiffers { computed, stated } => write!(
                f,
                "the link recomputed from the event is {}, the line says {}: \
                 a field, the payload or the hash was changed",
                to_hex(computed),
                to_hex(stated)
            ),
            Self::StartsWithBridge => {
                f.write_str("the chain begins with a bridge, not the partition's first event")
            }
            Self::EventOutsideRange { range } => write!(
                f,
                "an event of the partition outside its range [{}, {})",
                range.0, range.1
            ),
            Self::BridgeInsideRange { range } => write!(
                f,
                "a bridge inside the partition's range [{}, {}): it is the partition's own",
                range.0, range.1
            ),
            Self::CheckpointDiffers { last_seq, head } => write!(
                f,
                "the checkpoint does not close the file's chain, which ends at #{last_seq} with head {}",
                to_hex(head)
            ),
            Self::CountDiffers {
                what,
                stated,
                found,
            } => write!(f, "{what} says {stated}, the file holds {found}"),
            Self::ExpectedHeadAbsent { expected } => write!(
                f,
                "the expected head {} is none of the file's links",
                to_hex(expected)
            ),
            Self::Truncated => f.write_str("the file ends before its checkpoint footer: truncated"),
            Self::AfterFooter => f.write_str("a line after the checkpoint footer"),
        }
    }
}

/// Links verified between two calls of the progress callback.
pub const PROGRESS_EVERY: u64 = 10_000;

/// Verifies the file `input`; with `expect`, that head must be one of its
/// links (a checkpoint line finance kept). `Err` only when `input` cannot
/// be read.
pub fn verify_file(
    input: impl BufRead,
    expect: Option<Hash>,
    mut progress: impl FnMut(u64),
) -> io::Result<Result<FileVerified, FileFinding>> {
    let mut lines = Lines::new(input);
    let header = match lines.next()? {
        None => return Ok(Err(lines.finding(None, Difference::NoHeader))),
        Some(Err(what)) => return Ok(Err(lines.finding(None, what))),
        Some(Ok(line)) => match read_header(line) {
            Ok(header) => header,
            Err(what) => return Ok(Err(lines.finding(None, what))),
        },
    };
    let mut walk = Walk::new(header, expect);
    let footer = loop {
        let line = match lines.next()? {
            None => return Ok(Err(lines.finding(None, Difference::Truncated))),
            Some(Err(what)) => return Ok(Err(lines.finding(None, what))),
            Some(Ok(line)) => line,
        };
        if line.starts_with(FOOTER_START) {
            match walk.footer(line) {
                Ok(footer) => break footer,
                Err(what) => return Ok(Err(lines.finding(None, what))),
            }
        }
        if let Err((position, what)) = walk.chain(line) {
            return Ok(Err(lines.finding(position, what)));
        }
        if walk.links.is_multiple_of(PROGRESS_EVERY) {
            progress(walk.links);
        }
    };
    progress(walk.links);
    if lines.next()?.is_some() {
        return Ok(Err(lines.finding(None, Difference::AfterFooter)));
    }
    Ok(walk.finish(footer, lines.number))
}

fn read_header(line: &[u8]) -> Result<Header, Difference> {
    if !line.starts_with(HEADER_START) {
        return Err(Difference::NoHeader);
    }
    let (header, digest) = file::parse_header(line).map_err(Difference::Unreadable)?;
    let mut remade = Vec::with_capacity(line.len());
    file::header_line(&header, &mut remade);
    file::check_sealed(line, &digest, &remade).map_err(Difference::Unreadable)?;
    Ok(header)
}

/// The file's lines, one at a time, numbered.
struct Lines<R> {
    input: R,
    buf: Vec<u8>,
    number: u64,
}

impl<R: BufRead> Lines<R> {
    fn new(input: R) -> Self {
        Lines {
            input,
            buf: Vec::new(),
            number: 0,
        }
    }

    /// The next line with its newline (`None` at the end of the file).
    fn next(&mut self) -> io::Result<Option<Result<&[u8], Difference>>> {
        self.buf.clear();
        let limit = MAX_LINE as u64 + 1;
        let read = (&mut self.input)
            .take(limit)
            .read_until(b'\n', &mut self.buf)?;
        if read == 0 {
            return Ok(None);
        }
        self.number += 1;
        if self.buf.len() > MAX_LINE {
            return Ok(Some(Err(Difference::TooLong)));
        }
        Ok(Some(Ok(&self.buf)))
    }

    fn finding(&self, position: Option<i64>, what: Difference) -> FileFinding {
        FileFinding {
            line: self.number.max(1),
            position,
            what,
        }
    }
}

/// The chain walked so far.
struct Walk {
    header: Header,
    expect: Option<Hash>,
    expected_seen: bool,
    /// The last line's seq and link (none before the first).
    last: Option<(i64, Hash)>,
    first_seq: i64,
    events: i64,
    bridges: i64,
    links: u64,
    remade: Vec<u8>,
}

impl Walk {
    fn new(header: Header, expect: Option<Hash>) -> Self {
        Walk {
            header,
            expected_seen: expect.is_none(),
            expect,
            last: None,
            first_seq: 0,
            events: 0,
            bridges: 0,
            links: 0,
            remade: Vec::new(),
        }
    }

    /// One chain line; on a difference, its position (when it has one).
    fn chain(&mut self, line: &[u8]) -> Result<(), (Option<i64>, Difference)> {
        let kind = if line.starts_with(EVENT_START) {
            Kind::Event
        } else if line.starts_with(BRIDGE_START) {
            Kind::Bridge
        } else {
            return Err((None, Difference::UnknownLine));
        };
        let l =
            file::parse_chain_line(line, kind).map_err(|e| (None, Difference::Unreadable(e)))?;
        let at = Some(l.event.position);
        self.remade.clear();
        file::chain_line(&l, &mut self.remade);
        if self.remade != line {
            return Err((at, Difference::NotAsWritten));
        }
        self.link(&l).map_err(|what| (at, what))?;
        self.place(&l).map_err(|what| (at, what))
    }

    /// The line follows the one before and its link is its event's.
    fn link(&mut self, l: &ChainLine) -> Result<(), Difference> {
        if let Some((seq, hash)) = self.last {
            if l.seq != seq + 1 {
                return Err(Difference::SeqGap {
                    expected: seq + 1,
                    found: l.seq,
                });
            }
            if l.prev != hash {
                return Err(Difference::PrevDiffers {
                    expected: hash,
                    found: l.prev,
                });
            }
        } else {
            self.first_seq = l.seq;
        }
        let computed = link(&l.prev, &l.event);
        if computed != l.hash {
            return Err(Difference::LinkDiffers {
                computed,
                stated: l.hash,
            });
        }
        self.expected_seen |= self.expect == Some(computed);
        self.last = Some((l.seq, computed));
        self.links += 1;
        Ok(())
    }

    /// The line's kind agrees with its position and the partition's range.
    fn place(&mut self, l: &ChainLine) -> Result<(), Difference> {
        let range = self.header.range;
        let inside = (range.0..range.1).contains(&l.event.position);
        match l.kind {
            Kind::Bridge if self.links == 1 => Err(Difference::StartsWithBridge),
            Kind::Bridge if inside => Err(Difference::BridgeInsideRange { range }),
            Kind::Event if !inside => Err(Difference::EventOutsideRange { range }),
            Kind::Bridge => {
                self.bridges += 1;
                Ok(())
            }
            Kind::Event => {
                self.events += 1;
                Ok(())
            }
        }
    }

    /// The footer, read and checked against its own digest.
    fn footer(&self, line: &[u8]) -> Result<Footer, Difference> {
        let (footer, digest) = file::parse_footer(line).map_err(Difference::Unreadable)?;
        let mut remade = Vec::with_capacity(line.len());
        file::footer_line(&footer, &mut remade);
        file::check_sealed(line, &digest, &remade).map_err(Difference::Unreadable)?;
        Ok(footer)
    }

    /// After the footer (line `at`): it closes the chain, and the counts hold.
    fn finish(self, footer: Footer, at: u64) -> Result<FileVerified, FileFinding> {
        let fail = |what| {
            Err(FileFinding {
                line: at,
                position: None,
                what,
            })
        };
        let Some((last_seq, head)) = self.last else {
            return fail(Difference::CountDiffers {
                what: "the header",
                stated: self.header.events,
                found: 0,
            });
        };
        let c = &footer.checkpoint;
        if (c.last_seq, c.head) != (last_seq, head) {
            return fail(Difference::CheckpointDiffers { last_seq, head });
        }
        let counts = [
            ("the header", self.header.events, self.events),
            ("the footer's events", footer.events, self.events),
            ("the footer's bridges", footer.bridges, self.bridges),
        ];
        for (what, stated, found) in counts {
            if stated != found {
                return fail(Difference::CountDiffers {
                    what,
                    stated,
                    found,
                });
            }
        }
        if let (false, Some(expected)) = (self.expected_seen, self.expect) {
            return fail(Difference::ExpectedHeadAbsent { expected });
        }
        Ok(FileVerified {
            header: self.header,
            footer,
            first_seq: self.first_seq,
            lines: at,
        })
    }
}
