//! One log line per request (target `ledger::api::http::request_log`, level
//! info): `request_id`, `method`, `route`, `status`, `latency_ms`, and
//! when there are some `event_ids` (the events the request appended,
//! comma-separated) and `error` (the source chain of a server error).
//!
//! The request id is the client's `X-Request-Id` (1 to 128 characters),
//! else a fresh UUID; it is the correlation id of the events the request
//! appends ([`crate::api::http::context::Ctx`] reads it from here) and is sent back in
//! the answer's `X-Request-Id`. Every line logged while the request runs is
//! inside its `request` span, which carries the id too.
//!
//! Nothing else of the request is logged: no header (the bearer tokens and
//! channel signatures are there), no query, no body.

use std::sync::Arc;
use std::time::Instant;

use axum::extract::{MatchedPath, Request};
use axum::http::HeaderValue;
use axum::middleware::Next;
use axum::response::Response;
use tracing::Instrument;

use crate::api::http::request_metrics::method_label;
use crate::store::appended::{self, Appended};

pub const REQUEST_ID_HEADER: &str = "x-request-id";
const MAX_REQUEST_ID_LEN: usize = 128;

/// The request's id, in its extensions.
#[derive(Clone, Debug)]
pub struct RequestId(pub Arc<str>);

impl RequestId {
    /// The id a request's headers give it: `X-Request-Id` if it is 1 to 128
    /// characters of visible ASCII, else a fresh UUID (v7).
    pub fn of(headers: &axum::http::HeaderMap) -> Self {
        let id = headers
            .get(REQUEST_ID_HEADER)
            .and_then(|v| v.to_str().ok())
            .filter(|v| !v.is_empty() && v.len() <= MAX_REQUEST_ID_LEN)
            .map_or_else(|| uuid::Uuid::now_v7().to_string(), str::to_owned);
        Self(id.into())
    }
}

/// Why a request failed on the server's side, put in the answer's
/// extensions by [`crate::api::http::error::ApiError`] for this line.
#[derive(Clone, Debug)]
pub struct ServerError(pub Arc<str>);

pub async fn log(mut request: Request, next: Next) -> Response {
    let started = Instant::now();
    let id = RequestId::of(request.headers());
    request.extensions_mut().insert(id.clone());
    let method = method_label(request.method());
    let route = request
        .extensions()
        .get::<MatchedPath>()
        .map_or_else(|| "unmatched".into(), |p| Arc::<str>::from(p.as_str()));
    let span = tracing::info_span!("request", request_id = &*id.0);
    let collected = Appended::default();
    let mut response = appended::scope(collected.clone(), next.run(request).instrument(span)).await;
    let latency_ms = started.elapsed().as_secs_f64() * 1000.0;
    let status = response.status();
    let event_ids = status
        .is_success()
        .then(|| collected.ids())
        .filter(|ids| !ids.is_empty());
    let event_ids = event_ids.map(|ids| {
        ids.iter()
            .map(uuid::Uuid::to_string)
            .collect::<Vec<_>>()
            .join(",")
    });
    let error = response.extensions_mut().remove::<ServerError>();
    tracing::info!(
        request_id = &*id.0,
        method,
        route = &*route,
        status = status.as_u16(),
        latency_ms = (latency_ms * 1000.0).round() / 1000.0,
        event_ids = event_ids.as_deref(),
        error = error.as_ref().map(|e| &*e.0),
        "request"
    );
    if let Ok(value) = HeaderValue::from_str(&id.0) {
        response.headers_mut().insert(REQUEST_ID_HEADER, value);
    }
    response
}

#[cfg(test)]
mod tests {
    use std::io::Write;
    use std::sync::Mutex;

    use axum::Router;
    use axum::routing::get;

    use super::*;
    use crate::api::http::error::ApiError;

    #[derive(Clone, Default)]
    struct Buffer(Arc<Mutex<Vec<u8>>>);

    impl Write for Buffer {
        fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
            self.0.lock().unwrap().extend_from_slice(bytes);
            Ok(bytes.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    async fn boom() -> Result<(), ApiError> {
        let io = std::io::Error::other("connection reset by peer");
        Err(ApiError::Internal(
            anyhow::Error::new(io).context("writing the batch"),
        ))
    }

    /// A server error's line carries its source chain (single-threaded
    /// runtime: the subscriber set for this thread sees the server's lines).
    #[tokio::test]
    async fn a_server_error_is_logged_with_its_source_chain() {
        let buffer = Buffer::default();
        let writer = buffer.clone();
        let subscriber = tracing_subscriber::fmt()
            .json()
            .flatten_event(true)
            .with_writer(move || writer.clone())
            .finish();
        let _guard = tracing::subscriber::set_default(subscriber);
        let app = Router::new()
            .route("/boom/{id}", get(boom))
            .layer(axum::middleware::from_fn(log));
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        tokio::spawn(async move { axum::serve(listener, app).await });
        let r = reqwest::Client::new()
            .get(format!("http://{addr}/boom/7"))
            .header("X-Request-Id", "r-1")
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), 500);
        assert_eq!(r.headers()["x-request-id"], "r-1");
        let text = String::from_utf8(buffer.0.lock().unwrap().clone()).unwrap();
        let line = text
            .lines()
            .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
            .find(|l| l["message"] == "request")
            .unwrap_or_else(|| panic!("no request line in {text}"));
        assert_eq!(line["request_id"], "r-1");
        assert_eq!(line["route"], "/boom/{id}");
        assert_eq!(line["status"], 500);
        assert_eq!(
            line["error"], "writing the batch: connection reset by peer",
            "{line}"
        );
    }
}
