//! Redis, as an accelerator that may be absent.
//!
//! The API starts and serves while Redis is down; every invariant is guarded by
//! Postgres, so losing Redis costs speed only. A connection manager is created
//! lazily and reconnects by itself once created. After a failure, Redis is
//! skipped for a short while, so a stopped Redis costs requests nothing.

use std::sync::{Arc, Mutex, OnceLock};
use std::time::{Duration, Instant};

use redis::aio::{ConnectionManager, ConnectionManagerConfig};

/// How long a Redis call may take before the caller falls back to Postgres.
const TIMEOUT: Duration = Duration::from_millis(250);
/// How long Redis is left alone after a failure.
const RETRY_AFTER: Duration = Duration::from_secs(1);

#[derive(Clone)]
pub struct RedisHandle {
    client: redis::Client,
    /// Prefix of every key this process writes (tests use one each).
    pub prefix: String,
    shared: Arc<Shared>,
}

#[derive(Default)]
struct Shared {
    manager: OnceLock<ConnectionManager>,
    connecting: tokio::sync::Mutex<()>,
    failed_at: Mutex<Option<Instant>>,
}

impl RedisHandle {
    pub fn new(url: &str, prefix: impl Into<String>) -> Result<Self, redis::RedisError> {
        Ok(Self {
            client: redis::Client::open(url)?,
            prefix: prefix.into(),
            shared: Arc::default(),
        })
    }

    /// A connection, or None while Redis is failing or being connected to.
    pub async fn connection(&self) -> Option<ConnectionManager> {
        if self.recently_failed() {
            return None;
        }
        if let Some(m) = self.shared.manager.get() {
            return Some(m.clone());
        }
        // One task connects; the others go on without Redis meanwhile.
        let _guard = self.shared.connecting.try_lock().ok()?;
        if let Some(m) = self.shared.manager.get() {
            return Some(m.clone());
        }
        let config = ConnectionManagerConfig::new()
            .set_connection_timeout(Some(TIMEOUT))
            .set_response_timeout(Some(TIMEOUT))
            .set_number_of_retries(1);
        match ConnectionManager::new_with_config(self.client.clone(), config).await {
            Ok(m) => Some(self.shared.manager.get_or_init(|| m).clone()),
            Err(e) => {
                tracing::debug!(error = %e, "redis unavailable");
                self.report_failure();
                None
            }
        }
    }

    /// Callers report a failed command, so the next ones skip Redis for a while.
    pub fn report_failure(&self) {
        if let Ok(mut at) = self.shared.failed_at.lock() {
            *at = Some(Instant::now());
        }
    }

    fn recently_failed(&self) -> bool {
        self.shared
            .failed_at
            .lock()
            .map(|at| at.is_some_and(|t| t.elapsed() < RETRY_AFTER))
            .unwrap_or(false)
    }

    pub fn key(&self, parts: &[&str]) -> String {
        let mut key = self.prefix.clone();
        key.push_str(&parts.join(":"));
        key
    }

    /// PING, for readiness (tries even right after a failure).
    pub async fn ping(&self) -> bool {
        let conn = match self.shared.manager.get() {
            Some(m) => Some(m.clone()),
            None => self.connection().await,
        };
        let Some(mut conn) = conn else {
            return false;
        };
        redis::cmd("PING")
            .query_async::<String>(&mut conn)
            .await
            .is_ok()
    }
}
