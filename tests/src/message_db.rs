//! Eventide's Message DB, a peer of the ledger's store in the peer bench
//! (`tests/benches/peer.rs`): installed by its own script (the
//! `@eventide/message-db` npm package, `peers/message-db/install`) into a
//! database of its own, and driven only through its functions, as its
//! client libraries drive it: `write_message` with an expected version, one
//! call per message (a batch is several calls in one transaction), and
//! `get_stream_messages`.
//!
//! Its guarantees are the ledger's: a global position, stream versions
//! (its `messages_stream` unique index), unique message ids (`messages_id`).
//! Its writes to one category take one advisory lock (`acquire_lock`), so
//! they are serial: that keeps its global positions in commit order.

use std::path::PathBuf;

use anyhow::{Context, bail};
use deadpool_postgres::{GenericClient, Manager, ManagerConfig, Pool, RecyclingMethod, Runtime};
use serde_json::Value;
use tokio_postgres::NoTls;
use uuid::Uuid;

/// The version `peers/message-db/install` pins.
pub const VERSION: &str = "1.3.1";

/// Installs Message DB into `database` (which exists and is empty).
pub fn install(database: &str) -> anyhow::Result<()> {
    let script = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../peers/message-db/install");
    let out = std::process::Command::new(&script)
        .arg(database)
        .output()
        .with_context(|| format!("running {}", script.display()))?;
    if !out.status.success() {
        bail!(
            "installing Message DB failed: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    Ok(())
}

/// A pool on `config`'s database with Message DB's schema first on the
/// search path (its functions name its table unqualified, as its own role's
/// setting has it), Postgres' default plan caching (its functions' plans
/// are kept, as in any deployment of it) and a round trip to check a
/// connection before reuse (as the ledger's pool and sqlx's have).
pub fn pool(config: &tokio_postgres::Config, size: usize) -> Pool {
    let mut config = config.clone();
    config.options("-c search_path=message_store,public");
    let check = ManagerConfig {
        recycling_method: RecyclingMethod::Verified,
    };
    let manager = Manager::from_config(config, NoTls, check);
    Pool::builder(manager)
        .max_size(size)
        .runtime(Runtime::Tokio1)
        .build()
        .expect("a runtime is set, so the pool builds")
}

/// Writes one message to `stream` at `expected` (-1: the stream is new);
/// its position in the stream.
pub async fn write(
    client: &impl GenericClient,
    stream: &str,
    expected: i64,
    data: &Value,
    metadata: &Value,
) -> Result<i64, tokio_postgres::Error> {
    let sql = "SELECT write_message($1, $2, $3, $4, $5, $6)";
    let id = Uuid::now_v7().to_string();
    let kind = "CouponIssued";
    let row = client
        .query_one(
            &client.prepare_cached(sql).await?,
            &[&id, &stream, &kind, data, metadata, &expected],
        )
        .await?;
    Ok(row.get(0))
}

/// A message as a reader has it: its data and metadata parsed.
pub struct Message {
    pub position: i64,
    pub global_position: i64,
    pub data: Value,
    pub metadata: Value,
}

/// Up to 1,000 messages of `stream` from its first, in order.
pub async fn read(client: &impl GenericClient, stream: &str) -> anyhow::Result<Vec<Message>> {
    let sql = "SELECT position, global_position, data, metadata
                 FROM get_stream_messages($1, 0, 1000)";
    let rows = client
        .query(&client.prepare_cached(sql).await?, &[&stream])
        .await?;
    rows.iter()
        .map(|row| {
            let (data, metadata): (&str, &str) = (row.get(2), row.get(3));
            Ok(Message {
                position: row.get(0),
                global_position: row.get(1),
                data: serde_json::from_str(data)?,
                metadata: serde_json::from_str(metadata)?,
            })
        })
        .collect()
}
