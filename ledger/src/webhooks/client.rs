//! One delivery attempt over HTTP (docs/design.md §21): a POST through the
//! SSRF guard's resolver, no redirects followed, no proxy, answered within
//! [`DELIVERY_TIMEOUT`], and at most [`MAX_ANSWER_BYTES`] of the answer
//! read, so a slow or huge answer cannot hold the sender.

use std::time::Duration;

use futures_util::StreamExt;
use reqwest::header::{CONTENT_TYPE, HeaderMap, HeaderValue, USER_AGENT};

use super::address_guard::GuardedResolver;
use crate::domain::webhook::{Attempt, DELIVERY_TIMEOUT, WebhookUrl};

/// The answer's bytes read (and kept for the error text); the rest is dropped.
pub const MAX_ANSWER_BYTES: usize = 64 * 1024;
/// What of the answer an error quotes.
const QUOTED: usize = 200;
const CONNECT_TIMEOUT: Duration = Duration::from_secs(5);

/// The client every attempt uses (it pools connections per endpoint).
pub fn client(allow_private: bool) -> reqwest::Result<reqwest::Client> {
    reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .no_proxy()
        .dns_resolver(GuardedResolver::shared(allow_private))
        .connect_timeout(CONNECT_TIMEOUT)
        .timeout(DELIVERY_TIMEOUT)
        .pool_max_idle_per_host(32)
        .build()
}

/// The headers of one delivery.
pub struct Delivery<'a> {
    pub webhook_id: uuid::Uuid,
    pub event_id: uuid::Uuid,
    pub signature: String,
    pub body: &'a [u8],
}

/// POSTs `delivery` to `url`; a 2xx whose answer arrived in time delivers.
/// A URL whose host is an address literal is checked here again, as the
/// resolver never sees it.
pub async fn post(
    client: &reqwest::Client,
    url: &str,
    allow_private: bool,
    delivery: &Delivery<'_>,
) -> Attempt {
    let url = match WebhookUrl::parse(url, allow_private) {
        Ok(url) => url,
        Err(e) => return refused(None, e.to_string()),
    };
    let headers = match headers(delivery) {
        Ok(headers) => headers,
        Err(e) => return refused(None, e),
    };
    let sent = client
        .post(url.as_url().clone())
        .headers(headers)
        .body(delivery.body.to_vec());
    let answer = match tokio::time::timeout(DELIVERY_TIMEOUT, sent.send()).await {
        Err(_) => return refused(None, "no answer within 10 s".into()),
        Ok(Err(e)) => return refused(None, error_text(&e)),
        Ok(Ok(answer)) => answer,
    };
    let status = answer.status();
    let text = read_bounded(answer).await;
    match (status.is_success(), text) {
        (true, Ok(_)) => Attempt::Delivered {
            status: status.as_u16(),
        },
        (true, Err(e)) => refused(Some(status.as_u16()), e),
        (false, text) => {
            let quoted = text.unwrap_or_else(|e| e);
            refused(
                Some(status.as_u16()),
                format!("answered {status}: {quoted}"),
            )
        }
    }
}

fn headers(delivery: &Delivery<'_>) -> Result<HeaderMap, String> {
    let mut headers = HeaderMap::new();
    let value = |text: String| HeaderValue::from_str(&text).map_err(|e| e.to_string());
    headers.insert(CONTENT_TYPE, HeaderValue::from_static("application/json"));
    headers.insert(
        USER_AGENT,
        HeaderValue::from_static("couponledger-webhooks/1"),
    );
    headers.insert("ledger-webhook-id", value(delivery.webhook_id.to_string())?);
    headers.insert("ledger-event-id", value(delivery.event_id.to_string())?);
    headers.insert("ledger-signature", value(delivery.signature.clone())?);
    Ok(headers)
}

/// The answer's first bytes as text (within the time left); reading
/// stops at [`MAX_ANSWER_BYTES`].
async fn read_bounded(answer: reqwest::Response) -> Result<String, String> {
    let mut stream = answer.bytes_stream();
    let mut kept = Vec::new();
    while let Some(chunk) = stream.next().await {
        let chunk = chunk.map_err(|e| error_text(&e))?;
        let room = MAX_ANSWER_BYTES.saturating_sub(kept.len());
        kept.extend_from_slice(&chunk[..chunk.len().min(room)]);
        if kept.len() >= MAX_ANSWER_BYTES {
            break;
        }
    }
    let text = String::from_utf8_lossy(&kept);
    Ok(text.chars().take(QUOTED).collect())
}

fn refused(status: Option<u16>, error: String) -> Attempt {
    Attempt::Refused { status, error }
}

/// reqwest's error with its causes (the guard's refusal is a cause).
fn error_text(e: &reqwest::Error) -> String {
    let mut text = if e.is_timeout() {
        "no answer within 10 s".to_owned()
    } else {
        e.to_string()
    };
    let mut source = std::error::Error::source(e);
    while let Some(cause) = source {
        text.push_str(": ");
        text.push_str(&cause.to_string());
        source = cause.source();
    }
    text.chars().take(500).collect()
}
