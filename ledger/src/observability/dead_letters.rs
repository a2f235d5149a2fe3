//! A look at the dead letters waiting in `coupon.dead.letters`, for the
//! console's workers page: each message's consumer, original queue,
//! attempts and error (the headers the workers add when they give up on a
//! message). Read through the management API's "get messages" with
//! `ack_requeue_true`: the messages are put back, nothing is consumed.

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use crate::messaging::topology::DEAD_LETTERS_QUEUE;
use crate::observability::queue_metrics::{Management, REQUEST_TIMEOUT};

/// At most this many messages are looked at (the newest [`SHOWN`] shown).
pub const PEEKED: usize = 50;
/// Dead letters shown, newest first.
pub const SHOWN: usize = 10;
/// Characters of an error kept.
const ERROR_CHARS: usize = 500;

/// One dead letter, as the worker that gave up on it described it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, ToSchema)]
pub struct DeadLetter {
    pub consumer: Option<String>,
    pub original_queue: Option<String>,
    pub attempts: Option<i64>,
    pub error: Option<String>,
}

#[derive(Deserialize)]
struct Peeked {
    #[serde(default)]
    properties: Properties,
}

#[derive(Deserialize, Default)]
struct Properties {
    #[serde(default)]
    headers: serde_json::Map<String, serde_json::Value>,
}

/// The newest of the first [`PEEKED`] dead letters, newest first.
pub async fn latest(m: &Management) -> anyhow::Result<Vec<DeadLetter>> {
    let url = format!(
        "{}/api/queues/{}/{DEAD_LETTERS_QUEUE}/get",
        m.api.base,
        crate::observability::queue_metrics::path_segment(&m.api.vhost)
    );
    let body = serde_json::json!({
        "count": PEEKED, "ackmode": "ack_requeue_true", "encoding": "auto", "truncate": 2000
    });
    let peeked: Vec<Peeked> = m
        .http
        .post(url)
        .basic_auth(&m.api.username, Some(&m.api.password))
        .timeout(REQUEST_TIMEOUT)
        .json(&body)
        .send()
        .await?
        .error_for_status()?
        .json()
        .await?;
    Ok(peeked.iter().rev().take(SHOWN).map(described).collect())
}

fn described(p: &Peeked) -> DeadLetter {
    let h = &p.properties.headers;
    let text = |k: &str| h.get(k).and_then(|v| v.as_str()).map(str::to_owned);
    DeadLetter {
        consumer: text("x-consumer"),
        original_queue: text("x-original-queue"),
        attempts: h.get("x-attempts").and_then(serde_json::Value::as_i64),
        error: text("x-error").map(|e| e.chars().take(ERROR_CHARS).collect()),
    }
}
