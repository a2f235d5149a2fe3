//! Configuration from the environment (docs/design.md §3, contract: names and defaults).
//!
//! Parsed once at start; a bad value is one clear error naming the variable.

use std::net::SocketAddr;
use std::str::FromStr;

use chrono_tz::Tz;

use crate::domain::reminder::NotifyAt;
use crate::operators::{self, Operator};

use crate::secret_box::Keyring;

pub const DEFAULT_DATABASE_URL: &str = "postgres://postgres@127.0.0.1:5432/couponledger";
pub const DEFAULT_AMQP_URL: &str = "amqp://guest:guest@127.0.0.1:5672/%2f";
pub const DEFAULT_REDIS_URL: &str = "redis://127.0.0.1:6379/0";
pub const DEFAULT_LISTEN: &str = "127.0.0.1:8080";
pub const DEFAULT_TZ: &str = "Asia/Shanghai";
pub const DEFAULT_REDIS_PREFIX: &str = "couponledger:";
pub const DEFAULT_NOTIFY_AT: &str = crate::domain::reminder::NotifyAt::DEFAULT;
pub const DEFAULT_NOTIFY_RETENTION_DAYS: &str = "7";
pub const DEFAULT_JOB_RETENTION_DAYS: &str = "90";
/// Ended coupons stay hot this long (docs/design.md §16): refunds and
/// disputes of the last quarter find them without a thaw.
pub const DEFAULT_ARCHIVE_AFTER_DAYS: &str = "90";
/// A second: a wallet a second old is what a user sees anyway between
/// two refreshes; a replica further behind is passed over for the primary.
pub const DEFAULT_REPLICA_MAX_LAG_MS: &str = "1000";
/// `serve`'s connections to the writer: enough for the group commits and
/// the requests in flight on a few cores; each is a Postgres backend, so
/// several serves on one database share its `max_connections`.
pub const DEFAULT_DB_POOL_SIZE: &str = "32";
/// 1 GiB.
pub const DEFAULT_FLASH_RECONCILE_SECS: &str = "5";
pub const DEFAULT_UPLOAD_MAX_BYTES: &str = "1073741824";
/// 30 s: a client streaming a file sends bytes all the time; one producing
/// it as it goes (a query piped into `ledger issue --file -`) may pause,
/// but rarely this long. Up to an hour, for the slowest producers.
pub const DEFAULT_UPLOAD_IDLE_SECS: &str = "30";
pub const DEFAULT_LOG_FORMAT: &str = "text";

/// `LEDGER_LOG_FORMAT`: how the binaries write their log lines (stderr).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum LogFormat {
    /// Human-readable lines (tracing-subscriber's default format).
    #[default]
    Text,
    /// One JSON object per line (tracing-subscriber's JSON format).
    Json,
}

impl LogFormat {
    /// Reads `LEDGER_LOG_FORMAT` from the process environment. Read on its
    /// own, before the rest of the configuration: logging starts first.
    pub fn from_env() -> Result<Self, ConfigError> {
        Self::from_lookup(|name| std::env::var(name).ok())
    }

    pub fn from_lookup(lookup: impl Fn(&str) -> Option<String>) -> Result<Self, ConfigError> {
        const VAR: &str = "LEDGER_LOG_FORMAT";
        match lookup(VAR).as_deref() {
            None | Some("") | Some("text") => Ok(Self::Text),
            Some("json") => Ok(Self::Json),
            Some(other) => Err(error(VAR, other, "not `text` or `json`")),
        }
    }
}

pub const DEFAULT_METRICS_REFRESH_SECS: &str = "15";

#[derive(Debug, thiserror::Error)]
#[error("{var}: {message} (got {value:?})")]
pub struct ConfigError {
    pub var: &'static str,
    pub value: String,
    pub message: String,
}

/// `Debug` is written by hand: it masks the URLs' passwords and leaves the
/// tokens (and any secret added later) out.
#[derive(Clone)]
pub struct Config {
    pub database: tokio_postgres::Config,
    pub database_url: String,
    pub amqp_url: String,
    pub redis_url: String,
    pub listen: SocketAddr,
    /// `LEDGER_ADMIN_TOKEN`, as given (the client `ledger issue` sends it).
    pub admin_token: Option<String>,
    /// Every operator of the admin role: `LEDGER_ADMIN_TOKEN`'s (`admin`)
    /// first, then `LEDGER_ADMIN_TOKENS`' (docs/design.md §7 "Operators").
    pub operators: Vec<Operator>,
    pub service_token: Option<String>,
    pub tz: Tz,
    /// Prefix of every Redis key (`LEDGER_REDIS_PREFIX`), so deployments and
    /// tests can share one Redis.
    pub redis_prefix: String,
    /// `LEDGER_SECRET_KEY` (+ `LEDGER_SECRET_KEYS_OLD`): seals channel
    /// secrets; None when unset (`serve` then needs `--dev`).
    pub secret_keys: Option<Keyring>,
    /// Largest uploaded user-ID file, decompressed (`LEDGER_UPLOAD_MAX_BYTES`).
    pub upload_max_bytes: u64,
    /// Longest wait for an upload's next bytes (`LEDGER_UPLOAD_IDLE_SECS`).
    pub upload_idle: std::time::Duration,
    /// When expiry reminders go out on their day (business time).
    pub notify_at: NotifyAt,
    /// Days sent and cancelled reminders are kept.
    pub notify_retention_days: u32,
    /// Days an ended issuance or package job (and its report) is kept.
    pub job_retention_days: u32,
    /// A streaming replica for lag-tolerant reads (`DATABASE_REPLICA_URL`).
    pub database_replica: Option<tokio_postgres::Config>,
    /// How far behind the replica may be for those reads
    /// (`LEDGER_REPLICA_MAX_LAG_MS`).
    pub replica_max_lag: std::time::Duration,
    /// `serve`'s writer connections at most (`LEDGER_DB_POOL_SIZE`).
    pub db_pool_size: usize,
    /// Days an ended coupon stays in `coupons` before the archiver moves
    /// it to `coupons_archive` (`LEDGER_ARCHIVE_AFTER_DAYS`; 0: at once).
    pub archive_after_days: u32,
    /// How often the flash-sale gate is reset from Postgres.
    pub flash_reconcile: std::time::Duration,
    /// `LEDGER_LOG_FORMAT` (logging itself is set up from
    /// [`LogFormat::from_env`], before the rest is read).
    pub log_format: LogFormat,
    /// How often `serve` re-reads the gauges of `/metrics` from Postgres
    /// and RabbitMQ (`LEDGER_METRICS_REFRESH_SECS`).
    pub metrics_refresh: std::time::Duration,
    /// RabbitMQ's management API (`RABBITMQ_MANAGEMENT_URL`,
    /// `http://host:port`); None: AMQP_URL's host, port 15672.
    pub rabbitmq_management_url: Option<String>,
}

impl std::fmt::Debug for Config {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Config")
            .field(
                "database_url",
                &crate::logging::redact::url(&self.database_url),
            )
            .field("amqp_url", &crate::logging::redact::url(&self.amqp_url))
            .field("redis_url", &crate::logging::redact::url(&self.redis_url))
            .field("listen", &self.listen)
            .field("tz", &self.tz)
            .field("operators", &self.operators)
            .field("redis_prefix", &self.redis_prefix)
            .field("upload_max_bytes", &self.upload_max_bytes)
            .field("upload_idle", &self.upload_idle)
            .field("notify_at", &self.notify_at)
            .field("notify_retention_days", &self.notify_retention_days)
            .field("job_retention_days", &self.job_retention_days)
            .field("archive_after_days", &self.archive_after_days)
            .field("replica", &self.database_replica.is_some())
            .field("replica_max_lag", &self.replica_max_lag)
            .field("db_pool_size", &self.db_pool_size)
            .field("flash_reconcile", &self.flash_reconcile)
            .field("log_format", &self.log_format)
            .field("metrics_refresh", &self.metrics_refresh)
            .field(
                "rabbitmq_management_url",
                &self
                    .rabbitmq_management_url
                    .as_deref()
                    .map(crate::logging::redact::url),
            )
            .finish_non_exhaustive()
    }
}

impl Config {
    /// Reads the process environment.
    pub fn from_env() -> Result<Self, ConfigError> {
        Self::from_lookup(|name| std::env::var(name).ok())
    }

    /// Reads variables through `lookup`, so tests need not touch the process environment.
    pub fn from_lookup(lookup: impl Fn(&str) -> Option<String>) -> Result<Self, ConfigError> {
        let get = |var: &'static str, default: &str| {
            let value = lookup(var).filter(|v| !v.is_empty());
            (var, value.unwrap_or_else(|| default.to_owned()))
        };
        let (var, database_url) = get("DATABASE_URL", DEFAULT_DATABASE_URL);
        let database = parse_with(var, &database_url, tokio_postgres::Config::from_str)?;
        if database.get_dbname().is_none() {
            return Err(error(var, &database_url, "names no database"));
        }
        let (var, amqp_url) = get("AMQP_URL", DEFAULT_AMQP_URL);
        for node in crate::messaging::nodes(&amqp_url) {
            parse_with(var, node, lapin::uri::AMQPUri::from_str)?;
        }
        let (var, redis_url) = get("REDIS_URL", DEFAULT_REDIS_URL);
        parse_with(var, &redis_url, |s| {
            crate::redis_link::target::RedisTarget::parse(s).map(|_| ())
        })?;
        let (var, listen) = get("LEDGER_LISTEN", DEFAULT_LISTEN);
        let listen = parse_with(var, &listen, SocketAddr::from_str)?;
        let (var, tz) = get("LEDGER_TZ", DEFAULT_TZ);
        let tz = parse_with(var, &tz, Tz::from_str)?;
        let secret_keys = secret_keys(&lookup)?;
        let (var, upload_max) = get("LEDGER_UPLOAD_MAX_BYTES", DEFAULT_UPLOAD_MAX_BYTES);
        let upload_max_bytes = parse_with(var, &upload_max, u64::from_str)?;
        let (var, secs) = get("LEDGER_UPLOAD_IDLE_SECS", DEFAULT_UPLOAD_IDLE_SECS);
        let upload_idle = u64::from_str(&secs)
            .ok()
            .filter(|s| (1..=3_600).contains(s))
            .map(std::time::Duration::from_secs)
            .ok_or_else(|| error(var, &secs, "not a number of seconds from 1 to 3600"))?;
        let (var, at) = get("LEDGER_NOTIFY_AT", DEFAULT_NOTIFY_AT);
        let notify_at = NotifyAt::parse(&at).ok_or_else(|| error(var, &at, "not HH:MM (24 h)"))?;
        let (var, days) = get(
            "LEDGER_NOTIFY_RETENTION_DAYS",
            DEFAULT_NOTIFY_RETENTION_DAYS,
        );
        let notify_retention_days = u32::from_str(&days)
            .ok()
            .filter(|d| (1..=3650).contains(d))
            .ok_or_else(|| error(var, &days, "not a number of days from 1 to 3650"))?;
        let (var, days) = get("LEDGER_JOB_RETENTION_DAYS", DEFAULT_JOB_RETENTION_DAYS);
        let job_retention_days = u32::from_str(&days)
            .ok()
            .filter(|d| (1..=3650).contains(d))
            .ok_or_else(|| error(var, &days, "not a number of days from 1 to 3650"))?;
        let database_replica = lookup("DATABASE_REPLICA_URL")
            .filter(|v| !v.is_empty())
            .map(|url| {
                parse_with(
                    "DATABASE_REPLICA_URL",
                    &url,
                    tokio_postgres::Config::from_str,
                )
            })
            .transpose()?;
        let (var, ms) = get("LEDGER_REPLICA_MAX_LAG_MS", DEFAULT_REPLICA_MAX_LAG_MS);
        let replica_max_lag = u64::from_str(&ms)
            .ok()
            .filter(|m| (1..=3_600_000).contains(m))
            .map(std::time::Duration::from_millis)
            .ok_or_else(|| error(var, &ms, "not a number of milliseconds from 1 to 3600000"))?;
        let (var, size) = get("LEDGER_DB_POOL_SIZE", DEFAULT_DB_POOL_SIZE);
        let db_pool_size = usize::from_str(&size)
            .ok()
            .filter(|n| (2..=512).contains(n))
            .ok_or_else(|| error(var, &size, "not a number of connections from 2 to 512"))?;
        let (var, days) = get("LEDGER_ARCHIVE_AFTER_DAYS", DEFAULT_ARCHIVE_AFTER_DAYS);
        let archive_after_days = u32::from_str(&days)
            .ok()
            .filter(|d| *d <= 3650)
            .ok_or_else(|| error(var, &days, "not a number of days from 0 to 3650"))?;
        let (var, secs) = get("LEDGER_FLASH_RECONCILE_SECS", DEFAULT_FLASH_RECONCILE_SECS);
        let flash_reconcile = u64::from_str(&secs)
            .ok()
            .filter(|s| (1..=86_400).contains(s))
            .map(std::time::Duration::from_secs)
            .ok_or_else(|| error(var, &secs, "not a number of seconds from 1 to 86400"))?;
        let log_format = LogFormat::from_lookup(&lookup)?;
        let (var, secs) = get("LEDGER_METRICS_REFRESH_SECS", DEFAULT_METRICS_REFRESH_SECS);
        let metrics_refresh = u64::from_str(&secs)
            .ok()
            .filter(|s| (1..=3_600).contains(s))
            .map(std::time::Duration::from_secs)
            .ok_or_else(|| error(var, &secs, "not a number of seconds from 1 to 3600"))?;
        let rabbitmq_management_url = lookup("RABBITMQ_MANAGEMENT_URL").filter(|v| !v.is_empty());
        if let Some(url) = &rabbitmq_management_url
            && !url.starts_with("http://")
        {
            return Err(error("RABBITMQ_MANAGEMENT_URL", url, "not an http:// URL"));
        }
        let admin_token = lookup(operators::SINGLE_VAR).filter(|v| !v.is_empty());
        let admin_tokens = lookup(operators::VAR).filter(|v| !v.is_empty());
        let operators = operators::parse(admin_tokens.as_deref(), admin_token.as_deref())?;
        Ok(Self {
            database,
            database_url,
            amqp_url,
            redis_url,
            listen,
            admin_token,
            operators,
            service_token: lookup("LEDGER_SERVICE_TOKEN").filter(|v| !v.is_empty()),
            tz,
            redis_prefix: lookup("LEDGER_REDIS_PREFIX")
                .unwrap_or_else(|| DEFAULT_REDIS_PREFIX.into()),
            secret_keys,
            upload_max_bytes,
            upload_idle,
            notify_at,
            notify_retention_days,
            job_retention_days,
            archive_after_days,
            database_replica,
            replica_max_lag,
            db_pool_size,
            flash_reconcile,
            log_format,
            metrics_refresh,
            rabbitmq_management_url,
        })
    }
}

/// The keyring, if `LEDGER_SECRET_KEY` is set. The values are never quoted
/// in an error: they are keys.
fn secret_keys(lookup: &impl Fn(&str) -> Option<String>) -> Result<Option<Keyring>, ConfigError> {
    let Some(current) = lookup("LEDGER_SECRET_KEY").filter(|v| !v.is_empty()) else {
        return Ok(None);
    };
    let old = lookup("LEDGER_SECRET_KEYS_OLD");
    let key_error = |var: &'static str, e: crate::secret_box::KeyError| ConfigError {
        var,
        value: "(hidden)".into(),
        message: e.to_string(),
    };
    // Parsed alone first so a fault is blamed on the right variable.
    Keyring::parse(&current, None).map_err(|e| key_error("LEDGER_SECRET_KEY", e))?;
    Keyring::parse(&current, old.as_deref())
        .map(Some)
        .map_err(|e| key_error("LEDGER_SECRET_KEYS_OLD", e))
}

fn parse_with<T, E: std::fmt::Display>(
    var: &'static str,
    value: &str,
    parse: impl FnOnce(&str) -> Result<T, E>,
) -> Result<T, ConfigError> {
    parse(value).map_err(|e| error(var, value, &e.to_string()))
}

/// The error, with any password in the value masked, also where the
/// parser's message quotes it.
fn error(var: &'static str, value: &str, message: &str) -> ConfigError {
    ConfigError {
        var,
        value: crate::logging::redact::url(value),
        message: crate::logging::redact::scrub(message, [value]),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    fn config(vars: &[(&str, &str)]) -> Result<Config, ConfigError> {
        let vars: HashMap<String, String> = vars
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        Config::from_lookup(|name| vars.get(name).cloned())
    }

    #[test]
    fn defaults_apply_when_nothing_is_set() {
        let c = config(&[]).unwrap();
        assert_eq!(c.database.get_dbname(), Some("couponledger"));
        assert_eq!(c.amqp_url, DEFAULT_AMQP_URL);
        assert_eq!(c.listen.to_string(), DEFAULT_LISTEN);
        assert_eq!(c.tz, chrono_tz::Asia::Shanghai);
        assert!(c.admin_token.is_none());
        assert_eq!(c.notify_at, NotifyAt::default());
        assert_eq!(c.notify_retention_days, 7);
        assert_eq!(c.job_retention_days, 90);
        assert_eq!(c.archive_after_days, 90);
        assert_eq!(c.log_format, LogFormat::Text);
    }

    #[test]
    fn log_format_is_text_or_json_and_anything_else_names_the_variable() {
        let format = |v: &str| config(&[("LEDGER_LOG_FORMAT", v)]).map(|c| c.log_format);
        assert_eq!(format("text").unwrap(), LogFormat::Text);
        assert_eq!(format("json").unwrap(), LogFormat::Json);
        assert_eq!(format("").unwrap(), LogFormat::Text);
        for bad in ["JSON", "yaml", "json "] {
            let err = format(bad).unwrap_err();
            assert_eq!(err.var, "LEDGER_LOG_FORMAT");
            assert!(err.to_string().starts_with("LEDGER_LOG_FORMAT: "), "{err}");
        }
    }

    #[test]
    fn reminder_settings_parse_and_a_bad_one_names_its_variable() {
        let c = config(&[
            ("LEDGER_NOTIFY_AT", "09:30"),
            ("LEDGER_NOTIFY_RETENTION_DAYS", "30"),
        ]);
        let c = c.unwrap();
        assert_eq!(c.notify_at, NotifyAt::parse("09:30").unwrap());
        assert_eq!(c.notify_retention_days, 30);
        for (var, value) in [
            ("LEDGER_NOTIFY_AT", "24:00"),
            ("LEDGER_NOTIFY_AT", "10"),
            ("LEDGER_NOTIFY_RETENTION_DAYS", "0"),
            ("LEDGER_NOTIFY_RETENTION_DAYS", "-1"),
            ("LEDGER_JOB_RETENTION_DAYS", "0"),
            ("LEDGER_JOB_RETENTION_DAYS", "3651"),
            ("LEDGER_ARCHIVE_AFTER_DAYS", "-1"),
            ("LEDGER_ARCHIVE_AFTER_DAYS", "3651"),
        ] {
            let err = config(&[(var, value)]).unwrap_err();
            assert_eq!(err.var, var, "{value}");
        }
    }

    #[test]
    fn a_bad_value_names_its_variable() {
        for (var, value) in [
            ("DATABASE_URL", "postgres://[::1"),
            ("AMQP_URL", "http://nope"),
            ("REDIS_URL", "mysql://x"),
            ("LEDGER_LISTEN", "localhost"),
            ("LEDGER_TZ", "Mars/Olympus"),
            ("LEDGER_METRICS_REFRESH_SECS", "0"),
            ("RABBITMQ_MANAGEMENT_URL", "rabbit:15672"),
            ("LEDGER_SECRET_KEY", "k1:abcd"),
            ("LEDGER_SECRET_KEY", "no-colon"),
            ("LEDGER_ADMIN_TOKENS", "alice"),
        ] {
            let err = config(&[(var, value)]).unwrap_err();
            assert_eq!(err.var, var);
            assert!(err.to_string().starts_with(var), "{err}");
        }
    }

    #[test]
    fn a_bad_old_key_names_its_variable_and_no_key_is_quoted() {
        let key = format!("k1:{}", "ab".repeat(32));
        let c = config(&[("LEDGER_SECRET_KEY", &key)]).unwrap();
        assert_eq!(c.secret_keys.unwrap().current_id(), "k1");
        let err = config(&[
            ("LEDGER_SECRET_KEY", &key),
            ("LEDGER_SECRET_KEYS_OLD", "k0:abab"),
        ])
        .unwrap_err();
        assert_eq!(err.var, "LEDGER_SECRET_KEYS_OLD");
        let err = config(&[("LEDGER_SECRET_KEY", &format!("k1:{}", "zz".repeat(32)))]).unwrap_err();
        assert!(!err.to_string().contains("zzzz"), "{err}");
    }

    #[test]
    fn debug_shows_no_password_and_no_token() {
        let c = config(&[
            ("DATABASE_URL", "postgres://u:s3cr3t-pw@h/db"),
            ("AMQP_URL", "amqp://u:s3cr3t-pw@h/%2f"),
            ("REDIS_URL", "redis://:s3cr3t-pw@h/0"),
            ("LEDGER_ADMIN_TOKEN", "admin-t0ken"),
            ("LEDGER_ADMIN_TOKENS", "alice:alice-t0ken"),
        ])
        .unwrap();
        let shown = format!("{c:?}");
        assert!(
            !shown.contains("s3cr3t-pw") && !shown.contains("t0ken"),
            "{shown}"
        );
        assert!(shown.contains("postgres://u:***@h/db"), "{shown}");
        assert!(shown.contains("alice"), "{shown}");
    }

    #[test]
    fn a_bad_url_is_quoted_without_its_password() {
        for (var, value) in [
            ("DATABASE_URL", "postgres://u:s3cr3t-pw@h:99999/db"),
            ("DATABASE_URL", "postgres://u:s3cr3t-pw@h/"),
            ("AMQP_URL", "amqp://u:s3cr3t-pw@h:notaport/%2f"),
            ("REDIS_URL", "rediss://u:s3cr3t-pw@h:notaport/0"),
        ] {
            let err = config(&[(var, value)]).unwrap_err();
            assert_eq!(err.var, var);
            let shown = format!("{err} {err:?}");
            assert!(!shown.contains("s3cr3t-pw"), "{shown}");
            assert!(shown.contains("u:***@h"), "{shown}");
        }
    }
}
