use redis::AsyncCommands;

use crate::config::Config;

/// A Redis key prefix of this test's own; its keys are deleted with the value.
pub struct TestRedis {
    pub url: String,
    pub prefix: String,
}

impl TestRedis {
    pub fn new() -> anyhow::Result<Self> {
        Self::on(&Config::from_env()?.redis_url)
    }

    /// A prefix of its own on the Redis server `url` names directly.
    pub fn on(url: &str) -> anyhow::Result<Self> {
        Ok(Self {
            url: url.to_owned(),
            prefix: format!("test:{}:", super::unique_suffix()),
        })
    }

    pub async fn connection(&self) -> anyhow::Result<redis::aio::MultiplexedConnection> {
        let client = redis::Client::open(self.url.as_str())?;
        Ok(client.get_multiplexed_async_connection().await?)
    }
}

impl Drop for TestRedis {
    fn drop(&mut self) {
        let url = self.url.clone();
        let pattern = format!("{}*", self.prefix);
        super::run_cleanup("test redis keys", async move {
            let client = redis::Client::open(url.as_str())?;
            let mut conn = client.get_multiplexed_async_connection().await?;
            let keys: Vec<String> = {
                let mut iter = conn.scan_match::<_, String>(&pattern).await?;
                let mut keys = Vec::new();
                while let Some(key) = futures_util::StreamExt::next(&mut iter).await {
                    keys.push(key?);
                }
                keys
            };
            for chunk in keys.chunks(500) {
                let _: () = conn.del(chunk).await?;
            }
            Ok(())
        });
    }
}
