//! What the benchmarks share: settings from the environment, a quiet disk
//! before a timed phase, and a bulk issuance run end to end.

use std::time::{Duration, Instant};

use futures_util::StreamExt;
use lapin::options::{BasicAckOptions, BasicConsumeOptions, BasicQosOptions};
use lapin::types::FieldTable;
use ledger::messaging;
use tokio::process::Command;

use crate::{Env, Server, bin};

/// A numeric setting (BENCH_*), or its default.
pub fn env_number(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// VACUUM (ANALYZE) of `tables`, a CHECKPOINT and a `sync`, so that a timed
/// phase pays neither for what came before nor for autovacuum starting on
/// it (it made one baseline 1.5x slower).
pub async fn settle_disk(client: &tokio_postgres::Client, tables: &str) {
    let vacuum = format!("VACUUM (ANALYZE) {tables}");
    for sql in [vacuum.as_str(), "CHECKPOINT"] {
        client.batch_execute(sql).await.unwrap();
    }
    let synced = Command::new("sync").status().await.unwrap();
    assert!(synced.success());
}

/// `ledger issue --template sn --file file` against `server`, to the job's
/// end; its first line of output is printed.
pub async fn issue(env: &Env, server: &Server, sn: &str, file: &std::path::Path) -> Duration {
    let started = Instant::now();
    let out = Command::new(bin("ledger"))
        .args(["issue", "--template", sn, "--file", file.to_str().unwrap()])
        .envs(env.vars())
        .env("LEDGER_URL", &server.base)
        .output()
        .await
        .unwrap();
    let elapsed = started.elapsed();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    println!("  {}", stdout.lines().next().unwrap_or_default());
    elapsed
}

/// A file of `lines` distinct user ids in a fresh temporary directory.
pub fn users_file(lines: u64) -> (std::path::PathBuf, std::path::PathBuf) {
    let dir = std::env::temp_dir().join(format!("bench-{}", uuid::Uuid::now_v7()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("users.txt");
    let text: String = (0..lines).map(|i| format!("{i}\n")).collect();
    std::fs::write(&file, text).unwrap();
    (dir, file)
}

/// The baseline of a projection: drains `n` messages from `queue`,
/// acking only (prefetch 1,000, one `multiple` ack per 500, as the batch
/// mode acks).
pub async fn ack_only(env: &Env, queue: &str, n: i64) -> Duration {
    let amqp = messaging::connect(&env.vhost.amqp_url, "bench-ack")
        .await
        .unwrap();
    let channel = amqp.create_channel().await.unwrap();
    channel
        .basic_qos(1_000, BasicQosOptions::default())
        .await
        .unwrap();
    let started = Instant::now();
    let mut consumer = channel
        .basic_consume(
            queue.into(),
            "ack-only".into(),
            BasicConsumeOptions::default(),
            FieldTable::default(),
        )
        .await
        .unwrap();
    for i in 1..=n {
        let delivery = consumer.next().await.unwrap().unwrap();
        if i % 500 == 0 || i == n {
            delivery
                .ack(BasicAckOptions { multiple: true })
                .await
                .unwrap();
        }
    }
    let elapsed = started.elapsed();
    let _ = channel.close(200, "done".into()).await;
    elapsed
}
