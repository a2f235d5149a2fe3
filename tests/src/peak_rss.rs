//! Running `ledger` while watching its peak resident memory (Linux
//! `VmHWM`, polled: it only grows, so the last reading before the exit is
//! the peak but for the last few milliseconds).

use std::process::{Output, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use anyhow::Context;
use tokio::process::Command;

use crate::{Env, bin};

/// How often the memory is read.
const POLL: Duration = Duration::from_millis(5);

/// Runs `ledger <args>` to the end: its output and peak RSS in KiB.
pub async fn ledger_peak_kib(env: &Env, args: &[&str]) -> anyhow::Result<(Output, u64)> {
    let child = Command::new(bin("ledger"))
        .args(args)
        .envs(env.vars())
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .with_context(|| format!("running ledger {args:?}"))?;
    let pid = child.id().context("ledger exited at once")?;
    let peak = Arc::new(AtomicU64::new(0));
    let seen = Arc::clone(&peak);
    let watch = tokio::spawn(async move {
        loop {
            if let Some(kib) = high_water_kib(pid) {
                seen.fetch_max(kib, Ordering::Relaxed);
            }
            tokio::time::sleep(POLL).await;
        }
    });
    let output = child.wait_with_output().await;
    watch.abort();
    Ok((output?, peak.load(Ordering::Relaxed)))
}

/// `VmHWM` of a running process, in KiB.
pub fn high_water_kib(pid: u32) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
}
