//! Serving the router over HTTP/1.1 with the bounds axum's `serve` does not
//! set: a client gets [`HEADER_TIMEOUT`] to send its request headers (a
//! slow-header client is cut off, not held for minutes), and SIGTERM drains
//! in-flight requests (at most [`DRAIN`]) before the process stops.

use std::time::Duration;

use hyper::server::conn::http1;
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::server::graceful::GracefulShutdown;
use hyper_util::service::TowerToHyperService;
use tokio::net::TcpListener;

use super::{AppState, router, shutdown_signal};

/// Time a client has to send a request's headers.
pub const HEADER_TIMEOUT: Duration = Duration::from_secs(10);
/// Longest wait for in-flight requests at shutdown.
pub const DRAIN: Duration = Duration::from_secs(30);

/// Serves until SIGTERM or Ctrl-C, then finishes in-flight requests.
pub async fn serve(listener: TcpListener, state: AppState) -> std::io::Result<()> {
    let app = router(state);
    let graceful = GracefulShutdown::new();
    let mut stop = std::pin::pin!(shutdown_signal());
    loop {
        let (stream, _) = tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok(accepted) => accepted,
                Err(e) => {
                    // Out of file descriptors and the like: wait, do not spin.
                    tracing::warn!(error = %e, "accept failed");
                    tokio::time::sleep(Duration::from_millis(50)).await;
                    continue;
                }
            },
            () = &mut stop => break,
        };
        let connection = http1::Builder::new()
            .timer(TokioTimer::new())
            .header_read_timeout(HEADER_TIMEOUT)
            .serve_connection(TokioIo::new(stream), TowerToHyperService::new(app.clone()));
        let connection = graceful.watch(connection);
        tokio::spawn(async move {
            if let Err(e) = connection.await {
                tracing::debug!(error = %e, "connection ended");
            }
        });
    }
    drop(listener);
    if tokio::time::timeout(DRAIN, graceful.shutdown())
        .await
        .is_err()
    {
        tracing::warn!("in-flight requests still running after {DRAIN:?}; stopping");
    }
    Ok(())
}
