//! A webhook receiver on loopback for the webhook tests: it records every
//! request it gets (headers, the event, whether the signature verifies
//! with the secrets it is given) and answers as told: fail the first
//! requests, hang on one past the sender's 10 s, refuse a share at random.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::body::Bytes;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use hmac::{Hmac, Mac};
use serde_json::Value;
use sha2::Sha256;
use tokio::net::TcpListener;

/// How the receiver answers.
#[derive(Clone, Copy, Debug, Default)]
pub struct Behaviour {
    /// The first this many requests answer 500.
    pub fail_first: usize,
    /// The request with this number (1-based) waits 12 s, then answers 200.
    pub hang_on: Option<usize>,
    /// Answer 503 to this share of the other requests (0.0 to 1.0).
    pub refuse_share: f64,
    /// Every request waits this long before its answer.
    pub slow: Option<Duration>,
    /// Answer 200 with a body that never ends.
    pub endless_body: bool,
}

/// One request as received.
#[derive(Clone, Debug)]
pub struct Received {
    /// 1-based, in arrival order.
    pub number: usize,
    pub answered: u16,
    pub webhook_id: String,
    pub event_id: String,
    pub signature_valid: bool,
    pub event: Value,
}

struct Inner {
    behaviour: Behaviour,
    requests: AtomicUsize,
    secrets: Mutex<Vec<String>>,
    received: Mutex<Vec<Received>>,
}

#[derive(Clone)]
pub struct Receiver {
    inner: Arc<Inner>,
    pub url: String,
}

impl Receiver {
    /// Listens on 127.0.0.1 (a free port) at `/hook`.
    pub async fn start(behaviour: Behaviour) -> anyhow::Result<Self> {
        let inner = Arc::new(Inner {
            behaviour,
            requests: AtomicUsize::new(0),
            secrets: Mutex::new(Vec::new()),
            received: Mutex::new(Vec::new()),
        });
        let app = axum::Router::new()
            .route("/hook", axum::routing::post(receive))
            .with_state(inner.clone());
        let listener = TcpListener::bind("127.0.0.1:0").await?;
        let url = format!("http://{}/hook", listener.local_addr()?);
        tokio::spawn(async move { axum::serve(listener, app).await });
        Ok(Self { inner, url })
    }

    /// The secrets a valid signature may be made with.
    pub fn trust(&self, secret: &str) {
        self.inner.secrets.lock().unwrap().push(secret.to_owned());
    }

    /// Everything received so far.
    pub fn received(&self) -> Vec<Received> {
        self.inner.received.lock().unwrap().clone()
    }

    /// The requests answered 2xx.
    pub fn delivered(&self) -> Vec<Received> {
        let all = self.received();
        all.into_iter().filter(|r| r.answered < 300).collect()
    }
}

async fn receive(State(inner): State<Arc<Inner>>, headers: HeaderMap, body: Bytes) -> StatusCode {
    let header = |name: &str| {
        headers
            .get(name)
            .and_then(|v| v.to_str().ok())
            .unwrap_or_default()
            .to_owned()
    };
    let secrets = inner.secrets.lock().unwrap().clone();
    let signature_valid = verify(&header("ledger-signature"), &body, &secrets);
    let number = inner.requests.fetch_add(1, Ordering::SeqCst) + 1;
    let b = inner.behaviour;
    if let Some(slow) = b.slow {
        tokio::time::sleep(slow).await;
    }
    let answer = if number <= b.fail_first {
        StatusCode::INTERNAL_SERVER_ERROR
    } else if b.hang_on == Some(number) {
        tokio::time::sleep(Duration::from_secs(12)).await;
        StatusCode::OK
    } else if rand::random::<f64>() < b.refuse_share {
        StatusCode::SERVICE_UNAVAILABLE
    } else {
        StatusCode::OK
    };
    let event = serde_json::from_slice(&body).unwrap_or(Value::Null);
    // The hanging answer is recorded as refused: the sender gave up on it.
    let answered = if b.hang_on == Some(number) {
        504
    } else {
        answer.as_u16()
    };
    inner.received.lock().unwrap().push(Received {
        number,
        answered,
        webhook_id: header("ledger-webhook-id"),
        event_id: header("ledger-event-id"),
        signature_valid,
        event,
    });
    answer
}

/// `t=<unix>,v1=<hex>[,v1=<hex>]`: valid when some v1 is the HMAC-SHA256
/// of `"<t>.<body>"` under one of `secrets` (the receiver example in
/// docs/reference/webhooks.md does the same).
pub fn verify(header: &str, body: &[u8], secrets: &[String]) -> bool {
    let mut t = None;
    let mut signatures = Vec::new();
    for part in header.split(',') {
        match part.split_once('=') {
            Some(("t", value)) => t = Some(value),
            Some(("v1", value)) => signatures.push(value),
            _ => {}
        }
    }
    let Some(t) = t else {
        return false;
    };
    secrets.iter().any(|secret| {
        let mut mac = Hmac::<Sha256>::new_from_slice(secret.as_bytes()).expect("any key");
        mac.update(t.as_bytes());
        mac.update(b".");
        mac.update(body);
        let expected = hex::encode(mac.finalize().into_bytes());
        signatures.iter().any(|s| *s == expected)
    })
}
