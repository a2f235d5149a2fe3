//! A Redis server of the test's own, on a free port, so a test can stop,
//! restart and flush it without touching the Redis other tests share.

use std::net::TcpListener;
use std::process::Stdio;
use std::time::Duration;

use anyhow::{Context, bail};
use tokio::process::{Child, Command};

pub struct OwnRedis {
    pub port: u16,
    child: Option<Child>,
}

impl OwnRedis {
    pub async fn start() -> anyhow::Result<Self> {
        let port = TcpListener::bind("127.0.0.1:0")?.local_addr()?.port();
        let mut redis = Self { port, child: None };
        redis.restart().await?;
        Ok(redis)
    }

    pub fn url(&self) -> String {
        format!("redis://127.0.0.1:{}", self.port)
    }

    /// Starts the server (again, empty: it keeps nothing on disk).
    pub async fn restart(&mut self) -> anyhow::Result<()> {
        let child = Command::new("redis-server")
            .args(["--bind", "127.0.0.1", "--port", &self.port.to_string()])
            .args(["--save", "", "--appendonly", "no"])
            .stdout(Stdio::null())
            .kill_on_drop(true)
            .spawn()
            .context("starting redis-server")?;
        self.child = Some(child);
        for _ in 0..100 {
            if self.ping().await {
                return Ok(());
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        bail!("redis-server on port {} did not answer", self.port)
    }

    /// Stops the server (SIGKILL: its data is gone).
    pub async fn stop(&mut self) -> anyhow::Result<()> {
        if let Some(mut child) = self.child.take() {
            child.kill().await?;
        }
        Ok(())
    }

    pub async fn connection(&self) -> anyhow::Result<redis::aio::MultiplexedConnection> {
        let client = redis::Client::open(self.url())?;
        Ok(client.get_multiplexed_async_connection().await?)
    }

    async fn ping(&self) -> bool {
        match self.connection().await {
            Ok(mut c) => redis::cmd("PING")
                .query_async::<String>(&mut c)
                .await
                .is_ok(),
            Err(_) => false,
        }
    }
}
