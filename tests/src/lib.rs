//! Black-box test support: start the workspace binaries against a test's own
//! database, vhost and Redis prefix, and talk to them over HTTP.

use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::Duration;

use anyhow::{Context, bail};
use chrono::Utc;
use serde_json::{Value, json};
use tokio::process::{Child, Command};

pub use ledger::testkit::{TestDb, TestRedis, TestVhost};

pub mod access;
pub mod bench;
pub mod bench_store;
pub mod broker;
pub mod cluster;
pub mod codes;
pub mod cold_store;
pub mod dead_letters;
pub mod event_versions;
pub mod faults;
pub mod idp;
pub mod machine_limits;
pub mod message_db;
pub mod ops_metrics;
pub mod own_redis;
pub mod packages;
pub mod peak_rss;
pub mod reminder_days;
pub mod reminders;
pub mod scenario;
pub mod script;
pub mod shop;
pub mod subscriber;
pub mod tcp_proxy;
pub mod test_publisher;
pub mod uploads;
pub mod webhook_receiver;
pub mod workers;

pub const ADMIN_TOKEN: &str = "test-admin-token";
pub const SERVICE_TOKEN: &str = "test-service-token";
/// `LEDGER_SECRET_KEY` of the spawned binaries: key id `test`, 32 bytes in hex.
pub const SECRET_KEY: &str =
    "test:7465737420736563726574206b6579202d2d206e6f7420666f722070726f6421";

/// Path of a workspace binary (`ledger`, `workers`), built next to this test.
pub fn bin(name: &str) -> PathBuf {
    let exe = std::env::current_exe().expect("the test binary knows its path");
    // target/<profile>/deps/<test> (a test) or target/<profile>/<bin> (the
    // fault suite's binary) -> target/<profile>/<name>
    let dir = exe.parent().expect("a binary lives in a directory");
    let profile = if dir.ends_with("deps") {
        dir.parent().expect("deps lives in target/<profile>")
    } else {
        dir
    };
    let path = profile.join(name);
    assert!(
        path.exists(),
        "{} is missing: run `cargo build --workspace --bins` first (scripts/test does)",
        path.display()
    );
    path
}

/// The services a test's binaries run against, all of its own.
pub struct Env {
    pub db: TestDb,
    pub vhost: TestVhost,
    pub redis: TestRedis,
    /// Overrides REDIS_URL, e.g. to a closed port to play "Redis is down".
    pub redis_url: Option<String>,
}

impl Env {
    pub async fn new() -> anyhow::Result<Self> {
        Ok(Self {
            db: TestDb::new().await?,
            vhost: TestVhost::new().await?,
            redis: TestRedis::new()?,
            redis_url: None,
        })
    }

    /// The store id of this test's database (what its messages must carry).
    pub async fn store_id(&self) -> anyhow::Result<ledger::store::StoreId> {
        Ok(ledger::store::StoreId::load(&self.db.client().await?).await?)
    }

    /// The same, as a publisher takes it.
    pub async fn store(&self) -> anyhow::Result<ledger::store::StoreCell> {
        Ok(ledger::store::StoreCell::known(self.store_id().await?))
    }

    /// The environment variables a binary needs to use this test's services.
    pub fn vars(&self) -> Vec<(&'static str, String)> {
        vec![
            ("DATABASE_URL", self.db.url()),
            ("AMQP_URL", self.vhost.amqp_url.clone()),
            (
                "REDIS_URL",
                self.redis_url
                    .clone()
                    .unwrap_or_else(|| self.redis.url.clone()),
            ),
            ("LEDGER_REDIS_PREFIX", self.redis.prefix.clone()),
            ("LEDGER_ADMIN_TOKEN", ADMIN_TOKEN.into()),
            ("LEDGER_SERVICE_TOKEN", SERVICE_TOKEN.into()),
            ("LEDGER_SECRET_KEY", SECRET_KEY.into()),
            ("RUST_LOG", "warn".into()),
        ]
    }
}

/// A running `ledger serve`, killed when dropped.
pub struct Server {
    pub base: String,
    pub http: reqwest::Client,
    child: Child,
}

impl Server {
    pub async fn start(env: &Env) -> anyhow::Result<Self> {
        Self::start_with(env, &[]).await
    }

    /// Starts `ledger serve` with extra environment variables.
    pub async fn start_with(env: &Env, extra: &[(&str, &str)]) -> anyhow::Result<Self> {
        Self::spawn(env, extra, Stdio::inherit()).await
    }

    /// [`Server::start_with`], the server's stderr (its log) written to the
    /// file `stderr` (created or truncated) instead of the test's.
    pub async fn start_logging_to(
        env: &Env,
        extra: &[(&str, &str)],
        stderr: &Path,
    ) -> anyhow::Result<Self> {
        let file = std::fs::File::create(stderr)
            .with_context(|| format!("creating {}", stderr.display()))?;
        Self::spawn(env, extra, file.into()).await
    }

    /// Starts the shipped `ledger serve`: the release binary built exactly
    /// as the README and the Dockerfile build it (`scripts/shipped`, which
    /// scripts/test runs first), without the test run's features.
    pub async fn start_shipped(env: &Env, extra: &[(&str, &str)]) -> anyhow::Result<Self> {
        let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../target/release/ledger");
        anyhow::ensure!(
            path.exists(),
            "{} is missing: run scripts/shipped first (scripts/test does)",
            path.display()
        );
        Self::spawn_binary(path, env, extra, Stdio::inherit()).await
    }

    async fn spawn(env: &Env, extra: &[(&str, &str)], stderr: Stdio) -> anyhow::Result<Self> {
        Self::spawn_binary(bin("ledger"), env, extra, stderr).await
    }

    async fn spawn_binary(
        path: PathBuf,
        env: &Env,
        extra: &[(&str, &str)],
        stderr: Stdio,
    ) -> anyhow::Result<Self> {
        let port = TcpListener::bind("127.0.0.1:0")?.local_addr()?.port();
        let child = Command::new(path)
            .arg("serve")
            .envs(env.vars())
            .envs(extra.iter().copied())
            .env("LEDGER_LISTEN", format!("127.0.0.1:{port}"))
            .stdout(Stdio::null())
            .stderr(stderr)
            .kill_on_drop(true)
            .spawn()
            .context("starting ledger serve")?;
        let server = Self {
            base: format!("http://127.0.0.1:{port}"),
            http: reqwest::Client::builder()
                .pool_max_idle_per_host(64)
                .timeout(Duration::from_secs(30))
                .build()?,
            child,
        };
        server.wait_healthy().await?;
        Ok(server)
    }

    async fn wait_healthy(&self) -> anyhow::Result<()> {
        for _ in 0..200 {
            if let Ok(r) = self.http.get(self.url("/healthz")).send().await
                && r.status().is_success()
            {
                return Ok(());
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        bail!("ledger serve did not become healthy")
    }

    /// Asks the server to stop (SIGTERM) and waits for it to exit.
    pub async fn terminate(mut self) -> anyhow::Result<std::process::ExitStatus> {
        let pid = self.child.id().context("server already exited")?;
        let sent = Command::new("kill")
            .args(["-TERM", &pid.to_string()])
            .status()
            .await?;
        anyhow::ensure!(sent.success(), "kill -TERM {pid} failed");
        Ok(tokio::time::timeout(Duration::from_secs(10), self.child.wait()).await??)
    }

    /// Stops the server abruptly (SIGKILL), as a crash would.
    /// The process id, for measuring it.
    pub fn pid(&self) -> Option<u32> {
        self.child.id()
    }

    pub async fn kill(mut self) -> anyhow::Result<()> {
        self.child.kill().await?;
        Ok(())
    }

    pub fn url(&self, path: &str) -> String {
        format!("{}{path}", self.base)
    }

    pub fn admin(&self, method: reqwest::Method, path: &str) -> reqwest::RequestBuilder {
        self.http
            .request(method, self.url(path))
            .bearer_auth(ADMIN_TOKEN)
    }

    pub fn service(&self, method: reqwest::Method, path: &str) -> reqwest::RequestBuilder {
        self.http
            .request(method, self.url(path))
            .bearer_auth(SERVICE_TOKEN)
    }

    /// POSTs as the service and returns (status, body).
    pub async fn service_post(&self, path: &str, body: &Value) -> anyhow::Result<(u16, Value)> {
        let r = self
            .service(reqwest::Method::POST, path)
            .json(body)
            .send()
            .await?;
        Ok((r.status().as_u16(), r.json().await.unwrap_or(Value::Null)))
    }

    /// GETs as the service and returns (status, body).
    pub async fn service_get(&self, path: &str) -> anyhow::Result<(u16, Value)> {
        let r = self.service(reqwest::Method::GET, path).send().await?;
        Ok((r.status().as_u16(), r.json().await.unwrap_or(Value::Null)))
    }

    /// GETs as admin and returns (status, body).
    pub async fn admin_get(&self, path: &str) -> anyhow::Result<(u16, Value)> {
        let r = self.admin(reqwest::Method::GET, path).send().await?;
        Ok((r.status().as_u16(), r.json().await.unwrap_or(Value::Null)))
    }

    /// POSTs as admin and returns (status, body).
    pub async fn admin_post(&self, path: &str, body: &Value) -> anyhow::Result<(u16, Value)> {
        let r = self
            .admin(reqwest::Method::POST, path)
            .json(body)
            .send()
            .await?;
        Ok((r.status().as_u16(), r.json().await.unwrap_or(Value::Null)))
    }

    /// PATCHes template `sn` as admin and returns (status, body).
    pub async fn patch_template(&self, sn: &str, body: &Value) -> anyhow::Result<(u16, Value)> {
        let path = format!("/v1/templates/{sn}");
        let r = self
            .admin(reqwest::Method::PATCH, &path)
            .json(body)
            .send()
            .await?;
        Ok((r.status().as_u16(), r.json().await.unwrap_or(Value::Null)))
    }

    /// Creates, opens (window around now) and activates a template; returns its sn.
    pub async fn active_template(&self, total: i64, per_user_limit: i32) -> anyhow::Result<String> {
        self.activate_template(&template_body(total, per_user_limit))
            .await
    }

    /// Creates a template from `body` and activates it; returns its sn.
    pub async fn activate_template(&self, body: &Value) -> anyhow::Result<String> {
        let (status, body) = self.admin_post("/v1/templates", body).await?;
        anyhow::ensure!(status == 201, "create template: {status} {body}");
        let sn = body["sn"].as_str().context("sn")?.to_owned();
        let (status, body) = self
            .admin_post(&format!("/v1/templates/{sn}/activate"), &json!({}))
            .await?;
        anyhow::ensure!(status == 200, "activate: {status} {body}");
        Ok(sn)
    }

    /// Creates a channel allowed to issue `sn`.
    pub async fn channel_for(&self, sn: &str) -> anyhow::Result<Channel> {
        let (status, body) = self
            .admin_post("/v1/channels", &json!({"name": "test channel"}))
            .await?;
        anyhow::ensure!(status == 201, "create channel: {status} {body}");
        let channel = Channel {
            id: body["id"].as_str().context("id")?.to_owned(),
            secret: body["secret"].as_str().context("secret")?.to_owned(),
        };
        let allow = json!({"channel_id": channel.id});
        let (status, body) = self
            .admin_post(&format!("/v1/templates/{sn}/channels"), &allow)
            .await?;
        anyhow::ensure!(status == 200, "allow channel: {status} {body}");
        Ok(channel)
    }

    /// A signed claim; returns (status, body).
    pub async fn claim(
        &self,
        channel: &Channel,
        sn: &str,
        user: &str,
    ) -> anyhow::Result<(u16, Value)> {
        let r = self.claim_response(channel, sn, user).await?;
        Ok((r.status().as_u16(), r.json().await.unwrap_or(Value::Null)))
    }

    /// A signed claim's whole response (headers included).
    pub async fn claim_response(
        &self,
        channel: &Channel,
        sn: &str,
        user: &str,
    ) -> anyhow::Result<reqwest::Response> {
        let body = json!({"template_sn": sn, "user_id": user}).to_string();
        let nonce = uuid::Uuid::new_v4().to_string();
        let signed = channel.sign("POST", "/v1/claims", &body, &nonce);
        self.signed_response(signed, body).await
    }

    /// A signed claim of any body (e.g. with the user's facts); (status, body).
    pub async fn claim_with(
        &self,
        channel: &Channel,
        body: &Value,
    ) -> anyhow::Result<(u16, Value)> {
        let body = body.to_string();
        let nonce = uuid::Uuid::new_v4().to_string();
        let signed = channel.sign("POST", "/v1/claims", &body, &nonce);
        self.send_signed(signed, body).await
    }

    pub async fn send_signed(&self, signed: Signed, body: String) -> anyhow::Result<(u16, Value)> {
        let r = self.signed_response(signed, body).await?;
        Ok((r.status().as_u16(), r.json().await.unwrap_or(Value::Null)))
    }

    async fn signed_response(
        &self,
        signed: Signed,
        body: String,
    ) -> anyhow::Result<reqwest::Response> {
        let mut req = self.http.post(self.url("/v1/claims")).body(body);
        req = req.header("Content-Type", "application/json");
        for (name, value) in signed.headers {
            req = req.header(name, value);
        }
        Ok(req.send().await?)
    }

    /// The text of `/metrics`.
    /// The OpenAPI document the server serves.
    pub async fn openapi(&self) -> anyhow::Result<Value> {
        let r = self.http.get(self.url("/openapi.json")).send().await?;
        Ok(r.error_for_status()?.json().await?)
    }

    pub async fn metrics(&self) -> anyhow::Result<String> {
        Ok(self
            .http
            .get(self.url("/metrics"))
            .send()
            .await?
            .text()
            .await?)
    }
}

/// A docs/design.md §7 template body: 20 off 100, relative validity 0/7.
pub fn template_body(total: i64, per_user_limit: i32) -> Value {
    let now = Utc::now();
    json!({
        "name": "test: 20 off 100", "kind": "goods", "currency": "CNY",
        "discount": {"type": "fixed_off", "threshold": "100.00", "amount": "20.00"},
        "issue_window": {"begin": now - chrono::Duration::hours(1), "end": now + chrono::Duration::days(1)},
        "validity": {"type": "relative", "begin_days": 0, "end_days": 7},
        "total": total, "per_user_limit": per_user_limit, "stacking": "stackable",
        "refund_policy": "restore", "remind_days_before": 1
    })
}

pub struct Channel {
    pub id: String,
    pub secret: String,
}

pub struct Signed {
    pub headers: Vec<(&'static str, String)>,
}

impl Channel {
    pub fn sign(&self, method: &str, path: &str, body: &str, nonce: &str) -> Signed {
        self.sign_at(method, path, body, nonce, Utc::now().timestamp())
    }

    pub fn sign_at(&self, method: &str, path: &str, body: &str, nonce: &str, ts: i64) -> Signed {
        let signature = ledger::api::auth::signature::sign(
            &self.secret,
            method,
            path,
            ts,
            nonce,
            body.as_bytes(),
        );
        Signed {
            headers: vec![
                ("X-Channel-Id", self.id.clone()),
                ("X-Timestamp", ts.to_string()),
                ("X-Nonce", nonce.to_owned()),
                ("X-Signature", signature),
            ],
        }
    }
}
