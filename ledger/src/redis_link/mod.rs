//! Redis, as an accelerator that may be absent.
//!
//! The API starts and serves while Redis is down; every invariant is guarded by
//! Postgres, so losing Redis costs speed only. A connection manager is created
//! lazily and reconnects by itself once created. After a failure, Redis is
//! skipped for a short while, so a stopped Redis costs requests nothing.
//! Behind Sentinels ([`RedisTarget`]), a failure also drops the connection,
//! and the next one goes to the primary the Sentinels name then.
//!
//! - [`target`]: where Redis is (one server, or the primary Sentinels name).

pub(crate) mod target;

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use redis::aio::{ConnectionManager, ConnectionManagerConfig};

use self::target::RedisTarget;

/// How long a Redis call may take before the caller falls back to Postgres.
const TIMEOUT: Duration = Duration::from_millis(250);
/// How long Redis is left alone after a failure.
const RETRY_AFTER: Duration = Duration::from_secs(1);

#[derive(Clone)]
pub struct RedisHandle {
    target: RedisTarget,
    /// Prefix of every key this process writes (tests use one each).
    pub prefix: String,
    shared: Arc<Shared>,
}

#[derive(Default)]
struct Shared {
    manager: Mutex<Option<ConnectionManager>>,
    /// The server the connection goes to (`host:port`), for readiness.
    address: Mutex<Option<String>>,
    connecting: tokio::sync::Mutex<()>,
    failed_at: Mutex<Option<Instant>>,
}

impl RedisHandle {
    pub fn new(url: &str, prefix: impl Into<String>) -> Result<Self, String> {
        Ok(Self {
            target: RedisTarget::parse(url)?,
            prefix: prefix.into(),
            shared: Arc::default(),
        })
    }

    /// A connection, or None while Redis is failing or being connected to.
    pub async fn connection(&self) -> Option<ConnectionManager> {
        if self.recently_failed() {
            return None;
        }
        if let Some(m) = self.current() {
            return Some(m);
        }
        // One task connects; the others go on without Redis meanwhile.
        let _guard = self.shared.connecting.try_lock().ok()?;
        if let Some(m) = self.current() {
            return Some(m);
        }
        let config = ConnectionManagerConfig::new()
            .set_connection_timeout(Some(TIMEOUT))
            .set_response_timeout(Some(TIMEOUT))
            .set_number_of_retries(1);
        let connected = match self.target.resolve().await {
            Ok(client) => {
                let address = client.get_connection_info().addr().to_string();
                if let Ok(mut slot) = self.shared.address.lock() {
                    *slot = Some(address);
                }
                ConnectionManager::new_with_config(client, config).await
            }
            Err(e) => Err(e),
        };
        match connected {
            Ok(m) => {
                if let Ok(mut slot) = self.shared.manager.lock() {
                    *slot = Some(m.clone());
                }
                Some(m)
            }
            Err(e) => {
                tracing::debug!(error = %e, "redis unavailable");
                self.report_failure();
                None
            }
        }
    }

    fn current(&self) -> Option<ConnectionManager> {
        self.shared.manager.lock().ok()?.clone()
    }

    /// Callers report a failed command, so the next ones skip Redis for a while.
    pub fn report_failure(&self) {
        if let Ok(mut at) = self.shared.failed_at.lock() {
            *at = Some(Instant::now());
        }
        // A primary that failed may have been replaced (or demoted: it then
        // refuses writes): ask the Sentinels again next time.
        if self.target.follows_failover()
            && let Ok(mut slot) = self.shared.manager.lock()
        {
            *slot = None;
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

    /// The server connected to last (`host:port`): behind Sentinels, the
    /// primary they named then.
    pub fn address(&self) -> Option<String> {
        self.shared.address.lock().ok()?.clone()
    }

    /// PING, for readiness (tries even right after a failure).
    pub async fn ping(&self) -> bool {
        let conn = match self.current() {
            Some(m) => Some(m),
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
