//! One number from the database, as a test asserts it.

use tokio_postgres::GenericClient;
use tokio_postgres::types::ToSql;

use super::TestDb;

/// The first column of `sql`'s one row as an `i64` (a `count(*)`, a
/// counter). A test helper: a failed query panics with the statement, which
/// is the failure the test should show.
pub async fn count(client: &impl GenericClient, sql: &str, params: &[&(dyn ToSql + Sync)]) -> i64 {
    match client.query_one(sql, params).await {
        Ok(row) => row.get(0),
        Err(e) => panic!("{sql}: {e}"),
    }
}

impl TestDb {
    /// [`count`] on a connection of its own.
    pub async fn count(&self, sql: &str, params: &[&(dyn ToSql + Sync)]) -> i64 {
        let client = self.client().await.expect("connect to the test database");
        count(&client, sql, params).await
    }
}
