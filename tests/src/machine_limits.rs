//! The machine's own rate for a path's work (issue 51, point 4): the
//! servers' own benchmark tools, `pgbench` and `redis-benchmark`, run on
//! the env's database and Redis in the same run as the ledger, so a bench
//! can print how close the ledger comes to what the server does alone.

use std::process::Command;

use anyhow::{Context, bail};

use crate::Env;

/// Runs `script` (pgbench's script language) on the env's database with
/// `clients` connections for `seconds`, prepared statements, `vars` set
/// with `-D`: the transactions a second it reports.
pub fn pgbench(
    env: &Env,
    script: &str,
    clients: usize,
    seconds: u64,
    vars: &[(&str, String)],
) -> anyhow::Result<f64> {
    let file = std::env::temp_dir().join(format!("pgbench-{}.sql", uuid::Uuid::new_v4()));
    std::fs::write(&file, script)?;
    let mut command = Command::new("pgbench");
    command.args(["-n", "-M", "prepared", "-j", "2"]);
    command.args(["-c", &clients.to_string(), "-T", &seconds.to_string()]);
    for (name, value) in vars {
        command.args(["-D", &format!("{name}={value}")]);
    }
    command.arg("-f").arg(&file).arg(env.db.url());
    let out = run(&mut command, "pgbench");
    std::fs::remove_file(&file)?;
    let out = out?;
    let tps = out
        .lines()
        .find_map(|l| l.strip_prefix("tps = ")?.split(' ').next()?.parse().ok());
    tps.with_context(|| format!("pgbench printed no rate: {out}"))
}

/// Runs `command` (with `__rand_int__` placeholders) `requests` times from
/// `clients` connections on the env's Redis: the requests a second.
pub fn redis_benchmark(
    env: &Env,
    clients: usize,
    requests: usize,
    command: &[String],
) -> anyhow::Result<f64> {
    let mut bench = Command::new("redis-benchmark");
    bench.args(["-u", &env.redis.url, "--csv", "-r", "1000000000"]);
    bench.args(["-c", &clients.to_string(), "-n", &requests.to_string()]);
    bench.args(command);
    let out = run(&mut bench, "redis-benchmark")?;
    // CSV: a header, then "command","rps",...
    let rate = out.lines().last().and_then(|l| {
        let field = l.split("\",\"").nth(1)?;
        field.trim_matches('"').parse().ok()
    });
    rate.with_context(|| format!("redis-benchmark printed no rate: {out}"))
}

fn run(command: &mut Command, name: &str) -> anyhow::Result<String> {
    let out = command.output().with_context(|| {
        format!("{name} is not installed (Debian: postgresql-client, redis-tools)")
    })?;
    if !out.status.success() {
        bail!("{name} failed: {}", String::from_utf8_lossy(&out.stderr));
    }
    Ok(String::from_utf8_lossy(&out.stdout).into_owned())
}
