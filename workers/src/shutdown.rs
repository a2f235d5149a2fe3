//! Graceful shutdown: SIGTERM or Ctrl-C sets a flag every worker watches.
//! Workers finish what is in flight, then return.

use std::time::Duration;

use tokio::sync::watch;

#[derive(Clone)]
pub struct Shutdown(watch::Receiver<bool>);

impl Shutdown {
    /// A shutdown that SIGTERM or Ctrl-C triggers.
    pub fn on_signals() -> anyhow::Result<Self> {
        let (tx, rx) = watch::channel(false);
        let mut term = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate())?;
        tokio::spawn(async move {
            tokio::select! {
                _ = term.recv() => {}
                _ = tokio::signal::ctrl_c() => {}
            }
            tracing::info!("shutting down: finishing in-flight work");
            let _ = tx.send(true);
        });
        Ok(Self(rx))
    }

    pub fn is_set(&self) -> bool {
        *self.0.borrow()
    }

    /// Resolves once shutdown is asked for.
    pub async fn wait(&mut self) {
        // A closed channel means the signal task is gone: never resolve.
        if self.0.wait_for(|set| *set).await.is_err() {
            std::future::pending::<()>().await;
        }
    }

    /// Sleeps for `d`, or less if shutdown is asked for; true if it was.
    pub async fn sleep(&mut self, d: Duration) -> bool {
        tokio::select! {
            _ = tokio::time::sleep(d) => self.is_set(),
            _ = self.wait() => true,
        }
    }
}

/// Exponential backoff between reconnects: 100 ms doubling to 5 s.
pub fn backoff(attempt: u32) -> Duration {
    Duration::from_millis(100u64.saturating_mul(1 << attempt.min(6))).min(Duration::from_secs(5))
}
