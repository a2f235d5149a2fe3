//! Where Redis is: one server (`redis://…`), or the primary a set of
//! Sentinels names (`redis+sentinel://host:port,host:port/<primary-name>`,
//! docs/design.md §17), asked again after every failure so a failover is
//! followed within a second.

use std::time::Duration;

/// How long one Sentinel may take to answer.
const SENTINEL_TIMEOUT: Duration = Duration::from_millis(500);
/// The most Sentinels one URL may name (three or five in practice).
const MAX_SENTINELS: usize = 16;

#[derive(Clone, Debug)]
pub enum RedisTarget {
    Direct(redis::Client),
    Sentinel {
        sentinels: Vec<redis::Client>,
        primary: String,
    },
}

impl RedisTarget {
    pub fn parse(url: &str) -> Result<Self, String> {
        let Some(rest) = url.strip_prefix("redis+sentinel://") else {
            return redis::Client::open(url)
                .map(RedisTarget::Direct)
                .map_err(|e| e.to_string());
        };
        let (hosts, primary) = rest
            .split_once('/')
            .filter(|(_, name)| !name.is_empty() && !name.contains('/'))
            .ok_or("a Sentinel URL ends in /<primary-name>")?;
        let sentinels = hosts
            .split(',')
            .filter(|h| !h.is_empty())
            .map(|h| redis::Client::open(format!("redis://{h}/")).map_err(|e| e.to_string()))
            .collect::<Result<Vec<_>, _>>()?;
        if sentinels.is_empty() || sentinels.len() > MAX_SENTINELS {
            return Err(format!(
                "a Sentinel URL names 1 to {MAX_SENTINELS} Sentinels"
            ));
        }
        Ok(RedisTarget::Sentinel {
            sentinels,
            primary: primary.to_owned(),
        })
    }

    /// The client of the server to use now: the one server, or the primary
    /// the first Sentinel that answers names.
    pub async fn resolve(&self) -> Result<redis::Client, redis::RedisError> {
        let (sentinels, primary) = match self {
            RedisTarget::Direct(client) => return Ok(client.clone()),
            RedisTarget::Sentinel { sentinels, primary } => (sentinels, primary),
        };
        let mut last = None;
        for sentinel in sentinels {
            match tokio::time::timeout(SENTINEL_TIMEOUT, ask(sentinel, primary)).await {
                Ok(Ok((host, port))) => {
                    return redis::Client::open(format!("redis://{host}:{port}/"));
                }
                Ok(Err(e)) => last = Some(e),
                Err(_) => last = Some(timeout()),
            }
        }
        Err(last.unwrap_or_else(timeout))
    }

    /// Whether a failure should send the next connection to the Sentinels again.
    pub fn follows_failover(&self) -> bool {
        matches!(self, RedisTarget::Sentinel { .. })
    }
}

async fn ask(sentinel: &redis::Client, primary: &str) -> redis::RedisResult<(String, u16)> {
    let mut conn = sentinel.get_multiplexed_async_connection().await?;
    redis::cmd("SENTINEL")
        .arg("get-master-addr-by-name")
        .arg(primary)
        .query_async(&mut conn)
        .await
}

fn timeout() -> redis::RedisError {
    redis::RedisError::from(std::io::Error::new(
        std::io::ErrorKind::TimedOut,
        "no Sentinel answered",
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sentinel_urls_name_their_sentinels_and_primary() {
        let t =
            RedisTarget::parse("redis+sentinel://127.0.0.1:26391,127.0.0.1:26392/ledger").unwrap();
        match t {
            RedisTarget::Sentinel { sentinels, primary } => {
                assert_eq!(sentinels.len(), 2);
                assert_eq!(primary, "ledger");
            }
            RedisTarget::Direct(_) => panic!("a sentinel URL"),
        }
        assert!(RedisTarget::parse("redis+sentinel://127.0.0.1:26391").is_err());
        assert!(RedisTarget::parse("redis+sentinel:///ledger").is_err());
        assert!(matches!(
            RedisTarget::parse("redis://127.0.0.1:6379/"),
            Ok(RedisTarget::Direct(_))
        ));
    }
}
