//! The system under test: two `ledger serve`s and one `workers run` (its
//! default set) against a run's own database, vhost and Redis. On single
//! nodes every link to a service goes through a proxy the run owns (to cut
//! or slow it) and Redis is a server of the run's own (to restart it); on
//! the clusters the links are direct and the members themselves fail.

use std::net::{SocketAddr, TcpListener};
use std::process::Stdio;
use std::time::Duration;

use anyhow::Context;
use tokio::process::{Child, Command};

use crate::cluster::Cluster;
use crate::own_redis::OwnRedis;
use crate::tcp_proxy::TcpProxy;
use crate::{Env, bin};

/// How far ahead a skewed clock runs: minutes, inside the signatures'
/// five-minute window so a skewed process still serves.
pub const SKEW: &str = "+3m";

/// A single node's links and its own Redis.
pub struct Links {
    pub postgres: TcpProxy,
    pub rabbitmq: TcpProxy,
    pub redis: TcpProxy,
    pub own_redis: OwnRedis,
}

pub struct Stack {
    pub env: Env,
    /// What the binaries get on top of `env.vars()` (the proxies' URLs,
    /// the replica's), and the planted bug if any.
    vars: Vec<(String, String)>,
    pub links: Option<Links>,
    pub cluster: Option<Cluster>,
    serve_ports: Vec<u16>,
    serves: Vec<Option<Child>>,
    workers: Option<Child>,
}

impl Stack {
    /// A run's own services on single nodes, behind its proxies.
    pub async fn single(planted: Option<&str>) -> anyhow::Result<Self> {
        let env = Env::new().await?;
        let own_redis = OwnRedis::start().await?;
        let postgres = TcpProxy::start(authority(&env.db.url())?).await?;
        let rabbitmq = TcpProxy::start(authority(&env.vhost.amqp_url)?).await?;
        let redis = TcpProxy::start(SocketAddr::from(([127, 0, 0, 1], own_redis.port))).await?;
        let mut vars = vec![
            ("DATABASE_URL".into(), through(&env.db.url(), postgres.port)),
            (
                "AMQP_URL".into(),
                through(&env.vhost.amqp_url, rabbitmq.port),
            ),
            (
                "REDIS_URL".into(),
                format!("redis://127.0.0.1:{}", redis.port),
            ),
        ];
        vars.extend(planted_var(planted));
        let links = Links {
            postgres,
            rabbitmq,
            redis,
            own_redis,
        };
        Self::start(env, vars, Some(links), None).await
    }

    /// A run's own database, vhost and Redis prefix on the clusters.
    pub async fn on_cluster(planted: Option<&str>) -> anyhow::Result<Self> {
        let cluster = Cluster::up().await?;
        let env = cluster.env().await?;
        let mut vars: Vec<(String, String)> = cluster
            .extra(&env)
            .into_iter()
            .map(|(k, v)| (k.to_owned(), v))
            .collect();
        vars.extend(planted_var(planted));
        Self::start(env, vars, None, Some(cluster)).await
    }

    async fn start(
        env: Env,
        vars: Vec<(String, String)>,
        links: Option<Links>,
        cluster: Option<Cluster>,
    ) -> anyhow::Result<Self> {
        let serve_ports = (0..2).map(|_| free_port()).collect::<anyhow::Result<_>>()?;
        let mut stack = Stack {
            env,
            vars,
            links,
            cluster,
            serve_ports,
            serves: vec![None, None],
            workers: None,
        };
        for i in 0..2 {
            stack.start_serve(i)?;
        }
        for i in 0..2 {
            stack.wait_healthy(i).await?;
        }
        stack.start_workers(false)?;
        Ok(stack)
    }

    /// The serves' base URLs.
    pub fn bases(&self) -> Vec<String> {
        let url = |port: &u16| format!("http://127.0.0.1:{port}");
        self.serve_ports.iter().map(url).collect()
    }

    /// The environment of the binaries: the run's own, the links' on top.
    fn command(&self, program: &str) -> Command {
        let mut command = Command::new(bin(program));
        command
            .envs(self.env.vars())
            .envs(self.vars.iter().map(|(k, v)| (k.as_str(), v.as_str())))
            .env("RUST_LOG", "error")
            // Eight connections a serve: a run shares Postgres with the
            // parallel suite's tests (max_connections 100 by default).
            .env("LEDGER_DB_POOL_SIZE", "8")
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .kill_on_drop(true);
        command
    }

    pub fn start_serve(&mut self, i: usize) -> anyhow::Result<()> {
        let listen = format!("127.0.0.1:{}", self.serve_ports[i]);
        let child = self
            .command("ledger")
            .arg("serve")
            .env("LEDGER_LISTEN", listen)
            .spawn()
            .context("starting ledger serve")?;
        self.serves[i] = Some(child);
        Ok(())
    }

    async fn wait_healthy(&self, i: usize) -> anyhow::Result<()> {
        let url = format!("{}/healthz", self.bases()[i]);
        for _ in 0..600 {
            if let Ok(r) = reqwest::get(&url).await
                && r.status().is_success()
            {
                return Ok(());
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        anyhow::bail!("serve {i} never became healthy")
    }

    /// `workers run` with its default set; `skewed`: its clock runs [`SKEW`] ahead.
    pub fn start_workers(&mut self, skewed: bool) -> anyhow::Result<()> {
        let mut command = self.command("workers");
        command.args(["run", "--scan-interval", "1"]);
        if skewed {
            command
                .env("LD_PRELOAD", faketime_library()?)
                .env("FAKETIME", SKEW)
                .env("FAKETIME_DONT_FAKE_MONOTONIC", "1")
                .env("FAKETIME_DONT_RESET", "1");
        }
        self.workers = Some(command.spawn().context("starting workers")?);
        Ok(())
    }

    pub async fn kill_serve(&mut self, i: usize) {
        kill(self.serves[i].take()).await;
    }

    pub async fn kill_workers(&mut self) {
        kill(self.workers.take()).await;
    }

    pub fn serve_pid(&self, i: usize) -> Option<u32> {
        self.serves[i].as_ref().and_then(Child::id)
    }

    pub fn workers_pid(&self) -> Option<u32> {
        self.workers.as_ref().and_then(Child::id)
    }

    /// After the faults: every process running and every link whole.
    pub async fn heal(&mut self) -> anyhow::Result<()> {
        if let Some(links) = &self.links {
            for proxy in [&links.postgres, &links.rabbitmq, &links.redis] {
                proxy.restore();
            }
        }
        for i in 0..2 {
            signal(self.serve_pid(i), "CONT").await;
            if self.serves[i].as_mut().is_none_or(exited) {
                self.start_serve(i)?;
            }
        }
        signal(self.workers_pid(), "CONT").await;
        if self.workers.as_mut().is_none_or(exited) {
            self.start_workers(false)?;
        }
        for i in 0..2 {
            self.wait_healthy(i).await?;
        }
        Ok(())
    }

    /// Every process of the run stopped (SIGKILL; the store stays).
    pub async fn stop(&mut self) {
        for i in 0..2 {
            signal(self.serve_pid(i), "CONT").await;
            self.kill_serve(i).await;
        }
        signal(self.workers_pid(), "CONT").await;
        self.kill_workers().await;
    }
}

fn exited(child: &mut Child) -> bool {
    !matches!(child.try_wait(), Ok(None))
}

async fn kill(child: Option<Child>) {
    if let Some(mut child) = child {
        let _ = child.kill().await;
    }
}

/// Sends SIG`name` to `pid` (a process this run started).
pub async fn signal(pid: Option<u32>, name: &str) {
    if let Some(pid) = pid {
        let _ = Command::new("kill")
            .args([format!("-{name}"), pid.to_string()])
            .status()
            .await;
    }
}

fn free_port() -> anyhow::Result<u16> {
    Ok(TcpListener::bind("127.0.0.1:0")?.local_addr()?.port())
}

fn planted_var(planted: Option<&str>) -> Option<(String, String)> {
    planted.map(|bug| ("LEDGER_PLANTED_BUG".to_owned(), bug.to_owned()))
}

/// The `host:port` of a URL's server (after any `user@`).
fn authority(url: &str) -> anyhow::Result<SocketAddr> {
    let rest = url.split_once("://").map_or(url, |(_, rest)| rest);
    let server = rest.split('/').next().unwrap_or(rest);
    let server = server.rsplit_once('@').map_or(server, |(_, s)| s);
    let server = server.replace("localhost", "127.0.0.1");
    server
        .parse()
        .with_context(|| format!("{server} is not a loopback address and port"))
}

/// `url` with its server replaced by the proxy on `port`.
fn through(url: &str, port: u16) -> String {
    let (scheme, rest) = url.split_once("://").unwrap_or(("", url));
    let (server, path) = rest.split_once('/').unwrap_or((rest, ""));
    let user = server.rsplit_once('@').map(|(user, _)| format!("{user}@"));
    format!(
        "{scheme}://{}127.0.0.1:{port}/{path}",
        user.unwrap_or_default()
    )
}

fn faketime_library() -> anyhow::Result<String> {
    let found = std::fs::read_dir("/usr/lib")?
        .flatten()
        .map(|arch| arch.path().join("faketime/libfaketime.so.1"))
        .find(|path| path.exists());
    found
        .map(|p| p.display().to_string())
        .context("libfaketime is missing: scripts/services installs it")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_url_goes_through_the_proxy_keeping_its_user_and_path() {
        assert_eq!(
            through("postgres://postgres@127.0.0.1:5432/t_1", 4000),
            "postgres://postgres@127.0.0.1:4000/t_1"
        );
        assert_eq!(
            through("amqp://guest:guest@127.0.0.1:5672/v", 4001),
            "amqp://guest:guest@127.0.0.1:4001/v"
        );
        assert_eq!(
            authority("amqp://guest:guest@localhost:5672/v").unwrap(),
            SocketAddr::from(([127, 0, 0, 1], 5672))
        );
    }
}
