//! Rates as people read them: `16,139/s`, not `16139.2735/s`. Whole units
//! with thousands grouped; one decimal below 10, where a whole number
//! would hide most of the rate (`0.4/s` is not `0/s`).

/// `rate` per second, e.g. `16,139/s`.
pub fn per_second(rate: f64) -> String {
    format!("{}/s", amount(rate))
}

/// `rate` rounded for reading, e.g. `16,139` or `2.5`.
pub fn amount(rate: f64) -> String {
    if !rate.is_finite() || rate < 0.0 {
        return "-".to_owned();
    }
    if rate < 10.0 {
        return format!("{rate:.1}");
    }
    grouped(rate.round() as u64)
}

/// `n` with a comma between each group of three digits.
fn grouped(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, d) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(d);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rates_are_rounded_and_grouped() {
        assert_eq!(per_second(16_139.273_5), "16,139/s");
        assert_eq!(per_second(2_290_000.4), "2,290,000/s");
        assert_eq!(per_second(999.5), "1,000/s");
        assert_eq!(per_second(123.4), "123/s");
        assert_eq!(per_second(2.54), "2.5/s");
        assert_eq!(per_second(0.0), "0.0/s");
        assert_eq!(per_second(f64::NAN), "-/s");
    }
}
