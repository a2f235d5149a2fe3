//! The progress bar of the long commands.

/// A progress bar on stderr (hidden when stderr is not a terminal).
pub fn bar(total: u64, what: &str) -> indicatif::ProgressBar {
    let bar = if total > 0 {
        indicatif::ProgressBar::new(total)
    } else {
        indicatif::ProgressBar::no_length()
    };
    let style = indicatif::ProgressStyle::with_template(
        "{msg} {wide_bar} {pos}/{len} events ({per_sec}, eta {eta})",
    )
    .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar());
    bar.set_style(style);
    bar.set_message(what.to_owned());
    bar
}
