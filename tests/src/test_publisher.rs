//! A confirmed publisher on a test's vhost, stamped with its store and
//! with the topology declared: how tests put messages straight into the
//! ledger's own queues, as the relay would.

use lapin::Connection;
use ledger::messaging::publish::Publisher;
use ledger::messaging::{self, topology};

use crate::Env;

/// The connection (keep it alive while publishing) and its publisher.
pub async fn open(env: &Env, name: &str) -> anyhow::Result<(Connection, Publisher)> {
    let amqp = messaging::connect(&env.vhost.amqp_url, name).await?;
    let publisher = Publisher::open(&amqp, env.store_id().await?).await?;
    topology::declare(publisher.channel()).await?;
    Ok((amqp, publisher))
}
