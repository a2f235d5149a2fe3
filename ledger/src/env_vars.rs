//! The environment variables the binaries read, with their defaults: one
//! list, shown by `ledger --help` and `workers --help` (docs/design.md §3).

use crate::config;

/// (name, default or rule, what it is).
pub const ENV_VARS: &[(&str, &str, &str)] = &[
    (
        "DATABASE_URL",
        config::DEFAULT_DATABASE_URL,
        "PostgreSQL, the primary (a cluster: HAProxy's writer port, or several hosts with target_session_attrs=read-write)",
    ),
    (
        "AMQP_URL",
        config::DEFAULT_AMQP_URL,
        "RabbitMQ (a cluster: its nodes' URLs, comma-separated)",
    ),
    (
        "REDIS_URL",
        config::DEFAULT_REDIS_URL,
        "Redis (behind Sentinels: redis+sentinel://host:port,host:port/<primary-name>)",
    ),
    (
        "LEDGER_LISTEN",
        config::DEFAULT_LISTEN,
        "HTTP listen address of `serve`",
    ),
    (
        "LEDGER_ADMIN_TOKEN",
        "required by `serve` unless LEDGER_ADMIN_TOKENS or --dev",
        "bearer token of the admin routes (operator `admin`)",
    ),
    (
        "LEDGER_ADMIN_TOKENS",
        "none (LEDGER_ADMIN_TOKEN alone)",
        "name:token,... named operators of the admin routes (names: 1 to 64 of A-Za-z0-9._-; at most 100)",
    ),
    (
        "LEDGER_SERVICE_TOKEN",
        "required by `serve` unless --dev",
        "bearer token of the service routes",
    ),
    (
        "LEDGER_SECRET_KEY",
        "required by `serve` unless --dev",
        "<key_id>:<64 hex chars>, seals channel secrets at rest",
    ),
    (
        "LEDGER_SECRET_KEYS_OLD",
        "none",
        "comma list of <key_id>:<hex> keys that only open (rotation)",
    ),
    ("LEDGER_TZ", config::DEFAULT_TZ, "business time zone"),
    (
        "LEDGER_REDIS_PREFIX",
        config::DEFAULT_REDIS_PREFIX,
        "prefix of every Redis key",
    ),
    (
        "LEDGER_UPLOAD_MAX_BYTES",
        config::DEFAULT_UPLOAD_MAX_BYTES,
        "largest user-ID file `serve` accepts, decompressed",
    ),
    (
        "LEDGER_UPLOAD_IDLE_SECS",
        config::DEFAULT_UPLOAD_IDLE_SECS,
        "seconds `serve` waits for an upload's next bytes before answering 408 (1 to 3600)",
    ),
    (
        "LEDGER_NOTIFY_AT",
        config::DEFAULT_NOTIFY_AT,
        "time of day (HH:MM, business time) expiry reminders go out",
    ),
    (
        "LEDGER_NOTIFY_RETENTION_DAYS",
        config::DEFAULT_NOTIFY_RETENTION_DAYS,
        "days sent and cancelled reminders are kept (1 to 3650)",
    ),
    (
        "LEDGER_JOB_RETENTION_DAYS",
        config::DEFAULT_JOB_RETENTION_DAYS,
        "days an ended issuance or package job and its report are kept (1 to 3650)",
    ),
    (
        "DATABASE_REPLICA_URL",
        "none",
        "a streaming replica for wallets, balances, stats and the liability report (unset: the primary)",
    ),
    (
        "LEDGER_REPLICA_MAX_LAG_MS",
        config::DEFAULT_REPLICA_MAX_LAG_MS,
        "a replica further behind than this is passed over for the primary (1 to 3600000)",
    ),
    (
        "LEDGER_DB_POOL_SIZE",
        config::DEFAULT_DB_POOL_SIZE,
        "serve's connections to the writer at most (2 to 512); each is a Postgres backend",
    ),
    (
        "LEDGER_ARCHIVE_AFTER_DAYS",
        config::DEFAULT_ARCHIVE_AFTER_DAYS,
        "days an ended coupon stays hot before the archiver moves it to cold storage (0 to 3650)",
    ),
    (
        "LEDGER_FLASH_RECONCILE_SECS",
        config::DEFAULT_FLASH_RECONCILE_SECS,
        "seconds between resets of the flash-sale gate from Postgres (1 to 86400)",
    ),
    (
        "LEDGER_LOG_FORMAT",
        config::DEFAULT_LOG_FORMAT,
        "`text` or `json` (one JSON object per line), on stderr",
    ),
    (
        "LEDGER_METRICS_REFRESH_SECS",
        config::DEFAULT_METRICS_REFRESH_SECS,
        "seconds between reads of the /metrics gauges from Postgres and RabbitMQ (1 to 3600)",
    ),
    (
        "RABBITMQ_MANAGEMENT_URL",
        "http://<AMQP_URL's host>:15672",
        "RabbitMQ's management API (queue depths in /metrics); AMQP_URL's credentials and vhost",
    ),
    ("RUST_LOG", "info", "log filter"),
];

/// The list as a `--help` section.
pub fn help() -> String {
    let width = ENV_VARS.iter().map(|(n, ..)| n.len()).max().unwrap_or(0);
    let mut out = String::from("Environment variables:\n");
    for (name, default, what) in ENV_VARS {
        out.push_str(&format!("  {name:<width$}  {what} [default: {default}]\n"));
    }
    out.push_str("Passwords in the URLs are masked in every message.");
    out
}

#[cfg(test)]
mod tests {
    #[test]
    fn help_lists_every_variable_with_its_default() {
        let help = super::help();
        for (name, default, _) in super::ENV_VARS {
            assert!(help.contains(&format!("  {name} ")), "{name}");
            assert!(help.contains(default), "{default}");
        }
    }
}
