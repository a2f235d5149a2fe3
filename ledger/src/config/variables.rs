//! The environment variables the binaries read: ONE list (docs/design.md
//! §3, contract: names and defaults). Each field is a variable with its
//! default, its range or parser, and its description; `--help` and
//! docs/reference/configuration.md are generated from it
//! ([`super::reference`]), and [`super::Config`] is built from it.
//!
//! A field's first doc paragraph is its line in `--help`; the whole comment
//! is its row in the reference.

use std::net::SocketAddr;

use chrono_tz::Tz;

use super::log_format::LogFormat;
use super::parsers;
use crate::domain::reminder::NotifyAt;

#[derive(Clone, clap::Parser)]
#[command(name = "environment", no_binary_name = true, disable_help_flag = true)]
pub struct Variables {
    /// PostgreSQL, the primary (a cluster: HAProxy's writer port, or several
    /// hosts with `target_session_attrs=read-write`).
    ///
    /// Created by `ledger migrate` when missing; on a cluster, the writer:
    /// HAProxy's port that follows Patroni's primary (design §17).
    #[arg(long, env = "DATABASE_URL", value_parser = parsers::database_url,
          default_value = "postgres://postgres@127.0.0.1:5432/couponledger")]
    pub database_url: String,

    /// A streaming replica for wallets, balances, stats and the liability
    /// report (unset: the primary).
    ///
    /// HAProxy's reader port; when set, wallets (`GET /v1/users/{uid}/coupons`),
    /// balances, template stats and the liability report read from it while
    /// it is at most `LEDGER_REPLICA_MAX_LAG_MS` behind, else from the
    /// primary. Every other read, and every CLI command, uses `DATABASE_URL`.
    #[arg(long, env = "DATABASE_REPLICA_URL", value_parser = parsers::database_url)]
    pub database_replica_url: Option<String>,

    /// Serve's connections to the writer at most (2 to 512); each is a
    /// Postgres backend.
    ///
    /// Enough for the group commits and the requests in flight on a few
    /// cores; the serves of one database together stay under its
    /// `max_connections`.
    #[arg(long, env = "LEDGER_DB_POOL_SIZE", default_value = "32",
          value_parser = clap::value_parser!(u64).range(2..=512))]
    pub db_pool_size: u64,

    /// A replica further behind than this is passed over for the primary
    /// (milliseconds, 1 to 3600000).
    ///
    /// A second: a wallet a second old is what a user sees anyway between two
    /// refreshes. Measured twice a second.
    #[arg(long, env = "LEDGER_REPLICA_MAX_LAG_MS", default_value = "1000",
          value_parser = clap::value_parser!(u64).range(1..=3_600_000))]
    pub replica_max_lag_ms: u64,

    /// RabbitMQ (a cluster: its nodes' URLs, comma-separated).
    ///
    /// One vhost per ledger (environment): a second store on a vhost in use
    /// refuses to start (docs/event-pipeline.md, "One ledger per vhost"). A
    /// cluster's nodes share the vhost; each connection starts at the next
    /// node and moves on past one that does not answer.
    #[arg(long, env = "AMQP_URL", value_parser = parsers::amqp_url,
          default_value = "amqp://guest:guest@127.0.0.1:5672/%2f")]
    pub amqp_url: String,

    /// Redis (behind Sentinels:
    /// `redis+sentinel://host:port,host:port/<primary-name>`).
    ///
    /// An accelerator only. Behind Sentinels, the primary is asked of them at
    /// connect and again after any failure.
    #[arg(long, env = "REDIS_URL", value_parser = parsers::redis_url,
          default_value = "redis://127.0.0.1:6379/0")]
    pub redis_url: String,

    /// Prefix of every Redis key (not contract).
    #[arg(long, env = "LEDGER_REDIS_PREFIX", default_value = "couponledger:")]
    pub redis_prefix: String,

    /// HTTP listen address of `serve`.
    #[arg(long, env = "LEDGER_LISTEN", default_value = "127.0.0.1:8080")]
    pub listen: SocketAddr,

    /// Bearer token of the admin routes (the operator `admin`); `serve` needs
    /// it or `LEDGER_ADMIN_TOKENS`, unless `--dev`.
    #[arg(long, env = "LEDGER_ADMIN_TOKEN")]
    pub admin_token: Option<String>,

    /// Named operators, `name:token[:role[:shop|shop...]],...` (names: 1 to
    /// 64 of `A-Za-z0-9._-`; at most 100; role default `admin`).
    ///
    /// Both this and `LEDGER_ADMIN_TOKEN` may be set ("Operators" below).
    #[arg(long, env = "LEDGER_ADMIN_TOKENS")]
    pub admin_tokens: Option<String>,

    /// Bearer token of the service routes; `serve` needs it unless `--dev`.
    ///
    /// It is the app key `service`, with every scope.
    #[arg(long, env = "LEDGER_SERVICE_TOKEN")]
    pub service_token: Option<String>,

    /// Issuer of operators' sign-in tokens (OIDC); unset: no single sign-on.
    ///
    /// Its RS256 or ES256 JWTs are accepted as operators' bearer tokens
    /// (docs/reference/single-sign-on.md).
    #[arg(long, env = "LEDGER_OIDC_ISSUER")]
    pub oidc_issuer: Option<String>,

    /// The audience sign-in tokens must name (needed with the issuer).
    #[arg(long, env = "LEDGER_OIDC_AUDIENCE")]
    pub oidc_audience: Option<String>,

    /// Where the issuer's keys are; default: its discovery document's `jwks_uri`.
    #[arg(long, env = "LEDGER_OIDC_JWKS_URL")]
    pub oidc_jwks_url: Option<String>,

    /// The claim holding an operator's roles (a string or a list).
    #[arg(long, env = "LEDGER_OIDC_ROLE_CLAIM", default_value = "roles")]
    pub oidc_role_claim: String,

    /// The claim holding a merchant's shops (a string or a list).
    #[arg(long, env = "LEDGER_OIDC_SHOP_CLAIM", default_value = "shops")]
    pub oidc_shop_claim: String,

    /// When set, `/metrics` needs it as a bearer token.
    #[arg(long, env = "LEDGER_METRICS_TOKEN")]
    pub metrics_token: Option<String>,

    /// `<key_id>:<64 hex chars>`: seals channel secrets at rest; `serve`
    /// needs it unless `--dev`.
    ///
    /// Id: 1 to 32 of `A-Za-z0-9_-`; key: 32 random bytes, e.g.
    /// `echo "k1:$(openssl rand -hex 32)"`. With `--dev`, a fixed dev key
    /// (id `dev`).
    #[arg(long, env = "LEDGER_SECRET_KEY")]
    pub secret_key: Option<String>,

    /// Comma list of older `<key_id>:<hex>` keys that only open (rotation).
    #[arg(long, env = "LEDGER_SECRET_KEYS_OLD")]
    pub secret_keys_old: Option<String>,

    /// Business time zone: decides day boundaries only.
    #[arg(long, env = "LEDGER_TZ", default_value = "Asia/Shanghai")]
    pub tz: Tz,

    /// Largest user-ID file `serve` accepts, decompressed (bytes; 413 beyond).
    #[arg(long, env = "LEDGER_UPLOAD_MAX_BYTES", default_value = "1073741824")]
    pub upload_max_bytes: u64,

    /// Seconds `serve` waits for an upload's next bytes before answering 408
    /// (1 to 3600; the job stays resumable).
    ///
    /// A client streaming a file sends bytes all the time; one producing it
    /// as it goes (a query piped into `ledger issue --file -`) may pause, but
    /// rarely 30 s.
    #[arg(long, env = "LEDGER_UPLOAD_IDLE_SECS", default_value = "30",
          value_parser = clap::value_parser!(u64).range(1..=3_600))]
    pub upload_idle_secs: u64,

    /// Time of day (`HH:MM`, business time) expiry reminders go out.
    #[arg(long, env = "LEDGER_NOTIFY_AT", default_value = NotifyAt::DEFAULT,
          value_parser = parsers::notify_at)]
    pub notify_at: NotifyAt,

    /// Days sent and cancelled reminders are kept (1 to 3650), counted from
    /// their time.
    #[arg(long, env = "LEDGER_NOTIFY_RETENTION_DAYS", default_value = "7",
          value_parser = clap::value_parser!(u32).range(1..=3_650))]
    pub notify_retention_days: u32,

    /// Days an ended issuance or package job and its report are kept (1 to
    /// 3650).
    ///
    /// Counted from its end; then the scanner deletes it with its chunks and
    /// its report (`GET` answers 404); its coupons and events stay.
    #[arg(long, env = "LEDGER_JOB_RETENTION_DAYS", default_value = "90",
          value_parser = clap::value_parser!(u32).range(1..=3_650))]
    pub job_retention_days: u32,

    /// Days an ended coupon stays hot before the archiver moves it to cold
    /// storage (0 to 3650; 0: as soon as it ends).
    ///
    /// Used, refunded, expired and void coupons move from `coupons` to
    /// `coupons_archive`; refunds and disputes of the last quarter find them
    /// without a thaw. Wallets show archived coupons with
    /// `?include_archived=true` (design §16).
    #[arg(long, env = "LEDGER_ARCHIVE_AFTER_DAYS", default_value = "90",
          value_parser = clap::value_parser!(u32).range(0..=3_650))]
    pub archive_after_days: u32,

    /// Seconds between resets of the flash-sale gate (Redis) from Postgres
    /// (1 to 86400).
    #[arg(long, env = "LEDGER_FLASH_RECONCILE_SECS", default_value = "5",
          value_parser = clap::value_parser!(u64).range(1..=86_400))]
    pub flash_reconcile_secs: u64,

    /// Hours a webhook delivery is retried before it is `failed` (1 to 168);
    /// a webhook's own `retry_hours` overrides it.
    ///
    /// Counted from when the delivery was queued; retries back off
    /// exponentially from 5 s to an hour, with jitter (design §21).
    #[arg(long, env = "LEDGER_WEBHOOK_RETRY_HOURS", default_value = "24",
          value_parser = clap::value_parser!(u32).range(1..=168))]
    pub webhook_retry_hours: u32,

    /// `true`: webhooks may reach private, loopback and link-local
    /// addresses, and plain `http` (a receiver on the same host or network).
    ///
    /// Off by default: an endpoint's URL must be `https` and every address
    /// its name resolves to public, when it is made and at each delivery
    /// (the SSRF guard, design §21).
    #[arg(long, env = "LEDGER_WEBHOOK_ALLOW_PRIVATE", default_value = "false",
          action = clap::ArgAction::Set, value_parser = clap::value_parser!(bool))]
    pub webhook_allow_private: bool,

    /// `text`, or `json`: one JSON object per line, on stderr (both binaries).
    #[arg(long, env = "LEDGER_LOG_FORMAT", value_enum, default_value = "text")]
    pub log_format: LogFormat,

    /// Seconds between reads of the `/metrics` gauges from Postgres and
    /// RabbitMQ (1 to 3600).
    #[arg(long, env = "LEDGER_METRICS_REFRESH_SECS", default_value = "15",
          value_parser = clap::value_parser!(u64).range(1..=3_600))]
    pub metrics_refresh_secs: u64,

    /// RabbitMQ's management API (queue depths on `/metrics`, the console's
    /// workers page), with `AMQP_URL`'s credentials and vhost (unset:
    /// `http://<AMQP_URL's host>:15672`).
    #[arg(long, env = "RABBITMQ_MANAGEMENT_URL", value_parser = parsers::http_url)]
    pub rabbitmq_management_url: Option<String>,

    /// Log filter (e.g. `info,ledger::api::request_log=warn` drops the
    /// per-request lines); read by the logger itself.
    #[arg(long, env = "RUST_LOG", default_value = "info")]
    pub rust_log: String,
}

/// Every variable's name, in the list's order.
pub fn names() -> Vec<String> {
    use clap::CommandFactory;
    Variables::command()
        .get_arguments()
        .filter_map(|a| a.get_env())
        .map(|name| name.to_string_lossy().into_owned())
        .collect()
}
