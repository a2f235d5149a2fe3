//! The user-ID file of a bulk issuance (docs/design.md §9), parsed as it streams in:
//! bytes go in chunk by chunk, numbered lines come out, each blank, invalid
//! (with its reason) or a user. Nothing is held but the line being read, so
//! memory does not grow with the file.
//!
//! - `text/plain`: one user id per line.
//! - `text/csv`: the first line is a header naming a `user_id` column; each
//!   later line is one record (csv-core parses it; a record does not span
//!   lines: user-id files never need that, and line numbers stay exact).
//!
//! A line ends at `\n`; a `\r` before it and spaces or tabs around the id
//! are dropped. A line with nothing but spaces or tabs on it is blank
//! (skipped, counted), as docs/design.md §9 says; a CSV record whose user
//! field alone is empty is invalid ("empty after trim"), so a stray
//! character never vanishes silently. A UTF-8 byte-order mark opening the
//! file (spreadsheets write one) is not part of line 1. Line numbers are
//! 1-based, the CSV header included,
//! but the header is not a line of data: it is counted apart, so that
//! `lines_read = blank + invalid + valid` holds for both formats. A file
//! without a line of data (no bytes, only blank lines, only a CSV header)
//! is refused as a whole: a job over it could only ever be empty.

use crate::domain::ids::{MAX_USER_ID_LEN, UserId};

/// Longest line kept whole; the rest of a longer one is skipped, and the
/// line reported invalid (user ids are at most 64 characters).
pub const MAX_LINE_BYTES: usize = 4096;
/// The UTF-8 byte-order mark a spreadsheet may write before line 1.
const BOM: &[u8] = b"\xEF\xBB\xBF";
/// Most fields a CSV record may have.
const MAX_CSV_FIELDS: usize = 256;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FileFormat {
    Plain,
    Csv,
}

/// What one line of the file says.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LineKind {
    Blank,
    /// Why the line names no user, and its text for the report (escaped,
    /// at most [`MAX_SHOWN_CHARS`] characters).
    Invalid(Invalid, String),
    User(UserId),
}

/// How much of an invalid line the report shows.
pub const MAX_SHOWN_CHARS: usize = 80;

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Line {
    /// 1-based line number in the file.
    pub number: u64,
    pub kind: LineKind,
}

/// Why a line names no user.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum Invalid {
    #[error("empty after trim")]
    Empty,
    #[error("longer than {MAX_USER_ID_LEN} characters")]
    TooLong,
    #[error("contains a control, space or non-ASCII character at column {0}")]
    BadCharacter(usize),
    #[error("not a CSV record: {0}")]
    Csv(&'static str),
    #[error("has no user_id field (column {0})")]
    MissingField(usize),
}

/// A file that cannot be read as a whole.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum FileError {
    #[error("the CSV header (line 1) has no user_id column")]
    NoUserIdColumn,
    #[error("the CSV file does not begin with its header: line 1 must name a user_id column")]
    NoHeader,
    #[error("the file has no line of data (no bytes, only blank lines, or only a CSV header)")]
    Empty,
}

/// The streaming parser.
pub struct UserFile {
    format: FileFormat,
    /// The current line so far (at most MAX_LINE_BYTES).
    pending: Vec<u8>,
    /// The current line is longer than MAX_LINE_BYTES.
    overlong: bool,
    /// Lines completed so far, the header included (the next line's number - 1).
    lines: u64,
    /// Lines that name a user or are invalid (neither blank nor the header).
    data: u64,
    /// CSV: the index of the user_id column, once the header is read.
    column: Option<usize>,
    /// CSV: line 1 was blank; the file is empty or has no header.
    headless: bool,
}

impl UserFile {
    pub fn new(format: FileFormat) -> Self {
        Self {
            format,
            pending: Vec::with_capacity(128),
            overlong: false,
            lines: 0,
            data: 0,
            column: None,
            headless: false,
        }
    }

    /// Lines of the file read so far, blank ones included, the CSV header not.
    pub fn lines_read(&self) -> u64 {
        self.lines - self.header_lines()
    }

    /// 1 once a CSV file's header is read, else 0.
    pub fn header_lines(&self) -> u64 {
        u64::from(self.column.is_some())
    }

    /// Parses `bytes`, pushing every line they complete onto `out`.
    pub fn feed(&mut self, mut bytes: &[u8], out: &mut Vec<Line>) -> Result<(), FileError> {
        while let Some(end) = bytes.iter().position(|&b| b == b'\n') {
            self.take(&bytes[..end]);
            self.end_line(out)?;
            bytes = &bytes[end + 1..];
        }
        self.take(bytes);
        Ok(())
    }

    /// The end of the file: its last line, if it had no newline.
    pub fn finish(&mut self, out: &mut Vec<Line>) -> Result<(), FileError> {
        if !self.pending.is_empty() || self.overlong {
            self.end_line(out)?;
        }
        if self.data == 0 {
            return Err(FileError::Empty);
        }
        if self.format == FileFormat::Csv && self.column.is_none() {
            return Err(FileError::NoHeader);
        }
        Ok(())
    }

    fn take(&mut self, part: &[u8]) {
        let room = MAX_LINE_BYTES - self.pending.len();
        self.overlong |= part.len() > room;
        self.pending
            .extend_from_slice(&part[..part.len().min(room)]);
    }

    fn end_line(&mut self, out: &mut Vec<Line>) -> Result<(), FileError> {
        self.lines += 1;
        let mut raw = std::mem::take(&mut self.pending);
        if raw.last() == Some(&b'\r') {
            raw.pop();
        }
        if self.lines == 1 && raw.starts_with(BOM) {
            raw.drain(..BOM.len());
        }
        let kind = if std::mem::take(&mut self.overlong) {
            Some(invalid(Invalid::TooLong, &raw))
        } else {
            match self.format {
                FileFormat::Plain => Some(plain_line(&raw)),
                FileFormat::Csv => self.csv_line(&raw)?,
            }
        };
        raw.clear();
        self.pending = raw;
        if let Some(kind) = kind {
            self.data += u64::from(kind != LineKind::Blank);
            out.push(Line {
                number: self.lines,
                kind,
            });
        }
        Ok(())
    }

    /// A CSV line; None for the header.
    fn csv_line(&mut self, raw: &[u8]) -> Result<Option<LineKind>, FileError> {
        let Some(column) = self.column else {
            // Blank lines before any header: an empty file so far (refused
            // at its end), or one whose header is missing (refused here).
            self.headless |= trim(raw).is_empty() && self.lines == 1;
            if self.headless {
                if trim(raw).is_empty() {
                    return Ok(Some(LineKind::Blank));
                }
                return Err(FileError::NoHeader);
            }
            let fields = csv_fields(raw).map_err(|_| FileError::NoUserIdColumn)?;
            let column = fields
                .iter()
                .position(|f| trim(f).eq_ignore_ascii_case(b"user_id"));
            self.column = Some(column.ok_or(FileError::NoUserIdColumn)?);
            return Ok(None);
        };
        if trim(raw).is_empty() {
            return Ok(Some(LineKind::Blank));
        }
        Ok(Some(match csv_fields(raw) {
            Err(reason) => invalid(Invalid::Csv(reason), raw),
            Ok(fields) => match fields.get(column) {
                None => invalid(Invalid::MissingField(column + 1), raw),
                Some(field) => user(trim(field)),
            },
        }))
    }
}

fn plain_line(raw: &[u8]) -> LineKind {
    if trim(raw).is_empty() {
        return LineKind::Blank;
    }
    user(trim(raw))
}

/// The user a trimmed field names, or why it names none.
fn user(field: &[u8]) -> LineKind {
    if field.is_empty() {
        return invalid(Invalid::Empty, field);
    }
    if let Some(at) = field.iter().position(|b| !b.is_ascii_graphic()) {
        return invalid(Invalid::BadCharacter(at + 1), field);
    }
    if field.len() > MAX_USER_ID_LEN {
        return invalid(Invalid::TooLong, field);
    }
    let text = std::str::from_utf8(field).expect("visible ASCII is UTF-8");
    match UserId::parse(text) {
        Ok(id) => LineKind::User(id),
        Err(_) => invalid(Invalid::BadCharacter(1), field),
    }
}

/// An invalid line, with as much of its text as the report shows: escaped
/// (control characters, NUL and invalid UTF-8 never reach a text column).
fn invalid(reason: Invalid, text: &[u8]) -> LineKind {
    let shown: String = String::from_utf8_lossy(text)
        .chars()
        .take(MAX_SHOWN_CHARS)
        .flat_map(char::escape_debug)
        .collect();
    LineKind::Invalid(reason, shown)
}

fn trim(bytes: &[u8]) -> &[u8] {
    let is_space = |b: &u8| *b == b' ' || *b == b'\t';
    let start = bytes
        .iter()
        .position(|b| !is_space(b))
        .unwrap_or(bytes.len());
    let end = bytes
        .iter()
        .rposition(|b| !is_space(b))
        .map_or(start, |i| i + 1);
    &bytes[start..end]
}

/// The fields of one CSV record held on one line.
fn csv_fields(line: &[u8]) -> Result<Vec<Vec<u8>>, &'static str> {
    use csv_core::ReadRecordResult as R;
    let mut reader = csv_core::Reader::new();
    let mut output = vec![0; line.len() + 1];
    let mut ends = [0usize; MAX_CSV_FIELDS];
    let (mut nout, mut nend) = (0, 0);
    let mut input = line;
    loop {
        // InputEmpty means all of `input` was taken: then the end of input.
        let (result, _, o, e) = reader.read_record(input, &mut output[nout..], &mut ends[nend..]);
        (nout, nend) = (nout + o, nend + e);
        match result {
            R::InputEmpty => input = &[],
            R::Record | R::End => break,
            R::OutputEndsFull => return Err("too many fields"),
            R::OutputFull => return Err("field too long"),
        }
    }
    let mut start = 0;
    Ok(ends[..nend]
        .iter()
        .map(|&end| {
            let field = output[start..end].to_vec();
            start = end;
            field
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse_in_pieces(format: FileFormat, text: &[u8], piece: usize) -> Vec<Line> {
        let mut file = UserFile::new(format);
        let mut out = Vec::new();
        for chunk in text.chunks(piece.max(1)) {
            file.feed(chunk, &mut out).unwrap();
        }
        file.finish(&mut out).unwrap();
        out
    }

    fn kinds(lines: &[Line]) -> Vec<(u64, String)> {
        lines
            .iter()
            .map(|l| {
                let kind = match &l.kind {
                    LineKind::Blank => "blank".to_owned(),
                    LineKind::Invalid(why, _) => format!("invalid: {why}"),
                    LineKind::User(u) => format!("user {u}"),
                };
                (l.number, kind)
            })
            .collect()
    }

    #[test]
    fn plain_lines_are_numbered_trimmed_and_classified_whatever_the_chunking() {
        let text = format!(
            "u1\r\n  u2 \n\n   \nu\u{1}x\n{}\n\t42\nlast",
            "x".repeat(65)
        );
        let expected = vec![
            (1, "user u1".to_owned()),
            (2, "user u2".into()),
            (3, "blank".into()),
            (4, "blank".into()),
            (
                5,
                "invalid: contains a control, space or non-ASCII character at column 2".into(),
            ),
            (6, "invalid: longer than 64 characters".into()),
            (7, "user 42".into()),
            (8, "user last".into()),
        ];
        for piece in [1, 2, 3, 7, 1000] {
            let lines = parse_in_pieces(FileFormat::Plain, text.as_bytes(), piece);
            assert_eq!(kinds(&lines), expected, "pieces of {piece}");
        }
    }

    #[test]
    fn an_overlong_line_is_one_invalid_line_and_memory_stays_bounded() {
        let mut text = vec![b'x'; MAX_LINE_BYTES * 3];
        text.extend_from_slice(b"\nu2\n");
        let mut file = UserFile::new(FileFormat::Plain);
        let mut out = Vec::new();
        file.feed(&text, &mut out).unwrap();
        assert!(file.pending.capacity() <= MAX_LINE_BYTES * 2);
        file.finish(&mut out).unwrap();
        assert_eq!(
            kinds(&out),
            vec![
                (1, "invalid: longer than 64 characters".to_owned()),
                (2, "user u2".into())
            ]
        );
    }

    #[test]
    fn csv_takes_the_user_id_column_by_its_header() {
        let text = b"name,User_ID ,tier\r\nAnn,u1,gold\n\nBob,\"u,2\",x\n\"Cy\",  u3  \nDee\n";
        let lines = parse_in_pieces(FileFormat::Csv, text, 5);
        assert_eq!(
            kinds(&lines),
            vec![
                (2, "user u1".to_owned()),
                (3, "blank".into()),
                (4, "user u,2".into()),
                (5, "user u3".into()),
                (6, "invalid: has no user_id field (column 2)".into()),
            ]
        );
    }

    #[test]
    fn a_csv_without_its_column_or_header_is_refused() {
        let mut file = UserFile::new(FileFormat::Csv);
        let mut out = Vec::new();
        assert_eq!(
            file.feed(b"id,name\n", &mut out),
            Err(FileError::NoUserIdColumn)
        );
        let mut headless = UserFile::new(FileFormat::Csv);
        assert_eq!(
            headless.feed(b"\nuser_id\nu1\n", &mut out),
            Err(FileError::NoHeader)
        );
    }

    fn finished(format: FileFormat, text: &[u8]) -> (Result<(), FileError>, u64) {
        let mut file = UserFile::new(format);
        let mut out = Vec::new();
        file.feed(text, &mut out).unwrap();
        (file.finish(&mut out), file.lines_read())
    }

    #[test]
    fn a_file_without_a_line_of_data_is_empty() {
        for (format, text) in [
            (FileFormat::Plain, &b""[..]),
            (FileFormat::Plain, b"\n\r\n\n"),
            (FileFormat::Csv, b""),
            (FileFormat::Csv, b"\n\n"),
            (FileFormat::Csv, b"user_id\n"),
            (FileFormat::Csv, b"name,user_id\r\n\n\n"),
            (FileFormat::Plain, b"\n \t\n  \n"),
            (FileFormat::Csv, b"user_id\n  \n"),
        ] {
            let shown = String::from_utf8_lossy(text);
            assert_eq!(finished(format, text).0, Err(FileError::Empty), "{shown:?}");
        }
        assert_eq!(
            finished(FileFormat::Plain, b"\n\x01\n").0,
            Ok(()),
            "an invalid line is data"
        );
    }

    #[test]
    fn a_byte_order_mark_opening_the_file_is_not_part_of_line_one() {
        let bom = "\u{feff}";
        for (format, text, first) in [
            (FileFormat::Plain, format!("{bom}u1\nu2\n"), 1),
            (FileFormat::Csv, format!("{bom}user_id\r\nu1\nu2\n"), 2),
        ] {
            for piece in [1, 2, 4, 1000] {
                let lines = parse_in_pieces(format, text.as_bytes(), piece);
                let want = vec![(first, "user u1".to_owned()), (first + 1, "user u2".into())];
                assert_eq!(kinds(&lines), want, "{format:?} in pieces of {piece}");
            }
        }
        // Only the file's first bytes: a mark inside a later line stays in it.
        let lines = parse_in_pieces(FileFormat::Plain, "u1\n\u{feff}u2\n".as_bytes(), 3);
        assert!(matches!(lines[1].kind, LineKind::Invalid(..)));
    }

    #[test]
    fn the_csv_header_is_not_a_line_read() {
        let text = b"user_id\nu1\n\nu 2\n";
        let mut file = UserFile::new(FileFormat::Csv);
        let mut out = Vec::new();
        file.feed(text, &mut out).unwrap();
        file.finish(&mut out).unwrap();
        assert_eq!((file.lines_read(), file.header_lines()), (3, 1));
        assert_eq!(out.len(), 3, "blank + invalid + valid = lines_read");
        assert_eq!(out[0].number, 2, "line numbers stay the file's");
        assert_eq!(finished(FileFormat::Plain, b"u1\n\nu2").1, 3);
    }
}
