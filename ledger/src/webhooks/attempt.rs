//! One delivery attempt: the event's message as `coupon.events` carries
//! it, signed, POSTed, and what follows decided by the domain's rules (the
//! caller records it with `deliveries::record`, holding a connection only
//! for that).

use chrono::{DateTime, Utc};
use rand::Rng;
use uuid::Uuid;

use super::client::{self, Delivery};
use super::deliveries::Due;
use super::endpoints::Endpoint;
use crate::domain::webhook::{self, Attempt, Next};
use crate::store::RecordedEvent;

/// An attempt made: how it went, what follows, and when.
pub struct Outcome {
    pub attempt: Attempt,
    pub next: Next,
    pub at: DateTime<Utc>,
}

/// Sends `event` to `endpoint` for `due`.
pub async fn send(
    http: &reqwest::Client,
    allow_private: bool,
    (webhook_id, endpoint): (Uuid, &Endpoint),
    (due, event): (&Due, Option<&RecordedEvent>),
) -> Outcome {
    let attempt = match (event, &endpoint.secrets) {
        (None, _) => Attempt::Refused {
            status: None,
            error: "the event is no longer in the store (archived)".into(),
        },
        (_, Err(e)) => Attempt::Refused {
            status: None,
            error: e.clone(),
        },
        (Some(event), Ok(secrets)) => {
            let body = crate::messaging::message::encode(event).body;
            let secrets: Vec<&str> = secrets.iter().map(String::as_str).collect();
            let t = Utc::now().timestamp();
            let delivery = Delivery {
                webhook_id,
                event_id: event.event_id,
                signature: webhook::signature_header(&secrets, t, &body),
                body: &body,
            };
            client::post(http, &endpoint.url, allow_private, &delivery).await
        }
    };
    let at = Utc::now();
    let next = decide(&attempt, due, endpoint.retry_hours, at);
    Outcome { attempt, next, at }
}

fn decide(attempt: &Attempt, due: &Due, retry_hours: i32, now: DateTime<Utc>) -> Next {
    let jitter = rand::rng().random::<f64>();
    webhook::next(
        attempt,
        (due.attempts + 1, due.queued_at),
        retry_hours,
        now,
        jitter,
    )
}
