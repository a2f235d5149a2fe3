//! Serving the router over HTTP/1.1 with bounds on slow clients.
//!
//! `axum::serve` sets no timer, so a client that sends its headers a byte at
//! a time holds a connection (and a task) for as long as it likes. hyper's
//! own connection builder bounds the time to read a request's headers.

use std::time::Duration;

use axum::extract::ConnectInfo;
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::service::TowerToHyperService;
use tokio::net::TcpListener;
use tokio::sync::watch;

use crate::api::{AppState, router, shutdown_signal};

/// How long a client may take to send a request's headers (also how long an
/// idle keep-alive connection stays open).
pub const HEADER_READ_TIMEOUT: Duration = Duration::from_secs(10);

/// Overrides [`HEADER_READ_TIMEOUT`] in milliseconds (for tests; undocumented).
const HEADER_TIMEOUT_VAR: &str = "LEDGER_HEADER_TIMEOUT_MS";

fn header_read_timeout() -> Duration {
    std::env::var(HEADER_TIMEOUT_VAR)
        .ok()
        .and_then(|v| v.parse().ok())
        .map_or(HEADER_READ_TIMEOUT, Duration::from_millis)
}

/// Serves until SIGTERM or Ctrl-C, then finishes in-flight requests.
pub async fn serve(listener: TcpListener, state: AppState) -> std::io::Result<()> {
    let app = router(state);
    let timeout = header_read_timeout();
    // Closed (sent to) at shutdown; every connection holds a receiver, so
    // `closed()` on the sender resolves when the last one has finished.
    let (closing, closing_rx) = watch::channel(());
    let mut shutdown = std::pin::pin!(shutdown_signal());
    loop {
        let (stream, peer) = tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok(accepted) => accepted,
                Err(e) => {
                    // Out of file descriptors and the like: back off, go on.
                    tracing::warn!(error = %e, "accept failed");
                    tokio::time::sleep(Duration::from_millis(50)).await;
                    continue;
                }
            },
            () = &mut shutdown => break,
        };
        // The peer address feeds the bad-signature limit (`auth_limit`).
        let with_peer = app.clone().layer(axum::Extension(ConnectInfo(peer)));
        let service = TowerToHyperService::new(with_peer);
        tokio::spawn(connection(stream, service, timeout, closing_rx.clone()));
    }
    drop(listener);
    drop(closing_rx);
    let _ = closing.send(());
    closing.closed().await;
    Ok(())
}

async fn connection(
    stream: tokio::net::TcpStream,
    service: TowerToHyperService<axum::Router>,
    timeout: Duration,
    mut closing: watch::Receiver<()>,
) {
    let conn = hyper::server::conn::http1::Builder::new()
        .timer(TokioTimer::new())
        .header_read_timeout(timeout)
        .serve_connection(TokioIo::new(stream), service);
    let mut conn = std::pin::pin!(conn);
    let result = tokio::select! {
        result = conn.as_mut() => result,
        _ = closing.changed() => {
            conn.as_mut().graceful_shutdown();
            conn.await
        }
    };
    if let Err(e) = result {
        tracing::debug!(error = %e, "connection ended with an error");
    }
}
