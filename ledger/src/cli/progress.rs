//! The progress bar of the long commands.

/// A progress bar on stderr (hidden when stderr is not a terminal).
pub fn bar(total: u64, what: &str) -> indicatif::ProgressBar {
    counted(
        total,
        what,
        "{msg} {wide_bar} {pos}/{len} events ({per_sec}, eta {eta})",
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
        "{msg} {wide_bar} {pos}/{len} lines ({per_sec}, eta {eta})",
    )
}

/// A bar of codes written.
pub fn codes(total: u64, what: &str) -> indicatif::ProgressBar {
    counted(
        total,
        what,
        "{msg} {wide_bar} {pos}/{len} codes ({per_sec}, eta {eta})",
    )
}

fn counted(total: u64, what: &str, template: &str) -> indicatif::ProgressBar {
    let bar = if total > 0 {
        indicatif::ProgressBar::new(total)
    } else {
        indicatif::ProgressBar::no_length()
    };
    let style = indicatif::ProgressStyle::with_template(template)
        .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar());
    bar.set_style(style);
    bar.set_message(what.to_owned());
    bar
}
