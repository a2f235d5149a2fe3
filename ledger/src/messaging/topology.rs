//! The contract topology (docs/design.md §5), declared idempotently at start by both
//! binaries: redeclaring with the same arguments is a no-op.

use lapin::options::{ExchangeDeclareOptions, QueueBindOptions, QueueDeclareOptions};
use lapin::types::{AMQPValue, FieldTable};
use lapin::{Channel, ExchangeKind};
use strum::VariantArray;

use crate::domain::projection::Projection;

pub const EVENTS: &str = "coupon.events";
pub const ISSUANCE: &str = "coupon.issuance";
pub const NOTIFICATIONS: &str = "coupon.notifications";
pub const DEAD: &str = "coupon.dead";

pub const ISSUANCE_QUEUE: &str = "coupon.issuance.work";
pub const DEAD_LETTERS_QUEUE: &str = "coupon.dead.letters";

/// Every queue is bounded. When one is full the broker refuses (nacks) new
/// messages rather than dropping old ones, and publishers retry: a full
/// queue holds back the relay's route to it (only that one), it never
/// loses an event.
pub const MAX_QUEUE_LENGTH: i64 = 2_000_000;

/// The ledger's projection queues: fed by the relay's own routes
/// (`routes`), not bound to `coupon.events`, and consumed by one process
/// at a time (single active consumer: the others stand by and take over).
/// One per [`Projection`], in the list's order (`Projection::queue`).
pub const PROJECTION_QUEUES: [&str; PROJECTIONS] = {
    let mut queues = [""; PROJECTIONS];
    let mut i = 0;
    while i < PROJECTIONS {
        queues[i] = Projection::VARIANTS[i].queue();
        i += 1;
    }
    queues
};

const PROJECTIONS: usize = Projection::VARIANTS.len();

/// Every contract queue the ledger declares (the touch system's queues on
/// `coupon.notifications` and analytics queues are their owners): the
/// projections' and the two bound ones.
pub const QUEUES: [&str; PROJECTIONS + 2] = {
    let mut queues = [""; PROJECTIONS + 2];
    let mut i = 0;
    while i < PROJECTIONS {
        queues[i] = PROJECTION_QUEUES[i];
        i += 1;
    }
    queues[PROJECTIONS] = ISSUANCE_QUEUE;
    queues[PROJECTIONS + 1] = DEAD_LETTERS_QUEUE;
    queues
};

/// (queue, exchange it is bound to): competing consumers.
const BOUND_QUEUES: [(&str, &str); 2] = [(ISSUANCE_QUEUE, ISSUANCE), (DEAD_LETTERS_QUEUE, DEAD)];

/// Declares the four fanout exchanges and the contract queues.
pub async fn declare(channel: &Channel) -> Result<(), lapin::Error> {
    for exchange in [EVENTS, ISSUANCE, NOTIFICATIONS, DEAD] {
        let options = ExchangeDeclareOptions {
            durable: true,
            ..Default::default()
        };
        channel
            .exchange_declare(
                exchange.into(),
                ExchangeKind::Fanout,
                options,
                FieldTable::default(),
            )
            .await?;
    }
    for queue in PROJECTION_QUEUES {
        declare_projection_queue(channel, queue).await?;
        // Releases before the per-route relay bound them to the fanout.
        channel
            .queue_unbind(
                queue.into(),
                EVENTS.into(),
                "".into(),
                FieldTable::default(),
            )
            .await?;
    }
    for (queue, exchange) in BOUND_QUEUES {
        declare_queue(channel, queue).await?;
        bind(channel, queue, exchange).await?;
    }
    Ok(())
}

/// A durable quorum queue: redeliveries are counted (`x-delivery-count`),
/// which the consumers' retry limit relies on.
pub async fn declare_queue(channel: &Channel, queue: &str) -> Result<(), lapin::Error> {
    let options = QueueDeclareOptions {
        durable: true,
        ..Default::default()
    };
    channel
        .queue_declare(queue.into(), options, quorum_args())
        .await?;
    Ok(())
}

async fn declare_projection_queue(channel: &Channel, queue: &str) -> Result<(), lapin::Error> {
    let mut args = quorum_args();
    args.insert("x-single-active-consumer".into(), AMQPValue::Boolean(true));
    let options = QueueDeclareOptions {
        durable: true,
        ..Default::default()
    };
    let declared = channel.queue_declare(queue.into(), options, args).await;
    if let Err(e) = &declared {
        // A queue's arguments cannot change once declared.
        tracing::error!(
            queue,
            error = %e,
            "declaring a projection queue failed; if an earlier release declared it \
             (without single-active-consumer), see docs/event-pipeline.md, \
             \"Upgrading a deployment\": delete it and rewind its relay route"
        );
    }
    declared.map(|_| ())
}

fn quorum_args() -> FieldTable {
    let mut args = FieldTable::default();
    args.insert(
        "x-queue-type".into(),
        AMQPValue::LongString("quorum".into()),
    );
    args.insert(
        "x-max-length".into(),
        AMQPValue::LongLongInt(MAX_QUEUE_LENGTH),
    );
    args.insert(
        "x-overflow".into(),
        AMQPValue::LongString("reject-publish".into()),
    );
    args
}

pub async fn bind(channel: &Channel, queue: &str, exchange: &str) -> Result<(), lapin::Error> {
    channel
        .queue_bind(
            queue.into(),
            exchange.into(),
            "".into(),
            QueueBindOptions::default(),
            FieldTable::default(),
        )
        .await
}
