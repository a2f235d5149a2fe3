//! Redis, as an accelerator that may be absent.
//!
//! The API starts and serves while Redis is down; every invariant is guarded by
//! Postgres, so losing Redis costs speed only. A connection manager is created
//! lazily and reconnects by itself once created; short timeouts keep a stopped
//! Redis from stalling requests.

use std::sync::Arc;
use std::time::Duration;

use redis::aio::{ConnectionManager, ConnectionManagerConfig};
use tokio::sync::RwLock;

/// How long a Redis call may take before the caller falls back to Postgres.
const TIMEOUT: Duration = Duration::from_millis(250);

#[derive(Clone)]
pub struct RedisHandle {
    client: redis::Client,
    /// Prefix of every key this process writes (tests use one each).
    pub prefix: String,
    manager: Arc<RwLock<Option<ConnectionManager>>>,
}

impl RedisHandle {
    pub fn new(url: &str, prefix: impl Into<String>) -> Result<Self, redis::RedisError> {
        Ok(Self {
            client: redis::Client::open(url)?,
            prefix: prefix.into(),
            manager: Arc::default(),
        })
    }

    /// A connection, or None while Redis cannot be reached.
    pub async fn connection(&self) -> Option<ConnectionManager> {
        if let Some(m) = self.manager.read().await.as_ref() {
            return Some(m.clone());
        }
        let mut slot = self.manager.write().await;
        if slot.is_none() {
            let config = ConnectionManagerConfig::new()
                .set_connection_timeout(Some(TIMEOUT))
                .set_response_timeout(Some(TIMEOUT))
                .set_number_of_retries(1);
            match ConnectionManager::new_with_config(self.client.clone(), config).await {
                Ok(m) => *slot = Some(m),
                Err(e) => tracing::debug!(error = %e, "redis unavailable"),
            }
        }
        slot.clone()
    }

    pub fn key(&self, parts: &[&str]) -> String {
        let mut key = self.prefix.clone();
        key.push_str(&parts.join(":"));
        key
    }

    /// PING, for readiness.
    pub async fn ping(&self) -> bool {
        let Some(mut conn) = self.connection().await else {
            return false;
        };
        redis::cmd("PING")
            .query_async::<String>(&mut conn)
            .await
            .is_ok()
    }
}
