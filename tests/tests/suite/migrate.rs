//! `ledger migrate`: creates a missing database, is safe to repeat and to run
//! from two processes at once.

use std::process::Output;

use ledger::db::migrate::quote_ident;
use tokio::process::Command;

/// A database name nobody has, dropped at the end.
struct FreshName {
    name: String,
}

impl FreshName {
    fn new() -> Self {
        Self {
            name: format!("couponledger_migrate_{}", uuid::Uuid::new_v4().simple()),
        }
    }

    fn url(&self) -> String {
        format!("postgres://postgres@127.0.0.1:5432/{}", self.name)
    }

    async fn admin(&self) -> tokio_postgres::Client {
        let config: tokio_postgres::Config = "postgres://postgres@127.0.0.1:5432/postgres"
            .parse()
            .unwrap();
        ledger::db::connect(&config).await.unwrap()
    }

    async fn drop_database(&self) {
        let sql = format!(
            "DROP DATABASE IF EXISTS {} WITH (FORCE)",
            quote_ident(&self.name)
        );
        self.admin().await.batch_execute(&sql).await.unwrap();
    }
}

async fn migrate(url: &str) -> Output {
    Command::new(tests::bin("ledger"))
        .arg("migrate")
        .env("DATABASE_URL", url)
        .output()
        .await
        .unwrap()
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

async fn applied_migrations(url: &str) -> i64 {
    let client = ledger::db::connect(&url.parse().unwrap()).await.unwrap();
    client
        .query_one("SELECT count(*) FROM refinery_schema_history", &[])
        .await
        .unwrap()
        .get(0)
}

#[tokio::test]
async fn migrate_creates_a_missing_database_and_is_safe_to_repeat() {
    let db = FreshName::new();
    let first = migrate(&db.url()).await;
    assert!(first.status.success(), "{first:?}");
    assert!(
        stdout(&first).contains(&format!("created database {}", db.name)),
        "{first:?}"
    );
    assert!(
        stdout(&first).contains("applied V1__event_store"),
        "{first:?}"
    );

    let second = migrate(&db.url()).await;
    assert!(second.status.success(), "{second:?}");
    assert!(stdout(&second).contains("is up to date"), "{second:?}");
    let migrations = std::fs::read_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/../migrations"))
        .unwrap()
        .count();
    assert_eq!(applied_migrations(&db.url()).await, migrations as i64);
    db.drop_database().await;
}

#[tokio::test]
async fn two_migrations_at_once_both_succeed_and_apply_each_migration_once() {
    let db = FreshName::new();
    let url = db.url();
    let (a, b) = tokio::join!(migrate(&url), migrate(&url));
    assert!(a.status.success(), "{a:?}");
    assert!(b.status.success(), "{b:?}");
    let created = [&a, &b]
        .iter()
        .filter(|o| stdout(o).contains("created database"))
        .count();
    assert_eq!(created, 1, "exactly one process created the database");
    let migrations = std::fs::read_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/../migrations"))
        .unwrap()
        .count();
    assert_eq!(applied_migrations(&db.url()).await, migrations as i64);
    db.drop_database().await;
}

#[tokio::test]
async fn a_malformed_database_url_is_one_clear_error_naming_the_variable() {
    let out = migrate("postgres://[::1").await;
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("DATABASE_URL"), "{stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
}
