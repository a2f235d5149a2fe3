//! The contract queues' depths (docs/design.md §5, §14), read from RabbitMQ's
//! management API over HTTP by [`crate::observability::refresh::every`]: messages (ready
//! and unacknowledged), consumers, each queue's bound (`x-max-length`) and
//! the dead letters waiting in `coupon.dead.letters`.
//!
//! The API is `RABBITMQ_MANAGEMENT_URL` when set, else `http://<AMQP_URL's
//! host>:15672`, with AMQP_URL's credentials and vhost. When it cannot be
//! read, the queue gauges keep their last values and
//! `couponledger_rabbitmq_management_up` reads 0. Only the contract queues
//! are labelled, whatever else the vhost holds.

use std::str::FromStr;
use std::time::Duration;

use prometheus_client::encoding::EncodeLabelSet;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::registry::Registry;
use serde::Deserialize;

use crate::messaging::topology;

/// The management API's usual port.
pub const MANAGEMENT_PORT: u16 = 15672;
/// Bound of one request to the management API.
pub const REQUEST_TIMEOUT: Duration = Duration::from_secs(5);

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct QueueLabel {
    pub queue: &'static str,
}

/// Where and as whom the management API is asked.
#[derive(Clone)]
pub struct ManagementApi {
    /// `http://host:port`, no trailing slash.
    pub base: String,
    pub username: String,
    pub password: String,
    pub vhost: String,
}

impl std::fmt::Debug for ManagementApi {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ManagementApi")
            .field("base", &crate::logging::redact::url(&self.base))
            .field("vhost", &self.vhost)
            .finish_non_exhaustive()
    }
}

impl ManagementApi {
    /// From AMQP_URL (credentials, vhost, host) and the optional
    /// `RABBITMQ_MANAGEMENT_URL` (`http://host:port`, which replaces the
    /// host and port 15672).
    pub fn new(amqp_url: &str, management_url: Option<&str>) -> Result<Self, String> {
        // A cluster's first node: its management API sees the whole cluster.
        let first = crate::config::amqp_url::nodes(amqp_url)[0];
        let uri = lapin::uri::AMQPUri::from_str(first)?;
        let base = match management_url {
            Some(url) => url.trim_end_matches('/').to_owned(),
            None => format!("http://{}:{MANAGEMENT_PORT}", host(&uri.authority.host)),
        };
        Ok(Self {
            base,
            username: uri.authority.userinfo.username,
            password: uri.authority.userinfo.password,
            vhost: uri.vhost,
        })
    }

    /// The URL listing the vhost's queues, with only the columns read.
    pub fn queues_url(&self) -> String {
        format!(
            "{}/api/queues/{}?columns=name,messages,messages_ready,messages_unacknowledged,consumers",
            self.base,
            path_segment(&self.vhost)
        )
    }
}

/// An IPv6 literal needs its brackets back in a URL.
fn host(host: &str) -> String {
    if host.contains(':') && !host.starts_with('[') {
        format!("[{host}]")
    } else {
        host.to_owned()
    }
}

/// Percent-encodes a path segment (the vhost `/` is `%2F`).
pub(crate) fn path_segment(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for b in s.bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~') {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// One queue as the management API lists it; counts are missing until the
/// broker has gathered the queue's first statistics.
#[derive(Deserialize)]
struct QueueInfo {
    name: String,
    #[serde(default)]
    messages: Option<i64>,
    #[serde(default)]
    messages_ready: Option<i64>,
    #[serde(default)]
    messages_unacknowledged: Option<i64>,
    #[serde(default)]
    consumers: Option<i64>,
}

#[derive(Clone, Default)]
pub struct QueueMetrics {
    up: Gauge,
    messages: Family<QueueLabel, Gauge>,
    ready: Family<QueueLabel, Gauge>,
    unacked: Family<QueueLabel, Gauge>,
    consumers: Family<QueueLabel, Gauge>,
    max_length: Family<QueueLabel, Gauge>,
    dead_letters: Gauge,
}

impl QueueMetrics {
    pub fn register(&self, registry: &mut Registry) {
        for queue in topology::QUEUES {
            self.max_length
                .get_or_create(&QueueLabel { queue })
                .set(topology::MAX_QUEUE_LENGTH);
        }
        registry.register(
            "rabbitmq_management_up",
            "1 when the last read of RabbitMQ's management API succeeded, else 0 \
             (the queue gauges then keep their last values)",
            self.up.clone(),
        );
        let r = registry.sub_registry_with_prefix("queue");
        r.register(
            "messages",
            "Messages in a contract queue (ready + unacknowledged)",
            self.messages.clone(),
        );
        r.register(
            "messages_ready",
            "Messages in a contract queue waiting for a consumer",
            self.ready.clone(),
        );
        r.register(
            "messages_unacknowledged",
            "Messages of a contract queue delivered and not acknowledged yet",
            self.unacked.clone(),
        );
        r.register(
            "consumers",
            "Consumers of a contract queue",
            self.consumers.clone(),
        );
        r.register(
            "max_length",
            "A contract queue's bound (x-max-length); beyond it publishes are refused",
            self.max_length.clone(),
        );
        registry.register(
            "dead_letters",
            "Messages waiting in coupon.dead.letters (failed N times)",
            self.dead_letters.clone(),
        );
    }

    /// Reads the queues; on failure marks the API down and leaves the rest.
    pub async fn refresh(&self, http: &reqwest::Client, api: &ManagementApi) -> anyhow::Result<()> {
        match self.read(http, api).await {
            Ok(()) => {
                self.up.set(1);
                Ok(())
            }
            Err(e) => {
                self.up.set(0);
                Err(e)
            }
        }
    }

    async fn read(&self, http: &reqwest::Client, api: &ManagementApi) -> anyhow::Result<()> {
        for state in queue_states(http, api).await? {
            let label = QueueLabel { queue: state.queue };
            self.messages.get_or_create(&label).set(state.messages);
            self.ready.get_or_create(&label).set(state.ready);
            self.unacked.get_or_create(&label).set(state.unacknowledged);
            self.consumers.get_or_create(&label).set(state.consumers);
            if state.queue == topology::DEAD_LETTERS_QUEUE {
                self.dead_letters.set(state.messages);
            }
        }
        Ok(())
    }
}

/// One contract queue as the management API reports it now.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, utoipa::ToSchema)]
pub struct QueueState {
    #[schema(value_type = String)]
    pub queue: &'static str,
    /// Ready + unacknowledged.
    pub messages: i64,
    pub ready: i64,
    pub unacknowledged: i64,
    pub consumers: i64,
    /// The queue's bound (`x-max-length`).
    pub max_length: i64,
}

/// The contract queues the vhost holds, in the topology's order.
pub async fn queue_states(
    http: &reqwest::Client,
    api: &ManagementApi,
) -> anyhow::Result<Vec<QueueState>> {
    let queues: Vec<QueueInfo> = http
        .get(api.queues_url())
        .basic_auth(&api.username, Some(&api.password))
        .timeout(REQUEST_TIMEOUT)
        .send()
        .await?
        .error_for_status()?
        .json()
        .await?;
    Ok(topology::QUEUES
        .iter()
        .filter_map(|queue| {
            let info = queues.iter().find(|i| i.name == *queue)?;
            let ready = info.messages_ready.unwrap_or(0);
            let unacknowledged = info.messages_unacknowledged.unwrap_or(0);
            Some(QueueState {
                queue,
                messages: info.messages.unwrap_or(ready + unacknowledged),
                ready,
                unacknowledged,
                consumers: info.consumers.unwrap_or(0),
                max_length: topology::MAX_QUEUE_LENGTH,
            })
        })
        .collect())
}

/// The management API and the HTTP client that asks it.
#[derive(Clone, Debug)]
pub struct Management {
    pub api: ManagementApi,
    pub http: reqwest::Client,
}

/// The HTTP client of the refresh: bounded connect and request times.
pub fn client() -> reqwest::Client {
    reqwest::Client::builder()
        .connect_timeout(Duration::from_secs(2))
        .timeout(REQUEST_TIMEOUT)
        .build()
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_api_is_derived_from_amqp_url() {
        let api = ManagementApi::new("amqp://u:p@rabbit:5672/%2f", None).unwrap();
        assert_eq!(api.base, "http://rabbit:15672");
        assert_eq!((api.username.as_str(), api.password.as_str()), ("u", "p"));
        assert_eq!(
            api.queues_url(),
            "http://rabbit:15672/api/queues/%2F?columns=name,messages,messages_ready,\
             messages_unacknowledged,consumers"
        );
        let api = ManagementApi::new("amqp://guest:guest@127.0.0.1:5672/test-1", None).unwrap();
        assert!(
            api.queues_url()
                .starts_with("http://127.0.0.1:15672/api/queues/test-1?")
        );
        let api = ManagementApi::new("amqp://127.0.0.1/x", Some("http://mgmt:8080/")).unwrap();
        assert!(
            api.queues_url()
                .starts_with("http://mgmt:8080/api/queues/x?")
        );
        assert!(!format!("{api:?}").contains("guest"));
    }
}
