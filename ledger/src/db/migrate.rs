//! `ledger migrate`: create the database when missing, then apply `migrations/`.
//!
//! Safe to run twice and from several processes at once: creation tolerates a
//! concurrent creator, and migrations run under a Postgres advisory lock
//! (refinery takes none).

use crate::db::connect;
use tokio_postgres::error::SqlState;

refinery::embed_migrations!("../migrations");

/// The migration that partitions `events` (docs/design.md §16).
const PARTITIONED: i32 = 29;

/// Advisory lock key serialising migrations ("cpnmigr" in ASCII).
const MIGRATION_LOCK: i64 = 0x63706e6d696772;

#[derive(Debug, thiserror::Error)]
pub enum MigrateError {
    #[error("database connection failed: {0}")]
    Connect(#[source] tokio_postgres::Error),
    #[error("could not create database {name:?}: {source}")]
    Create {
        name: String,
        #[source]
        source: tokio_postgres::Error,
    },
    #[error("migration lock failed: {0}")]
    Lock(#[source] tokio_postgres::Error),
    #[error("applying migrations failed: {0}")]
    Apply(#[source] refinery::Error),
    #[error("making the event store's partitions ahead failed: {0}")]
    Partitions(#[source] tokio_postgres::Error),
}

/// What `migrate` did, for the operator.
#[derive(Debug, Default)]
pub struct Report {
    pub created_database: bool,
    pub applied: Vec<String>,
}

pub async fn migrate(config: &tokio_postgres::Config) -> Result<Report, MigrateError> {
    migrate_up_to(config, None).await
}

/// [`migrate`], stopping after migration `version` when given: a store as
/// an earlier release left it (the upgrade test builds one).
pub async fn migrate_up_to(
    config: &tokio_postgres::Config,
    version: Option<i32>,
) -> Result<Report, MigrateError> {
    let created_database = create_database_if_missing(config).await?;
    let mut client = connect(config).await.map_err(MigrateError::Connect)?;
    client
        .execute("SELECT pg_advisory_lock($1)", &[&MIGRATION_LOCK])
        .await
        .map_err(MigrateError::Lock)?;
    let target = version.map_or(refinery::Target::Latest, refinery::Target::Version);
    let applied = migrations::runner()
        .set_target(target)
        .run_async(&mut client)
        .await;
    let partitioned = version.is_none_or(|v| v >= PARTITIONED);
    let partitions = match &applied {
        Ok(_) if partitioned => make_partitions_ahead(&mut client).await,
        _ => Ok(()),
    };
    // The lock is session-scoped; closing the connection would release it too.
    let _ = client
        .execute("SELECT pg_advisory_unlock($1)", &[&MIGRATION_LOCK])
        .await;
    let applied = applied.map_err(MigrateError::Apply)?;
    partitions.map_err(MigrateError::Partitions)?;
    Ok(Report {
        created_database,
        applied: applied
            .applied_migrations()
            .iter()
            .map(ToString::to_string)
            .collect(),
    })
}

/// The event store's partitions due ahead (docs/design.md §16): made at
/// every migration, then by the scanner.
async fn make_partitions_ahead(
    client: &mut tokio_postgres::Client,
) -> Result<(), tokio_postgres::Error> {
    let tx = client.transaction().await?;
    if crate::store::partitions::make_ahead(&tx).await? {
        tx.commit().await?;
    }
    Ok(())
}

/// Creates the configured database through the `postgres` maintenance database.
/// Returns whether this call created it.
pub async fn create_database_if_missing(
    config: &tokio_postgres::Config,
) -> Result<bool, MigrateError> {
    let name = config.get_dbname().unwrap_or("postgres").to_owned();
    let mut admin = config.clone();
    admin.dbname("postgres");
    let client = connect(&admin).await.map_err(MigrateError::Connect)?;
    let exists = client
        .query_opt("SELECT 1 FROM pg_database WHERE datname = $1", &[&name])
        .await
        .map_err(MigrateError::Connect)?
        .is_some();
    if exists {
        return Ok(false);
    }
    let sql = format!("CREATE DATABASE {}", quote_ident(&name));
    match client.batch_execute(&sql).await {
        Ok(()) => Ok(true),
        // Another process created it between our check and our CREATE.
        Err(e) if is_duplicate_database(&e) => Ok(false),
        Err(source) => Err(MigrateError::Create { name, source }),
    }
}

fn is_duplicate_database(e: &tokio_postgres::Error) -> bool {
    // Two concurrent CREATE DATABASE race on pg_database's unique index.
    matches!(
        e.code(),
        Some(c) if *c == SqlState::DUPLICATE_DATABASE || *c == SqlState::UNIQUE_VIOLATION
    )
}

/// Quotes an SQL identifier (database names cannot be bound as parameters).
pub fn quote_ident(name: &str) -> String {
    format!("\"{}\"", name.replace('"', "\"\""))
}

/// A fingerprint of the embedded migrations: changes whenever any migration does.
pub fn fingerprint() -> u64 {
    migrations::runner()
        .get_migrations()
        .iter()
        .fold(0xcbf29ce484222325, |acc, m| {
            (acc ^ m.checksum()).wrapping_mul(0x100000001b3)
        })
}
