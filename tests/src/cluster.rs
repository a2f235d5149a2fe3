//! The one-machine cluster of `scripts/cluster` (docs/design.md §17), for
//! the serial cluster tests: started (or found running), its addresses
//! read from `target/cluster/env`, members killed and started by name or
//! alias, and a test's own database, vhost and Redis prefix on it.

use std::collections::HashMap;
use std::path::PathBuf;
use std::time::Duration;

use anyhow::Context;

use crate::{Env, TestDb, TestRedis, TestVhost};

/// `scripts/cluster up` from nothing takes about a minute here.
const UP_TIMEOUT: Duration = Duration::from_secs(600);

pub struct Cluster {
    vars: HashMap<String, String>,
}

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..")
}

impl Cluster {
    /// Starts what is not running, waits until all answers.
    pub async fn up() -> anyhow::Result<Self> {
        run_script(&["up"], UP_TIMEOUT).await?;
        let text = std::fs::read_to_string(root().join("target/cluster/env"))
            .context("reading target/cluster/env")?;
        let vars = text
            .lines()
            .filter_map(|l| l.split_once('='))
            .map(|(k, v)| (k.to_owned(), v.to_owned()))
            .collect();
        Ok(Cluster { vars })
    }

    pub fn var(&self, name: &str) -> &str {
        self.vars.get(name).map_or("", String::as_str)
    }

    /// `scripts/cluster <args>`; its stdout.
    pub async fn run(&self, args: &[&str]) -> anyhow::Result<String> {
        run_script(args, UP_TIMEOUT).await
    }

    /// The member an alias (`pg-primary`, `rabbit-leader`, `redis-primary`) names now.
    pub async fn resolve(&self, alias: &str) -> anyhow::Result<String> {
        Ok(self.run(&["resolve", alias]).await?.trim().to_owned())
    }

    /// A test's own database (through the writer), vhost (on every node)
    /// and Redis prefix (the binaries reach Redis through the Sentinels).
    pub async fn env(&self) -> anyhow::Result<Env> {
        let writer: tokio_postgres::Config = self.var("DATABASE_URL").parse()?;
        let api = self
            .var("CLUSTER_RABBIT_MANAGEMENT")
            .split(',')
            .next()
            .unwrap_or("");
        let nodes: Vec<&str> = self
            .var("AMQP_URL")
            .split(',')
            .filter_map(|u| u.split('@').nth(1)?.split('/').next())
            .collect();
        // The prefix's keys are cleaned up on the primary of now.
        let primary = self.resolve("redis-primary").await?;
        let redis_nodes: Vec<&str> = self.var("CLUSTER_REDIS_NODES").split(',').collect();
        let redis = if primary == "redis2" {
            redis_nodes.get(1)
        } else {
            redis_nodes.first()
        };
        let redis = redis.copied().unwrap_or("");
        Ok(Env {
            db: TestDb::on(writer).await?,
            vhost: TestVhost::on(api, &nodes).await?,
            redis: TestRedis::on(&format!("redis://{redis}/0"))?,
            redis_url: Some(self.var("REDIS_URL").to_owned()),
        })
    }

    /// The variables a binary needs on top of the test's own: the
    /// replica's address (HAProxy's reader port) of the test's database.
    pub fn extra(&self, env: &Env) -> Vec<(&'static str, String)> {
        let reader = self.var("DATABASE_REPLICA_URL");
        let server = reader.rsplit_once('/').map_or(reader, |(server, _)| server);
        vec![("DATABASE_REPLICA_URL", format!("{server}/{}", env.db.name))]
    }
}

async fn run_script(args: &[&str], timeout: Duration) -> anyhow::Result<String> {
    let script = root().join("scripts/cluster");
    let run = tokio::process::Command::new(&script)
        .args(args)
        .kill_on_drop(true)
        .output();
    let out = tokio::time::timeout(timeout, run)
        .await
        .with_context(|| format!("scripts/cluster {args:?} timed out"))??;
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    anyhow::ensure!(
        out.status.success(),
        "scripts/cluster {args:?}: {}\n{stdout}{}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    Ok(stdout)
}
