//! One CSV record as a line, for the reports that write CSV (issuance job
//! reports, the liability report).

/// One CSV record, quoted where a field needs it (csv-core's writer).
pub fn record(fields: &[&str]) -> String {
    let mut writer = csv_core::Writer::new();
    let room: usize = fields.iter().map(|f| 3 + 2 * f.len()).sum::<usize>() + 2;
    let mut out = vec![0_u8; room];
    let mut n = 0;
    for (i, field) in fields.iter().enumerate() {
        if i > 0 {
            n += writer.delimiter(&mut out[n..]).1;
        }
        n += writer.field(field.as_bytes(), &mut out[n..]).2;
    }
    n += writer.terminator(&mut out[n..]).1;
    out.truncate(n);
    String::from_utf8(out).expect("CSV of UTF-8 fields is UTF-8")
}
