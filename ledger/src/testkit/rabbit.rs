use anyhow::Context;

/// The management API (enabled by `scripts/services`).
const DEFAULT_MANAGEMENT_URL: &str = "http://127.0.0.1:15672";

/// A RabbitMQ vhost of this test's own, deleted with the value.
pub struct TestVhost {
    pub name: String,
    /// `AMQP_URL` pointing at the vhost.
    pub amqp_url: String,
    api: String,
}

impl TestVhost {
    pub async fn new() -> anyhow::Result<Self> {
        let api = std::env::var("RABBITMQ_MANAGEMENT_URL")
            .unwrap_or_else(|_| DEFAULT_MANAGEMENT_URL.to_owned());
        Self::on(&api, &["127.0.0.1:5672"]).await
    }

    /// A fresh vhost on the broker (or cluster) whose management API is
    /// `api`; `AMQP_URL` names each of `nodes` (`host:port`), comma-separated.
    pub async fn on(api: &str, nodes: &[&str]) -> anyhow::Result<Self> {
        let name = format!("test-{}", super::unique_suffix());
        let api = api.to_owned();
        let http = reqwest::Client::new();
        put(
            &http,
            &format!("{api}/api/vhosts/{name}"),
            serde_json::json!({}),
        )
        .await?;
        let everything = serde_json::json!({"configure": ".*", "write": ".*", "read": ".*"});
        put(
            &http,
            &format!("{api}/api/permissions/{name}/guest"),
            everything,
        )
        .await?;
        let urls: Vec<String> = nodes
            .iter()
            .map(|node| format!("amqp://guest:guest@{node}/{name}"))
            .collect();
        Ok(Self {
            amqp_url: urls.join(","),
            name,
            api,
        })
    }
}

impl TestVhost {
    /// GETs `path` of the management API under this vhost (`queues/{name}`
    /// is `/api/queues/<vhost>/{name}`): what the broker says it holds.
    pub async fn inspect(&self, kind: &str, path: &str) -> anyhow::Result<serde_json::Value> {
        let url = format!("{}/api/{kind}/{}/{path}", self.api, self.name);
        let value = reqwest::Client::new()
            .get(&url)
            .basic_auth("guest", Some("guest"))
            .send()
            .await
            .with_context(|| format!("GET {url}"))?
            .error_for_status()?
            .json()
            .await?;
        Ok(value)
    }
}

async fn put(http: &reqwest::Client, url: &str, body: serde_json::Value) -> anyhow::Result<()> {
    http.put(url)
        .basic_auth("guest", Some("guest"))
        .json(&body)
        .send()
        .await
        .with_context(|| format!("PUT {url} (is rabbitmq_management enabled?)"))?
        .error_for_status()?;
    Ok(())
}

impl Drop for TestVhost {
    fn drop(&mut self) {
        let url = format!("{}/api/vhosts/{}", self.api, self.name);
        super::run_cleanup("test vhost", async move {
            reqwest::Client::new()
                .delete(&url)
                .basic_auth("guest", Some("guest"))
                .send()
                .await?
                .error_for_status()?;
            Ok(())
        });
    }
}
