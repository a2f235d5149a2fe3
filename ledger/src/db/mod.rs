//! Postgres at the edge: the connection pool, connections, statistics
//! kept fresh, and the text mapping of the name-list enums ([`Named`]).
//!
//! - [`read_pool`]: reads that tolerate a bounded lag, on a replica.
//! - [`migrate`]: the schema's migrations (refinery), and the database made
//!   when missing.

pub mod migrate;
pub mod read_pool;

use std::time::Duration;

use deadpool_postgres::{Manager, ManagerConfig, Pool, RecyclingMethod, Runtime};
use tokio_postgres::NoTls;

/// Upper bound on pooled connections: Postgres' default max_connections is 100
/// and the API, workers and tests share it.
pub const DEFAULT_POOL_SIZE: usize = 32;

/// How long a caller waits for a free or new connection before giving up.
const CHECKOUT_TIMEOUT: Duration = Duration::from_secs(10);

/// The session setting every pooled connection gets. Statements are
/// prepared once per connection and run for its lifetime: with Postgres'
/// default (`auto`) a statement switches to a generic plan after five runs
/// and keeps it, so a plan chosen while a table was empty (a sequential
/// scan of nothing) went on scanning it at millions of rows. Custom plans
/// are made for each run from the table's current size, and pick the index.
pub const PLAN_CACHE_MODE: &str = "plan_cache_mode=force_custom_plan";

/// The check of a pooled connection before reuse: it fails on a server in
/// recovery, so a connection to a primary demoted to a standby is dropped
/// and opened again (to the new primary, through the writer's address)
/// instead of answering every write with "read-only transaction". It
/// writes nothing and takes no transaction id.
const WRITER_CHECK: &str = "SELECT pg_current_wal_lsn()";

/// A pool whose connections are checked before reuse ([`WRITER_CHECK`]),
/// so a Postgres restart or failover costs one failed check, not a failed
/// request.
pub fn pool(config: &tokio_postgres::Config, size: usize) -> Pool {
    pool_checked(config, size, RecyclingMethod::Custom(WRITER_CHECK.into()))
}

/// A pool of a streaming replica: its connections are checked by a plain
/// round trip (a replica is in recovery by nature).
pub fn replica_pool(config: &tokio_postgres::Config, size: usize) -> Pool {
    pool_checked(config, size, RecyclingMethod::Verified)
}

fn pool_checked(config: &tokio_postgres::Config, size: usize, check: RecyclingMethod) -> Pool {
    let mut config = config.clone();
    let options = match config.get_options() {
        Some(given) => format!("{given} -c {PLAN_CACHE_MODE}"),
        None => format!("-c {PLAN_CACHE_MODE}"),
    };
    config.options(&options);
    let manager = Manager::from_config(
        config,
        NoTls,
        ManagerConfig {
            recycling_method: check,
        },
    );
    Pool::builder(manager)
        .max_size(size)
        .runtime(Runtime::Tokio1)
        .wait_timeout(Some(CHECKOUT_TIMEOUT))
        .create_timeout(Some(CHECKOUT_TIMEOUT))
        .build()
        .expect("timeouts are set together with a runtime, so the pool always builds")
}

/// Whether a database error says the server is going away, starting, or
/// no longer the primary: a failover in progress (docs/design.md §17), so
/// the request is answered 503 and retried, never 500.
pub fn is_failover(code: &tokio_postgres::error::SqlState) -> bool {
    use tokio_postgres::error::SqlState as S;
    [
        S::ADMIN_SHUTDOWN,
        S::CRASH_SHUTDOWN,
        S::CANNOT_CONNECT_NOW,
        S::READ_ONLY_SQL_TRANSACTION,
        S::CONNECTION_EXCEPTION,
        S::CONNECTION_FAILURE,
        S::SQLCLIENT_UNABLE_TO_ESTABLISH_SQLCONNECTION,
        S::TOO_MANY_CONNECTIONS,
    ]
    .contains(code)
}

/// Whether a client error says Postgres went away (the connection closed
/// or broke): worth trying again on a new connection, as opposed to the
/// server refusing the SQL.
pub fn connection_lost(e: &tokio_postgres::Error) -> bool {
    e.is_closed() || std::error::Error::source(e).is_some_and(|s| s.is::<std::io::Error>())
}

/// Whether `e` means Postgres is away for now, not that the statement is
/// wrong: the connection lost ([`connection_lost`]) or a failover under way
/// ([`is_failover`]).
pub fn unreachable(e: &tokio_postgres::Error) -> bool {
    connection_lost(e) || e.as_db_error().is_some_and(|db| is_failover(db.code()))
}

/// One unpooled connection (migrations, locks held for a session, tests).
pub async fn connect(
    config: &tokio_postgres::Config,
) -> Result<tokio_postgres::Client, tokio_postgres::Error> {
    let (client, connection) = config.connect(NoTls).await?;
    tokio::spawn(async move {
        if let Err(e) = connection.await {
            tracing::debug!(error = %e, "postgres connection closed");
        }
    });
    Ok(client)
}

/// A read-only transaction on one snapshot of the database: every query in
/// it sees the same moment (reports, replays, exports).
pub async fn read_only_snapshot(
    client: &mut tokio_postgres::Client,
) -> Result<tokio_postgres::Transaction<'_>, tokio_postgres::Error> {
    client
        .build_transaction()
        .isolation_level(tokio_postgres::IsolationLevel::RepeatableRead)
        .read_only(true)
        .start()
        .await
}

/// Rows changed since the last ANALYZE that make a table's statistics stale
/// (with 10 % of its rows, the larger counts).
const STALE_ROWS: i64 = 10_000;

/// Runs `ANALYZE table` when its statistics lag far behind its rows: a table
/// filled in bulk (a projection catching up, an issuance) is otherwise planned
/// as the few rows it held at the last ANALYZE until autovacuum comes by, and
/// a join over it can pick a nested loop across the whole table. The check
/// reads `pg_stat_user_tables` and is cheap; the ANALYZE samples the table.
pub async fn analyze_if_stale(
    client: &tokio_postgres::Client,
    table: &'static str,
) -> Result<bool, tokio_postgres::Error> {
    let sql = "SELECT n_mod_since_analyze >= greatest($2, n_live_tup / 10)
                 FROM pg_stat_user_tables WHERE relname = $1";
    let stale = client
        .query_opt(sql, &[&table, &STALE_ROWS])
        .await?
        .is_some_and(|row| row.get::<_, bool>(0));
    if stale {
        client.batch_execute(&format!("ANALYZE {table}")).await?;
    }
    Ok(stale)
}

/// How often a worker that loads tables in bulk checks their statistics:
/// the check is one read of `pg_stat_user_tables`, and a table is analysed
/// only once a tenth of it changed, so a growing table costs a few ANALYZEs
/// in all; a longer wait let an issuance scan a fresh `user_claims` whole
/// per chunk for tens of seconds.
pub const STATS_CHECK_EVERY: Duration = Duration::from_secs(5);

/// [`analyze_if_stale`] over a worker's tables, at most once per
/// [`STATS_CHECK_EVERY`]: a projection catching up or an issuance writes
/// rows far faster than autovacuum's thresholds assume, and an ANALYZE
/// after every batch would cost more than the batch.
pub struct StatsKeeper {
    tables: &'static [&'static str],
    next: std::time::Instant,
}

impl StatsKeeper {
    pub fn new(tables: &'static [&'static str]) -> Self {
        // The first batch checks: a worker started on tables just loaded
        // would otherwise plan on their old statistics for its first 30 s.
        Self {
            tables,
            next: std::time::Instant::now(),
        }
    }

    /// Whether the last check is old enough for another.
    pub fn due(&self) -> bool {
        !self.tables.is_empty() && std::time::Instant::now() >= self.next
    }

    /// Checks (and analyses where stale) the tables; the next check is
    /// [`STATS_CHECK_EVERY`] away.
    pub async fn check(
        &mut self,
        client: &tokio_postgres::Client,
    ) -> Result<(), tokio_postgres::Error> {
        self.next = std::time::Instant::now() + STATS_CHECK_EVERY;
        for table in self.tables {
            if analyze_if_stale(client, table).await? {
                tracing::debug!(table, "statistics were stale: analysed");
            }
        }
        Ok(())
    }
}

/// A text column read as one of a name-list enum's values (a status, a
/// policy: `domain::names`), parsed by its `FromStr`. A value that is none
/// of its names fails the read as a column of the wrong type would, naming
/// the value. Values are written by their `as_str()`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Named<T>(pub T);

impl<'a, T> tokio_postgres::types::FromSql<'a> for Named<T>
where
    T: std::str::FromStr,
{
    fn from_sql(
        ty: &tokio_postgres::types::Type,
        raw: &'a [u8],
    ) -> Result<Self, Box<dyn std::error::Error + Sync + Send>> {
        let text = <&str as tokio_postgres::types::FromSql>::from_sql(ty, raw)?;
        let value = text.parse().map_err(|_| {
            format!(
                "{text:?} is not a {}",
                std::any::type_name::<T>()
                    .rsplit("::")
                    .next()
                    .unwrap_or("value")
            )
        })?;
        Ok(Self(value))
    }

    fn accepts(ty: &tokio_postgres::types::Type) -> bool {
        <&str as tokio_postgres::types::FromSql>::accepts(ty)
    }
}

/// A channel id binds and reads as the `uuid` it wraps.
impl tokio_postgres::types::ToSql for crate::domain::ids::ChannelId {
    fn to_sql(
        &self,
        ty: &tokio_postgres::types::Type,
        out: &mut bytes::BytesMut,
    ) -> Result<tokio_postgres::types::IsNull, Box<dyn std::error::Error + Sync + Send>> {
        self.0.to_sql(ty, out)
    }

    fn accepts(ty: &tokio_postgres::types::Type) -> bool {
        <uuid::Uuid as tokio_postgres::types::ToSql>::accepts(ty)
    }

    tokio_postgres::types::to_sql_checked!();
}

impl<'a> tokio_postgres::types::FromSql<'a> for crate::domain::ids::ChannelId {
    fn from_sql(
        ty: &tokio_postgres::types::Type,
        raw: &'a [u8],
    ) -> Result<Self, Box<dyn std::error::Error + Sync + Send>> {
        uuid::Uuid::from_sql(ty, raw).map(Self)
    }

    fn accepts(ty: &tokio_postgres::types::Type) -> bool {
        <uuid::Uuid as tokio_postgres::types::FromSql>::accepts(ty)
    }
}

/// Text ids bind as their text and read back as stored (checked once, at
/// the edge, before they were written).
macro_rules! text_id_sql {
    ($($name:ty),*) => {$(
        impl tokio_postgres::types::ToSql for $name {
            fn to_sql(
                &self,
                ty: &tokio_postgres::types::Type,
                out: &mut bytes::BytesMut,
            ) -> Result<tokio_postgres::types::IsNull, Box<dyn std::error::Error + Sync + Send>>
            {
                self.as_str().to_sql(ty, out)
            }

            fn accepts(ty: &tokio_postgres::types::Type) -> bool {
                <&str as tokio_postgres::types::ToSql>::accepts(ty)
            }

            tokio_postgres::types::to_sql_checked!();
        }

        impl<'a> tokio_postgres::types::FromSql<'a> for $name {
            fn from_sql(
                ty: &tokio_postgres::types::Type,
                raw: &'a [u8],
            ) -> Result<Self, Box<dyn std::error::Error + Sync + Send>> {
                String::from_sql(ty, raw).map(<$name>::stored)
            }

            fn accepts(ty: &tokio_postgres::types::Type) -> bool {
                <String as tokio_postgres::types::FromSql>::accepts(ty)
            }
        }
    )*};
}

text_id_sql!(
    crate::domain::ids::TemplateSn,
    crate::domain::ids::PackageSn,
    crate::domain::ids::UserId,
    crate::domain::ids::ShopId
);
