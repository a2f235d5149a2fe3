//! Configuration from the environment (docs/design.md §3, contract: names
//! and defaults), parsed once at start; a bad value is one clear error
//! naming the variable.
//!
//! - [`variables`]: the ONE list of variables (clap, with `env`, defaults,
//!   ranges and descriptions); [`reference`]: `--help` and the reference
//!   generated from it; [`read`]: reading it through a lookup;
//!   [`parsers`]: the values that are more than a number or a name.
//! - [`operators`]: the admin role's named operators (`LEDGER_ADMIN_TOKENS`).
//! - [`log_format`]: `LEDGER_LOG_FORMAT`, read before the rest.
//! - [`amqp_url`]: `AMQP_URL`'s nodes.

pub(crate) mod amqp_url;
pub(crate) mod log_format;
pub mod operators;
mod parsers;
mod read;
pub mod reference;
pub mod sign_in;
pub mod variables;

use std::net::SocketAddr;
use std::time::Duration;

use chrono_tz::Tz;

use crate::domain::reminder::NotifyAt;
use crate::secret_box::Keyring;
pub use log_format::LogFormat;
use operators::Operator;

#[derive(Debug, thiserror::Error)]
#[error("{var}: {message} (got {value:?})")]
pub struct ConfigError {
    pub var: String,
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
    /// Single sign-on for operators, when `LEDGER_OIDC_ISSUER` is set.
    pub oidc: Option<sign_in::OidcConfig>,
    /// `LEDGER_METRICS_TOKEN`.
    pub metrics_token: Option<String>,
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
    /// `LEDGER_WEBHOOK_RETRY_HOURS`: a webhook's retry window unless it sets one.
    pub webhook_retry_hours: u32,
    /// `LEDGER_WEBHOOK_ALLOW_PRIVATE`: the SSRF guard lifted (design §21).
    pub webhook_allow_private: bool,
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
            .field("oidc", &self.oidc)
            .field("metrics_token", &self.metrics_token.is_some())
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
        let v = read::all(&lookup)?;
        let secret_keys = secret_keys(v.secret_key.as_deref(), v.secret_keys_old.as_deref())?;
        let operators = operators::parse(v.admin_tokens.as_deref(), v.admin_token.as_deref())
            .map_err(|e| ConfigError {
                var: operators::VAR.into(),
                value: "(hidden)".into(),
                message: e.message,
            })?;
        let oidc = oidc(&v)?;
        Ok(Self {
            database: parsers::database(&v.database_url),
            database_url: v.database_url,
            amqp_url: v.amqp_url,
            redis_url: v.redis_url,
            listen: v.listen,
            admin_token: v.admin_token,
            operators,
            service_token: v.service_token,
            oidc,
            metrics_token: v.metrics_token,
            tz: v.tz,
            redis_prefix: v.redis_prefix,
            secret_keys,
            upload_max_bytes: v.upload_max_bytes,
            upload_idle: Duration::from_secs(v.upload_idle_secs),
            notify_at: v.notify_at,
            notify_retention_days: v.notify_retention_days,
            job_retention_days: v.job_retention_days,
            archive_after_days: v.archive_after_days,
            database_replica: v.database_replica_url.as_deref().map(parsers::database),
            replica_max_lag: Duration::from_millis(v.replica_max_lag_ms),
            db_pool_size: usize::try_from(v.db_pool_size).expect("2 to 512 fits usize"),
            flash_reconcile: Duration::from_secs(v.flash_reconcile_secs),
            log_format: v.log_format,
            metrics_refresh: Duration::from_secs(v.metrics_refresh_secs),
            rabbitmq_management_url: v.rabbitmq_management_url,
            webhook_retry_hours: v.webhook_retry_hours,
            webhook_allow_private: v.webhook_allow_private,
        })
    }
}

/// Single sign-on's settings: the issuer and the audience together, or
/// neither.
fn oidc(v: &variables::Variables) -> Result<Option<sign_in::OidcConfig>, ConfigError> {
    let (issuer, audience) = match (&v.oidc_issuer, &v.oidc_audience) {
        (None, None) => return Ok(None),
        (Some(issuer), Some(audience)) => (issuer.clone(), audience.clone()),
        (Some(_), None) | (None, Some(_)) => {
            return Err(ConfigError {
                var: "LEDGER_OIDC_AUDIENCE".into(),
                value: v.oidc_audience.clone().unwrap_or_default(),
                message: "LEDGER_OIDC_ISSUER and LEDGER_OIDC_AUDIENCE are set together".into(),
            });
        }
    };
    Ok(Some(sign_in::OidcConfig {
        issuer,
        audience,
        jwks_url: v.oidc_jwks_url.clone(),
        role_claim: v.oidc_role_claim.clone(),
        shop_claim: v.oidc_shop_claim.clone(),
    }))
}

/// The keyring, if `LEDGER_SECRET_KEY` is set. The values are never quoted
/// in an error: they are keys.
fn secret_keys(current: Option<&str>, old: Option<&str>) -> Result<Option<Keyring>, ConfigError> {
    let Some(current) = current else {
        return Ok(None);
    };
    let key_error = |var: &str, e: crate::secret_box::KeyError| ConfigError {
        var: var.into(),
        value: "(hidden)".into(),
        message: e.to_string(),
    };
    // Parsed alone first so a fault is blamed on the right variable.
    Keyring::parse(current, None).map_err(|e| key_error("LEDGER_SECRET_KEY", e))?;
    Keyring::parse(current, old)
        .map(Some)
        .map_err(|e| key_error("LEDGER_SECRET_KEYS_OLD", e))
}

/// The error, with any password in the value masked, also where the
/// parser's message quotes it.
fn error(var: String, value: &str, message: &str) -> ConfigError {
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
        assert_eq!(c.amqp_url, "amqp://guest:guest@127.0.0.1:5672/%2f");
        assert_eq!(c.listen.to_string(), "127.0.0.1:8080");
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
