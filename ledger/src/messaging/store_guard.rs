//! One ledger per RabbitMQ vhost, enforced (docs/design.md §5, docs/event-pipeline.md).
//!
//! The ledger's queue names are fixed, and its projection queues have a
//! single active consumer: two ledgers (two databases) on one vhost would
//! take each other's events. So every `serve` and `workers` process holds
//! a consumer on one marker queue, [`MARKER`], declared with its store's
//! id. RabbitMQ refuses to declare a queue again with other arguments, but
//! it compares only the arguments it knows; the store id therefore rides
//! in `x-dead-letter-exchange`, which it compares and which is otherwise
//! inert here (nothing is ever published to the marker). The refusal
//! quotes the id held, within RabbitMQ's 255-byte reply text: the bare
//! UUID fits beside a vhost name of up to about 55 characters. The queue goes
//! away with its last consumer (`auto_delete`), and `x-expires` removes one
//! that a broker restart brought back with nobody on it, so once every
//! process of a store has stopped, another store starts normally.
//!
//! The guard stops the processes of two stores from running together;
//! each consumer also refuses any message stamped by another store
//! (`store::identity`), which covers what an old store left in the queues.

use std::time::Duration;

use lapin::options::{BasicConsumeOptions, QueueDeclareOptions};
use lapin::types::{AMQPValue, FieldTable};
use lapin::{Channel, Connection};

use futures_util::future::BoxFuture;

use crate::store::{StoreCell, StoreId};

/// The marker queue every process of the vhost's store consumes from.
pub const MARKER: &str = "couponledger.store";
/// A marker left with no consumer (a broker restart recovers it empty of
/// them) is removed after this long: longer than a process takes to
/// reconnect, short enough that a new store waits at most this.
const UNUSED_EXPIRY: Duration = Duration::from_secs(60);

#[derive(Debug, thiserror::Error)]
pub enum GuardError {
    /// Another store's processes run on this vhost.
    #[error(
        "RabbitMQ vhost {vhost:?} is in use by ledger store {theirs}; this is store {ours} \
         (another database): give each ledger its own vhost (AMQP_URL's path, e.g. \
         amqp://host/couponledger-staging), see docs/event-pipeline.md"
    )]
    Taken {
        vhost: String,
        ours: StoreId,
        theirs: String,
    },
    #[error("AMQP: {0}")]
    Amqp(#[from] lapin::Error),
    #[error("the store guard stopped: {0}")]
    Stopped(String),
}

/// The marker this process holds: its consumer, which ends when the
/// connection does. Dropping it (or losing the connection) lets go.
pub struct Held {
    _channel: Channel,
    consumer: lapin::Consumer,
}

/// A process's hold on the vhost, kept for its whole life.
pub struct Guard {
    task: tokio::task::JoinHandle<GuardError>,
}

impl Guard {
    /// Takes the vhost for `store`, or refuses with the other store's id.
    /// RabbitMQ down is no refusal (`serve` answers meanwhile, and readiness
    /// says so): the guard keeps trying, and holds the vhost once it can.
    pub async fn start(
        amqp_url: &str,
        store: StoreId,
        process: &'static str,
    ) -> Result<Self, GuardError> {
        let first = match super::connect(amqp_url, process).await {
            Ok(connection) => match hold(&connection, store, process).await {
                Ok(held) => Some((connection, held)),
                Err(GuardError::Amqp(e)) => {
                    tracing::warn!(error = %e, "cannot take the vhost yet; retrying");
                    None
                }
                Err(refused) => return Err(refused),
            },
            Err(_) => None,
        };
        let url = amqp_url.to_owned();
        let task = tokio::spawn(keep(url, store, process, first));
        Ok(Self { task })
    }

    /// Resolves only if another store took the vhost while this process
    /// was disconnected: the process must stop.
    pub async fn lost(self) -> GuardError {
        match self.task.await {
            Ok(e) => e,
            Err(join) => GuardError::Stopped(join.to_string()),
        }
    }
}

/// The guard of a `serve` or `workers` process: reads the store's id into
/// `store` and takes the vhost, or refuses with the other store's id. With
/// Postgres down it does both once Postgres answers (the process serves
/// meanwhile), and a refusal then ends the process all the same. The
/// future resolves only when the process must stop.
pub async fn guard_process(
    pool: &deadpool_postgres::Pool,
    store: &StoreCell,
    amqp_url: &str,
    process: &'static str,
) -> Result<BoxFuture<'static, GuardError>, GuardError> {
    if let Ok(id) = load(pool).await {
        store.set(id);
        let guard = Guard::start(amqp_url, id, process).await?;
        return Ok(Box::pin(guard.lost()));
    }
    let (pool, store, url) = (pool.clone(), store.clone(), amqp_url.to_owned());
    Ok(Box::pin(async move {
        let mut backoff = Duration::from_secs(1);
        let id = loop {
            tokio::time::sleep(backoff).await;
            match load(&pool).await {
                Ok(id) => break id,
                Err(e) => tracing::warn!(error = %e, "cannot read the store's id yet; retrying"),
            }
            backoff = (backoff * 2).min(Duration::from_secs(16));
        };
        store.set(id);
        match Guard::start(&url, id, process).await {
            Ok(guard) => guard.lost().await,
            Err(refused) => refused,
        }
    }))
}

async fn load(pool: &deadpool_postgres::Pool) -> Result<StoreId, String> {
    let client = pool.get().await.map_err(|e| e.to_string())?;
    StoreId::load(&**client)
        .await
        .map_err(|e| crate::logging::chain(&e))
}

/// Holds the marker, taking it again after every lost connection, until
/// another store holds it.
async fn keep(
    url: String,
    store: StoreId,
    process: &'static str,
    mut current: Option<(Connection, Held)>,
) -> GuardError {
    use futures_util::StreamExt;
    let mut backoff = Duration::from_millis(100);
    loop {
        if let Some((_connection, mut held)) = current.take() {
            // No message ever comes: this ends when the connection does.
            while let Some(Ok(_)) = held.consumer.next().await {}
            backoff = Duration::from_millis(100);
        }
        tokio::time::sleep(backoff).await;
        backoff = (backoff * 2).min(Duration::from_secs(5));
        let Ok(connection) = super::connect(&url, process).await else {
            continue;
        };
        match hold(&connection, store, process).await {
            Ok(held) => current = Some((connection, held)),
            Err(GuardError::Amqp(_)) => {}
            Err(taken) => return taken,
        }
    }
}

/// Declares the marker with `store`'s id and consumes from it, or says
/// which store holds the vhost.
pub async fn hold(
    connection: &Connection,
    store: StoreId,
    process: &str,
) -> Result<Held, GuardError> {
    let channel = connection.create_channel().await?;
    let options = QueueDeclareOptions {
        durable: true,
        auto_delete: true,
        ..Default::default()
    };
    let declared = channel
        .queue_declare(MARKER.into(), options, marker_args(store))
        .await;
    if let Err(e) = declared {
        return Err(refusal(connection, store, e));
    }
    let consume = BasicConsumeOptions {
        no_ack: true,
        ..Default::default()
    };
    let tag = format!("{process}-{}", uuid::Uuid::new_v4());
    let consumer = channel
        .basic_consume(
            MARKER.into(),
            tag.as_str().into(),
            consume,
            FieldTable::default(),
        )
        .await?;
    Ok(Held {
        _channel: channel,
        consumer,
    })
}

fn marker_args(store: StoreId) -> FieldTable {
    let mut args = FieldTable::default();
    let id = store.to_string();
    args.insert(
        "x-dead-letter-exchange".into(),
        AMQPValue::LongString(id.as_str().into()),
    );
    let expiry = i64::try_from(UNUSED_EXPIRY.as_millis()).expect("a minute fits");
    args.insert("x-expires".into(), AMQPValue::LongLongInt(expiry));
    args
}

/// The declaration's failure as the guard's: a precondition failure names
/// the other store (RabbitMQ's message quotes the value it holds).
fn refusal(connection: &Connection, ours: StoreId, e: lapin::Error) -> GuardError {
    let text = e.to_string();
    if !text.contains("PRECONDITION_FAILED") && !text.contains("inequivalent arg") {
        return GuardError::Amqp(e);
    }
    let theirs =
        other_store(&text).unwrap_or_else(|| "(its id did not fit in RabbitMQ's reply)".to_owned());
    let vhost = connection.status().vhost().to_string();
    GuardError::Taken {
        vhost,
        ours,
        theirs,
    }
}

/// The store id in RabbitMQ's "... but current is '<id>'" text, whole.
fn other_store(text: &str) -> Option<String> {
    let current = text.split("current is").nth(1)?;
    let quoted = current.split('\'').nth(1)?;
    uuid::Uuid::parse_str(quoted).ok().map(|id| id.to_string())
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_other_store_is_read_from_the_brokers_refusal() {
        let text = "PRECONDITION_FAILED - inequivalent arg 'x-dead-letter-exchange' for queue \
                    'couponledger.store' in vhost 'v': received \
                    '6b560039-c2c1-47ec-b730-b8402748ba57' but current is \
                    'ac38c0aa-0f4e-4d2b-9a36-0c1f5b2b7e11'";
        let theirs = "ac38c0aa-0f4e-4d2b-9a36-0c1f5b2b7e11";
        assert_eq!(super::other_store(text).as_deref(), Some(theirs));
        // Cut short by the broker's 255 bytes: no partial id is shown.
        let cut = &text[..text.len() - 10];
        assert_eq!(super::other_store(cut), None);
        assert_eq!(super::other_store("channel closed"), None);
    }
}
