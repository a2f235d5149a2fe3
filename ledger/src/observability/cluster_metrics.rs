//! Which member of each cluster serves this process, as gauges
//! (docs/design.md §17): the Postgres primary and the Redis primary by
//! address, the replica's lag and whether reads go to it, the RabbitMQ
//! nodes and the leader of each of the ledger's queues. Refreshed from
//! [`cluster_view::view`] by [`crate::observability::refresh::every`].

use deadpool_postgres::Pool;
use prometheus_client::encoding::EncodeLabelSet;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::registry::Registry;

use crate::db::read_pool::ReadPool;
use crate::observability::cluster_view;
use crate::observability::queue_metrics::Management;
use crate::redis_link::RedisHandle;

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct MemberLabel {
    /// `postgres_primary` or `redis_primary`.
    pub role: String,
    pub member: String,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct NodeLabel {
    pub node: String,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct LeaderLabel {
    pub queue: String,
    pub node: String,
}

#[derive(Clone, Default)]
pub struct ClusterMetrics {
    members: Family<MemberLabel, Gauge>,
    replica_lag: Gauge,
    on_replica: Gauge,
    nodes: Family<NodeLabel, Gauge>,
    leaders: Family<LeaderLabel, Gauge>,
}

impl ClusterMetrics {
    pub fn register(&self, registry: &mut Registry) {
        registry.register(
            "cluster_member",
            "1 for the member serving each role now (postgres_primary, redis_primary)",
            self.members.clone(),
        );
        registry.register(
            "postgres_replica_lag_ms",
            "The replica's lag in milliseconds (-1: no replica, or it does not answer)",
            self.replica_lag.clone(),
        );
        registry.register(
            "reads_on_replica",
            "1 while lag-tolerant reads go to the replica",
            self.on_replica.clone(),
        );
        registry.register(
            "rabbitmq_node_running",
            "Each RabbitMQ node the management API lists: 1 running, 0 not",
            self.nodes.clone(),
        );
        registry.register(
            "rabbitmq_queue_leader",
            "1 for the node leading each of the ledger's queues",
            self.leaders.clone(),
        );
    }

    pub async fn refresh(
        &self,
        pool: &Pool,
        reads: &ReadPool,
        management: &Management,
        redis: &RedisHandle,
    ) -> anyhow::Result<()> {
        let view = cluster_view::view(pool, reads, management, redis).await;
        self.members.clear();
        let roles = [
            ("postgres_primary", view.postgres_primary),
            ("redis_primary", view.redis_primary),
        ];
        for (role, member) in roles {
            if let Some(member) = member {
                let label = MemberLabel {
                    role: role.to_owned(),
                    member,
                };
                self.members.get_or_create(&label).set(1);
            }
        }
        self.replica_lag.set(view.replica_lag_ms.unwrap_or(-1));
        self.on_replica.set(i64::from(view.reads_on_replica));
        if !view.rabbitmq_nodes.is_empty() {
            self.nodes.clear();
        }
        for node in view.rabbitmq_nodes {
            let label = NodeLabel { node: node.name };
            self.nodes
                .get_or_create(&label)
                .set(i64::from(node.running));
        }
        if !view.queue_leaders.is_empty() {
            self.leaders.clear();
        }
        for q in view.queue_leaders {
            if let Some(node) = q.leader {
                let label = LeaderLabel {
                    queue: q.queue,
                    node,
                };
                self.leaders.get_or_create(&label).set(1);
            }
        }
        Ok(())
    }
}
