//! `ledger migrate`: create the database when missing, apply the migrations.

use anyhow::Context;
use ledger::config::Config;

pub async fn run(config: &Config) -> anyhow::Result<()> {
    let report = ledger::db::migrate::migrate(&config.database)
        .await
        .context("ledger migrate")?;
    let db = config.database.get_dbname().unwrap_or_default();
    if report.created_database {
        println!("created database {db}");
    }
    if report.applied.is_empty() {
        println!("database {db} is up to date");
    }
    for m in &report.applied {
        println!("applied {m}");
    }
    Ok(())
}
