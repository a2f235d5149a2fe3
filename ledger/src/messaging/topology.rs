//! The contract topology (DESIGN §5), declared idempotently at start by both
//! binaries: redeclaring with the same arguments is a no-op.

use lapin::options::{ExchangeDeclareOptions, QueueBindOptions, QueueDeclareOptions};
use lapin::types::{AMQPValue, FieldTable};
use lapin::{Channel, ExchangeKind};

pub const EVENTS: &str = "coupon.events";
pub const ISSUANCE: &str = "coupon.issuance";
pub const NOTIFICATIONS: &str = "coupon.notifications";
pub const DEAD: &str = "coupon.dead";

pub const BALANCES_QUEUE: &str = "coupon.events.balances";
pub const TEMPLATE_STATS_QUEUE: &str = "coupon.events.template_stats";
pub const NOTIFY_QUEUE: &str = "coupon.events.notify";
pub const ISSUANCE_QUEUE: &str = "coupon.issuance.work";
pub const DEAD_LETTERS_QUEUE: &str = "coupon.dead.letters";

/// Every queue is bounded. When one is full the broker refuses (nacks) new
/// messages rather than dropping old ones, and publishers retry: a full
/// queue slows the relay down, it never loses an event.
pub const MAX_QUEUE_LENGTH: i64 = 2_000_000;

/// (queue, exchange it is bound to).
const QUEUES: [(&str, &str); 5] = [
    (BALANCES_QUEUE, EVENTS),
    (TEMPLATE_STATS_QUEUE, EVENTS),
    (NOTIFY_QUEUE, EVENTS),
    (ISSUANCE_QUEUE, ISSUANCE),
    (DEAD_LETTERS_QUEUE, DEAD),
];

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
    for (queue, exchange) in QUEUES {
        declare_queue(channel, queue).await?;
        bind(channel, queue, exchange).await?;
    }
    Ok(())
}

/// A durable quorum queue: redeliveries are counted (`x-delivery-count`),
/// which the consumers' retry limit relies on.
pub async fn declare_queue(channel: &Channel, queue: &str) -> Result<(), lapin::Error> {
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
    let options = QueueDeclareOptions {
        durable: true,
        ..Default::default()
    };
    channel.queue_declare(queue.into(), options, args).await?;
    Ok(())
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
