//! `LEDGER_LOG_FORMAT`: how the binaries write their log lines (stderr).

/// Read on its own, before the rest of the configuration: logging starts first.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum LogFormat {
    /// Human-readable lines (tracing-subscriber's default format).
    #[default]
    Text,
    /// One JSON object per line (tracing-subscriber's JSON format).
    Json,
}

impl LogFormat {
    /// Reads `LEDGER_LOG_FORMAT` from the process environment.
    pub fn from_env() -> Result<Self, super::ConfigError> {
        Self::from_lookup(|name| std::env::var(name).ok())
    }

    /// Reads `LEDGER_LOG_FORMAT` through `lookup`, as the whole configuration
    /// reads it ([`super::Config::from_lookup`]): unset or empty is `text`.
    pub fn from_lookup(
        lookup: impl Fn(&str) -> Option<String>,
    ) -> Result<Self, super::ConfigError> {
        super::read::one(&lookup, "LEDGER_LOG_FORMAT", |v| v.log_format)
    }
}
