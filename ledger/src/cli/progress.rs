//! The progress bar of the long commands. Their rates are rounded for
//! people (`{rate}`: `16,139/s`); indicatif's own `{per_sec}` shows four
//! decimals.

/// A progress bar on stderr (hidden when stderr is not a terminal).
pub fn bar(total: u64, what: &str) -> indicatif::ProgressBar {
    counted(
        total,
        what,
        "{msg} {wide_bar} {pos}/{len} events ({rate}, eta {eta})",
    )
}

/// A bar of bytes sent (no length when the size is unknown, e.g. stdin).
pub fn bytes(total: u64, what: &str) -> indicatif::ProgressBar {
    counted(
        total,
        what,
        "{msg} {wide_bar} {bytes}/{total_bytes} ({bytes_per_sec}, eta {eta})",
    )
}

/// A bar of lines decided.
pub fn lines(total: u64, what: &str) -> indicatif::ProgressBar {
    counted(
        total,
        what,
        "{msg} {wide_bar} {pos}/{len} lines ({rate}, eta {eta})",
    )
}

/// A bar of codes written.
pub fn codes(total: u64, what: &str) -> indicatif::ProgressBar {
    counted(
        total,
        what,
        "{msg} {wide_bar} {pos}/{len} codes ({rate}, eta {eta})",
    )
}

/// A bar of `unit` (coupons moved, say).
pub fn counted_of(total: u64, what: &str, unit: &str) -> indicatif::ProgressBar {
    let template = format!("{{msg}} {{wide_bar}} {{pos}}/{{len}} {unit} ({{rate}}, eta {{eta}})");
    counted(total, what, &template)
}

fn counted(total: u64, what: &str, template: &str) -> indicatif::ProgressBar {
    let bar = if total > 0 {
        indicatif::ProgressBar::new(total)
    } else {
        indicatif::ProgressBar::no_length()
    };
    let style = indicatif::ProgressStyle::with_template(template)
        .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar())
        .with_key(
            "rate",
            |state: &indicatif::ProgressState, w: &mut dyn std::fmt::Write| {
                let _ = w.write_str(&super::rate::per_second(state.per_sec()));
            },
        );
    bar.set_style(style);
    bar.set_message(what.to_owned());
    bar
}
