//! Which member of each cluster this process works with (docs/design.md
//! §17), for `/readyz`, the console's workers page and `/metrics`: the
//! Postgres server behind the writer's address, the replica's lag and
//! whether reads go to it, the RabbitMQ nodes and which one leads each
//! contract queue, the Redis server in use. Each part is read within a
//! bound; one that does not answer is left empty.

use std::time::Duration;

use deadpool_postgres::Pool;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use crate::db::read_pool::ReadPool;
use crate::observability::queue_metrics::{Management, path_segment};
use crate::redis_link::RedisHandle;

const PART_TIMEOUT: Duration = Duration::from_secs(2);

#[derive(Clone, Debug, Default, Serialize, ToSchema)]
pub struct ClusterView {
    /// The Postgres server the writer's connections reach (`address:port`).
    pub postgres_primary: Option<String>,
    /// The replica's lag in milliseconds (null: no replica, or it did not answer).
    pub replica_lag_ms: Option<i64>,
    /// Whether lag-tolerant reads go to the replica now.
    pub reads_on_replica: bool,
    /// The RabbitMQ nodes the management API lists (empty: not read).
    pub rabbitmq_nodes: Vec<RabbitNode>,
    /// The ledger's quorum queues: their leader and members.
    pub queue_leaders: Vec<QueueLeader>,
    /// The Redis server in use (behind Sentinels: the primary they named).
    pub redis_primary: Option<String>,
}

#[derive(Clone, Debug, Deserialize, Serialize, ToSchema)]
pub struct RabbitNode {
    pub name: String,
    #[serde(default)]
    pub running: bool,
}

#[derive(Clone, Debug, Deserialize, Serialize, ToSchema)]
pub struct QueueLeader {
    #[serde(rename(deserialize = "name"))]
    pub queue: String,
    #[serde(default)]
    pub leader: Option<String>,
    #[serde(default)]
    pub members: Vec<String>,
}

/// Reads every part at once, each bounded.
pub async fn view(
    pool: &Pool,
    reads: &ReadPool,
    management: &Management,
    redis: &RedisHandle,
) -> ClusterView {
    let (primary, nodes, leaders) = tokio::join!(
        bounded(postgres_primary(pool)),
        bounded(rabbit_nodes(management)),
        bounded(queue_leaders(management)),
    );
    ClusterView {
        postgres_primary: primary,
        replica_lag_ms: reads.replica_lag_ms(),
        reads_on_replica: reads.on_replica(),
        rabbitmq_nodes: nodes.unwrap_or_default(),
        queue_leaders: leaders.unwrap_or_default(),
        redis_primary: redis.address(),
    }
}

async fn bounded<T>(part: impl Future<Output = anyhow::Result<T>>) -> Option<T> {
    match tokio::time::timeout(PART_TIMEOUT, part).await {
        Ok(Ok(value)) => Some(value),
        Ok(Err(e)) => {
            tracing::debug!(error = %e, "cluster view part not read");
            None
        }
        Err(_) => None,
    }
}

async fn postgres_primary(pool: &Pool) -> anyhow::Result<String> {
    let client = pool.get().await?;
    let row = client
        .query_one(
            "SELECT coalesce(host(inet_server_addr()), 'local') || ':' || current_setting('port')",
            &[],
        )
        .await?;
    Ok(row.get(0))
}

async fn rabbit_nodes(m: &Management) -> anyhow::Result<Vec<RabbitNode>> {
    let url = format!("{}/api/nodes?columns=name,running", m.api.base);
    get(m, &url).await
}

async fn queue_leaders(m: &Management) -> anyhow::Result<Vec<QueueLeader>> {
    let url = format!(
        "{}/api/queues/{}?columns=name,leader,members",
        m.api.base,
        path_segment(&m.api.vhost)
    );
    let all: Vec<QueueLeader> = get(m, &url).await?;
    let ours = crate::messaging::topology::QUEUES;
    Ok(all
        .into_iter()
        .filter(|q| ours.contains(&q.queue.as_str()))
        .collect())
}

async fn get<T: serde::de::DeserializeOwned>(m: &Management, url: &str) -> anyhow::Result<T> {
    let answer = m
        .http
        .get(url)
        .basic_auth(&m.api.username, Some(&m.api.password))
        .send()
        .await?
        .error_for_status()?;
    Ok(answer.json().await?)
}
