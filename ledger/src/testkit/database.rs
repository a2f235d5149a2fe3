use std::time::Duration;

use anyhow::Context;
use deadpool_postgres::Pool;
use tokio_postgres::error::SqlState;

use crate::config::Config;
use crate::db;
use crate::db::migrate::{self, quote_ident};

/// Serialises template creation across test processes ("cpntmpl").
const TEMPLATE_LOCK: i64 = 0x63706e746d706c;

/// A fresh, migrated database of this test's own, dropped with the value.
pub struct TestDb {
    pub name: String,
    pub config: tokio_postgres::Config,
    pub pool: Pool,
    admin: tokio_postgres::Config,
}

impl TestDb {
    pub async fn new() -> anyhow::Result<Self> {
        Self::on(Config::from_env()?.database).await
    }

    /// A fresh database on the server `base` names (a cluster's writer, say).
    pub async fn on(base: tokio_postgres::Config) -> anyhow::Result<Self> {
        let mut admin = base.clone();
        admin.dbname("postgres");
        let template = ensure_template(&admin).await?;
        let name = format!("couponledger_test_{}", super::unique_suffix());
        let client = db::connect(&admin)
            .await
            .context("connecting to postgres")?;
        let sql = format!(
            "CREATE DATABASE {} TEMPLATE {}",
            quote_ident(&name),
            quote_ident(&template)
        );
        retry_while_in_use(&client, &sql)
            .await
            .context("creating the test database")?;
        let mut config = base;
        config.dbname(&name);
        let pool = db::pool(&config, 16);
        // A clone of the template would share its store id: each test's
        // database is a store of its own, as a freshly migrated one is.
        pool.get()
            .await?
            .execute(
                "UPDATE store_identity SET store_id = gen_random_uuid()",
                &[],
            )
            .await
            .context("giving the test database its own store id")?;
        Ok(Self {
            name,
            config,
            pool,
            admin,
        })
    }

    /// A database of this test's own migrated only up to `version`: a store
    /// as an earlier release left it (for tests of the upgrade).
    pub async fn at_version(version: i32) -> anyhow::Result<Self> {
        let base = Config::from_env()?.database;
        let mut admin = base.clone();
        admin.dbname("postgres");
        let name = format!("couponledger_test_{}", super::unique_suffix());
        let mut config = base;
        config.dbname(&name);
        migrate::migrate_up_to(&config, Some(version))
            .await
            .context("migrating the test database")?;
        let pool = db::pool(&config, 16);
        Ok(Self {
            name,
            config,
            pool,
            admin,
        })
    }

    /// The `DATABASE_URL` of this database, for binaries started by a test.
    pub fn url(&self) -> String {
        let host = match self.config.get_hosts().first() {
            Some(tokio_postgres::config::Host::Tcp(h)) => h.clone(),
            _ => "127.0.0.1".to_owned(),
        };
        let port = self.config.get_ports().first().copied().unwrap_or(5432);
        let user = self.config.get_user().unwrap_or("postgres");
        format!("postgres://{user}@{host}:{port}/{}", self.name)
    }

    pub async fn client(&self) -> anyhow::Result<tokio_postgres::Client> {
        Ok(db::connect(&self.config).await?)
    }
}

impl Drop for TestDb {
    fn drop(&mut self) {
        if std::env::var_os("KEEP_TEST_DB").is_some() {
            eprintln!("testkit: kept database {}", self.name);
            return;
        }
        self.pool.close();
        let admin = self.admin.clone();
        let sql = format!(
            "DROP DATABASE IF EXISTS {} WITH (FORCE)",
            quote_ident(&self.name)
        );
        super::run_cleanup("test database", async move {
            db::connect(&admin).await?.batch_execute(&sql).await?;
            Ok(())
        });
    }
}

/// CREATE DATABASE ... TEMPLATE and RENAME fail while anyone is connected to
/// the database; only template creation connects to it, briefly, so retry.
async fn retry_while_in_use(
    client: &tokio_postgres::Client,
    sql: &str,
) -> Result<(), tokio_postgres::Error> {
    let mut attempts = 0;
    loop {
        match client.batch_execute(sql).await {
            Err(e) if attempts < 100 && e.code() == Some(&SqlState::OBJECT_IN_USE) => {
                attempts += 1;
                tokio::time::sleep(Duration::from_millis(50)).await;
            }
            other => return other,
        }
    }
}

/// The migrated template for the current migrations, created once per machine.
async fn ensure_template(admin: &tokio_postgres::Config) -> anyhow::Result<String> {
    let name = format!("couponledger_template_{:016x}", migrate::fingerprint());
    let client = db::connect(admin).await.context("connecting to postgres")?;
    client
        .execute("SELECT pg_advisory_lock($1)", &[&TEMPLATE_LOCK])
        .await?;
    let exists = client
        .query_opt("SELECT 1 FROM pg_database WHERE datname = $1", &[&name])
        .await?
        .is_some();
    let result = if exists {
        Ok(())
    } else {
        build_template(admin, &client, &name).await
    };
    client
        .execute("SELECT pg_advisory_unlock($1)", &[&TEMPLATE_LOCK])
        .await?;
    result.map(|()| name)
}

/// Migrates under a temporary name and renames, so the template's name only
/// ever stands for a fully migrated database.
async fn build_template(
    admin: &tokio_postgres::Config,
    client: &tokio_postgres::Client,
    name: &str,
) -> anyhow::Result<()> {
    let building = format!("{name}_building");
    client
        .batch_execute(&format!(
            "DROP DATABASE IF EXISTS {} WITH (FORCE)",
            quote_ident(&building)
        ))
        .await?;
    let mut config = admin.clone();
    config.dbname(&building);
    migrate::migrate(&config)
        .await
        .context("migrating the template")?;
    let rename = format!(
        "ALTER DATABASE {} RENAME TO {}",
        quote_ident(&building),
        quote_ident(name)
    );
    retry_while_in_use(client, &rename)
        .await
        .context("renaming the template")?;
    drop_stale_templates(client, name).await;
    Ok(())
}

/// Drops the templates of earlier migrations, so they do not pile up on a
/// machine. Best effort: one still being cloned from is left for next time.
async fn drop_stale_templates(client: &tokio_postgres::Client, current: &str) {
    let stale = client
        .query(
            "SELECT datname FROM pg_database
              WHERE datname LIKE 'couponledger\\_template\\_%' AND datname <> $1",
            &[&current],
        )
        .await;
    for row in stale.iter().flatten() {
        let name: &str = row.get(0);
        let drop = format!("DROP DATABASE IF EXISTS {}", quote_ident(name));
        if let Err(e) = client.batch_execute(&drop).await {
            tracing::debug!(template = name, error = %e, "stale template kept");
        }
    }
}
