//! Running `workers` and `ledger` commands against a test's services.

use std::process::{Output, Stdio};
use std::time::Duration;

use anyhow::Context;
use tokio::process::{Child, Command};

use crate::{Env, bin};

/// A running `workers run --only <only>`, killed when dropped.
pub struct Workers {
    child: Child,
}

impl Workers {
    /// The process id, for measuring it.
    pub fn pid(&self) -> Option<u32> {
        self.child.id()
    }

    /// Starts the given workers (comma-separated), scanner sweeping every second.
    pub fn start(env: &Env, only: &str) -> anyhow::Result<Self> {
        Self::start_with(env, only, &[])
    }

    /// [`Workers::start`] with more arguments to `workers run`.
    pub fn start_with(env: &Env, only: &str, args: &[&str]) -> anyhow::Result<Self> {
        let child = Command::new(bin("workers"))
            .args(["run", "--only", only, "--scan-interval", "1"])
            .args(args)
            .envs(env.vars())
            .stdout(Stdio::null())
            .kill_on_drop(true)
            .spawn()
            .context("starting workers")?;
        Ok(Self { child })
    }

    /// SIGKILL, as a crash would.
    pub async fn kill(mut self) -> anyhow::Result<()> {
        self.child.kill().await?;
        Ok(())
    }

    /// SIGTERM, then wait for a graceful exit.
    pub async fn terminate(mut self) -> anyhow::Result<std::process::ExitStatus> {
        let pid = self.child.id().context("workers already exited")?;
        Command::new("kill")
            .args(["-TERM", &pid.to_string()])
            .status()
            .await?;
        Ok(tokio::time::timeout(Duration::from_secs(20), self.child.wait()).await??)
    }
}

/// Runs `ledger <args>` to the end against the test's services.
pub async fn ledger(env: &Env, args: &[&str]) -> anyhow::Result<Output> {
    Command::new(bin("ledger"))
        .args(args)
        .envs(env.vars())
        .stdin(Stdio::null())
        .output()
        .await
        .with_context(|| format!("running ledger {args:?}"))
}

/// Runs `ledger replay --verify` and asserts it found no difference.
pub async fn assert_replay_verifies(env: &Env) {
    let out = ledger(env, &["replay", "--verify"]).await.unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{stdout}");
    assert!(stdout.contains("0 differences"), "{stdout}");
}

/// Waits until both projections have been given every stored event.
pub async fn projections_caught_up(env: &Env, timeout: Duration) -> anyhow::Result<()> {
    let client = env.db.client().await?;
    let deadline = tokio::time::Instant::now() + timeout;
    loop {
        let row = client
            .query_one(
                "SELECT (SELECT count(*) FROM events),
                        (SELECT coalesce(min(applied), 0) FROM projection_positions),
                        (SELECT count(*) FROM projection_positions)",
                &[],
            )
            .await?;
        let (events, applied, projections): (i64, i64, i64) = (row.get(0), row.get(1), row.get(2));
        if projections >= 2 && applied >= events {
            return Ok(());
        }
        anyhow::ensure!(
            tokio::time::Instant::now() < deadline,
            "projections applied {applied} of {events} events in {timeout:?}"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}
