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

    /// `workers run` with its default set, as `scripts/run` deploys it.
    pub fn start_default(env: &Env) -> anyhow::Result<Self> {
        let child = Command::new(bin("workers"))
            .args(["run"])
            .envs(env.vars())
            .stdout(Stdio::null())
            .kill_on_drop(true)
            .spawn()
            .context("starting workers")?;
        Ok(Self { child })
    }

    /// [`Workers::start`] with more arguments to `workers run`.
    pub fn start_with(env: &Env, only: &str, args: &[&str]) -> anyhow::Result<Self> {
        Self::start_setting(env, only, args, &[])
    }

    /// [`Workers::start_with`] with more environment variables (`vars`
    /// override the test's own).
    pub fn start_setting(
        env: &Env,
        only: &str,
        args: &[&str],
        vars: &[(&str, &str)],
    ) -> anyhow::Result<Self> {
        let child = Command::new(bin("workers"))
            .args(["run", "--only", only, "--scan-interval", "1"])
            .args(args)
            .envs(env.vars())
            .envs(vars.iter().copied())
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

/// Runs the relay and the projections until they caught up, stops them,
/// then [`assert_replay_verifies`].
pub async fn assert_verifies_once_caught_up(env: &Env) {
    let workers = Workers::start(env, "relay,balances,template_stats").unwrap();
    projections_caught_up(env, Duration::from_secs(60))
        .await
        .unwrap();
    workers.terminate().await.unwrap();
    assert_replay_verifies(env).await;
}

/// After a load: the projections caught up (within `patience`), the
/// workers stopped, `replay --verify` finds no difference and `audit
/// verify` passes.
pub async fn assert_settled_and_verified(env: &Env, workers: Workers, patience: Duration) {
    projections_caught_up(env, patience).await.unwrap();
    workers.terminate().await.unwrap();
    assert_replay_verifies(env).await;
    let out = ledger(env, &["audit", "verify"]).await.unwrap();
    assert!(out.status.success(), "{out:?}");
}

/// Runs `ledger replay --verify` (in one pass and in [`PARTITIONS`]) and
/// asserts it found no difference.
pub async fn assert_replay_verifies(env: &Env) {
    let (code, stdout) = replay_both_ways(env, &["replay", "--verify"]).await;
    assert_eq!(code, Some(0), "{stdout}");
    assert!(stdout.contains("0 differences"), "{stdout}");
}

/// The passes a partitioned replay is checked with: more than the test
/// stores' coupons, users and orders need, so that they are spread over
/// every pass and bucket and orders reach the passes of their coupons.
pub const PARTITIONS: &str = "8";

/// Runs `ledger <args>` (a replay) in one pass and in [`PARTITIONS`], and
/// asserts both say the same: exit code, lag, every difference and the
/// count (the last line's timings and passes aside). The one pass's exit
/// code and output.
pub async fn replay_both_ways(env: &Env, args: &[&str]) -> (Option<i32>, String) {
    let run = |more: &'static str| async move {
        let args: Vec<&str> = args.iter().copied().chain(["--partitions", more]).collect();
        let out = ledger(env, &args).await.unwrap();
        let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
        let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
        (out.status.code(), stdout, stderr)
    };
    let (code, one, stderr) = run("1").await;
    let (code_n, many, stderr_n) = run(PARTITIONS).await;
    // Only an error (exit 1) says anything on stderr.
    for (code, stderr) in [(code, &stderr), (code_n, &stderr_n)] {
        assert!(stderr.trim().is_empty() || code == Some(1), "{stderr}");
    }
    assert_eq!(
        code, code_n,
        "{one}{stderr}\nvs {PARTITIONS} passes:\n{many}{stderr_n}"
    );
    assert_eq!(
        findings(&one),
        findings(&many),
        "one pass:\n{one}\n{PARTITIONS} passes:\n{many}"
    );
    assert!(many.contains(&format!("; {PARTITIONS} passes;")), "{many}");
    (code, one)
}

/// What a replay's output says of the store: every line, and of the last
/// one (`replayed ... in ... s (...): N differences ...`) only the count.
pub fn findings(stdout: &str) -> Vec<&str> {
    stdout
        .lines()
        .map(|l| match l.strip_prefix("replayed ") {
            Some(summary) => summary.rsplit_once("): ").map_or(l, |(_, count)| count),
            None => l,
        })
        .collect()
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
