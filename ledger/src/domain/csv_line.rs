//! The one CSV writer of every export the ledger writes (issuance job
//! reports, liability and cost, the event export, redemption codes): one
//! record as a line, quoted where a field needs it, and every cell safe to
//! open in a spreadsheet.
//!
//! Spreadsheets run a cell that begins with `=`, `+`, `-` or `@` as a
//! formula (a tab or carriage return first can lead to the same), and an
//! uploaded user id or a template's shop id is whatever its sender chose.
//! As OWASP's CSV-injection guidance says, such a cell gets a `'` in front,
//! which spreadsheets show as text. A cell that already begins with `'`
//! gets one too, so that a reader recovers every value the same way: drop
//! one leading `'` where a cell has one (docs/reference/finance.md, "CSV
//! files"). Plain numbers (`-12.50`) are left as they are: a spreadsheet
//! reads them as numbers, never as formulas.

use std::borrow::Cow;

/// What makes a spreadsheet read a cell as something other than text.
const TRIGGERS: [char; 6] = ['=', '+', '-', '@', '\t', '\r'];
/// The prefix that neutralises a cell (and that a reader drops).
const QUOTE: char = '\'';

/// `field` as a cell safe to open: `'` in front of a formula-like value or
/// one that begins with `'`; anything else unchanged.
pub fn cell(field: &str) -> Cow<'_, str> {
    let first = field.chars().next();
    let risky = first.is_some_and(|c| TRIGGERS.contains(&c)) && !is_plain_number(field);
    if risky || first == Some(QUOTE) {
        Cow::Owned(format!("{QUOTE}{field}"))
    } else {
        Cow::Borrowed(field)
    }
}

/// The value a reader recovers from a cell this module wrote.
pub fn value(cell: &str) -> &str {
    cell.strip_prefix(QUOTE).unwrap_or(cell)
}

/// An optional sign, digits, and at most one `.` among them: what every
/// spreadsheet reads as a number.
fn is_plain_number(field: &str) -> bool {
    let digits = field.strip_prefix(['-', '+']).unwrap_or(field);
    let mut parts = digits.splitn(2, '.');
    let whole = parts.next().unwrap_or("");
    let fraction = parts.next();
    let all_digits = |s: &str| s.bytes().all(|b| b.is_ascii_digit());
    !whole.is_empty()
        && all_digits(whole)
        && fraction.is_none_or(|f| !f.is_empty() && all_digits(f))
}

/// One CSV record, each field a safe [`cell`], quoted where it needs it
/// (csv-core's writer), ending in a newline.
pub fn record(fields: &[&str]) -> String {
    let mut writer = csv_core::Writer::new();
    // Each field quoted, its quotes doubled, and the `'` a cell may gain.
    let room: usize = fields.iter().map(|f| 5 + 2 * f.len()).sum::<usize>() + 2;
    let mut out = vec![0_u8; room];
    let mut n = 0;
    for (i, field) in fields.iter().enumerate() {
        if i > 0 {
            n += writer.delimiter(&mut out[n..]).1;
        }
        n += writer.field(cell(field).as_bytes(), &mut out[n..]).2;
    }
    n += writer.terminator(&mut out[n..]).1;
    out.truncate(n);
    String::from_utf8(out).expect("CSV of UTF-8 fields is UTF-8")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formula_like_cells_are_neutralised_and_recovered() {
        for risky in [
            "=HYPERLINK(\"http://evil.example/x\",\"click\")",
            "=1+2",
            "+1+2",
            "-1+2",
            "@SUM(A1)",
            "\t=1",
            "\r=1",
            "'already quoted",
            "-",
            "+",
        ] {
            let safe = cell(risky);
            assert!(safe.starts_with('\''), "{risky:?} -> {safe:?}");
            assert_eq!(value(&safe), risky);
        }
    }

    #[test]
    fn plain_values_and_numbers_are_unchanged() {
        for plain in ["user-42", "", "12", "-12.50", "+3", "0.5", "a=b", "shop 1"] {
            assert_eq!(cell(plain), plain, "{plain:?}");
            assert_eq!(value(&cell(plain)), plain);
        }
        for not_number in ["-1.", "-.5", "-1.2.3", "-1e5", "--1"] {
            assert!(cell(not_number).starts_with('\''), "{not_number:?}");
        }
    }

    #[test]
    fn a_record_quotes_where_needed_after_neutralising() {
        assert_eq!(record(&["1", "=1+2", "a,b"]), "1,'=1+2,\"a,b\"\n");
        assert_eq!(
            record(&["=HYPERLINK(\"x\")"]),
            "\"'=HYPERLINK(\"\"x\"\")\"\n"
        );
    }
}
