//! A run of a batch's codes as text, for `GET /v1/code-batches/{id}/codes`
//! and `ledger codes export`: one code a line, or `serial,code`.

use std::ops::Range;

use super::{CODE_LEN, CodeKey};

/// The codes of `serials` under `key`, a line each.
pub fn lines(key: &CodeKey, serials: Range<i64>, csv: bool) -> String {
    let count = usize::try_from(serials.end - serials.start).unwrap_or(0);
    let mut out = String::with_capacity(count * (CODE_LEN + if csv { 12 } else { 1 }));
    for serial in serials {
        let code = key.encode(u64::try_from(serial).expect("serials are not negative"));
        if csv {
            // Through the exports' one CSV writer, like every other CSV.
            out.push_str(&crate::domain::csv_line::record(&[
                &serial.to_string(),
                code.as_str(),
            ]));
        } else {
            out.push_str(code.as_str());
            out.push('\n');
        }
    }
    out
}
