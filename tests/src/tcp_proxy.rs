//! A TCP proxy a test runs between a binary and a service, to cut the link
//! (every open connection closed at once, new ones refused) and restore
//! it: a service going away and coming back, as the client sees a
//! failover, without touching the machine's own interfaces. It can also
//! slow the link: every chunk waits a set delay each way.

use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::watch;

pub struct TcpProxy {
    pub port: u16,
    open: Arc<AtomicBool>,
    /// Milliseconds each chunk waits, each way (0: none).
    delay_ms: Arc<AtomicU64>,
    /// Bumped by every cut: live connections end when it moves.
    cuts: watch::Sender<u64>,
    accept: tokio::task::JoinHandle<()>,
}

impl TcpProxy {
    /// A proxy on a free loopback port to `target`, open.
    pub async fn start(target: SocketAddr) -> anyhow::Result<Self> {
        let listener = TcpListener::bind("127.0.0.1:0").await?;
        let port = listener.local_addr()?.port();
        let open = Arc::new(AtomicBool::new(true));
        let delay_ms = Arc::new(AtomicU64::new(0));
        let (cuts, _) = watch::channel(0);
        let link = Link {
            target,
            open: open.clone(),
            delay_ms: delay_ms.clone(),
            cuts: cuts.clone(),
        };
        let accept = tokio::spawn(accept(listener, link));
        Ok(TcpProxy {
            port,
            open,
            delay_ms,
            cuts,
            accept,
        })
    }

    /// Closes every connection through the proxy and refuses new ones.
    pub fn cut(&self) {
        self.open.store(false, Ordering::SeqCst);
        self.cuts.send_modify(|n| *n += 1);
    }

    /// Lets connections through again, at full speed.
    pub fn restore(&self) {
        self.open.store(true, Ordering::SeqCst);
        self.slow(Duration::ZERO);
    }

    /// Makes every chunk wait `delay` each way, on open connections too.
    pub fn slow(&self, delay: Duration) {
        let ms = u64::try_from(delay.as_millis()).unwrap_or(u64::MAX);
        self.delay_ms.store(ms, Ordering::SeqCst);
    }
}

impl Drop for TcpProxy {
    fn drop(&mut self) {
        self.accept.abort();
        self.cut();
    }
}

/// Where a proxy forwards to and how it behaves now.
#[derive(Clone)]
struct Link {
    target: SocketAddr,
    open: Arc<AtomicBool>,
    delay_ms: Arc<AtomicU64>,
    cuts: watch::Sender<u64>,
}

async fn accept(listener: TcpListener, link: Link) {
    while let Ok((client, _)) = listener.accept().await {
        if !link.open.load(Ordering::SeqCst) {
            continue; // dropped: the client sees the connection closed
        }
        let mut cut = link.cuts.subscribe();
        let link = link.clone();
        tokio::spawn(async move {
            let Ok(server) = TcpStream::connect(link.target).await else {
                return;
            };
            let (client_read, client_write) = client.into_split();
            let (server_read, server_write) = server.into_split();
            tokio::select! {
                _ = pump(client_read, server_write, &link.delay_ms) => {}
                _ = pump(server_read, client_write, &link.delay_ms) => {}
                _ = cut.changed() => {}
            }
        });
    }
}

/// Copies `from` to `to` until either ends, each chunk after the delay.
async fn pump(
    mut from: tokio::net::tcp::OwnedReadHalf,
    mut to: tokio::net::tcp::OwnedWriteHalf,
    delay_ms: &AtomicU64,
) {
    // 64 KiB: a chunk as large as a socket read usually returns.
    let mut buf = vec![0u8; 64 * 1024];
    loop {
        let n = match from.read(&mut buf).await {
            Ok(0) | Err(_) => return,
            Ok(n) => n,
        };
        let delay = delay_ms.load(Ordering::Relaxed);
        if delay > 0 {
            tokio::time::sleep(Duration::from_millis(delay)).await;
        }
        if to.write_all(&buf[..n]).await.is_err() {
            return;
        }
    }
}
