//! A TCP proxy a test runs between a binary and a service, to cut the link
//! (every open connection closed at once, new ones refused) and restore
//! it: a service going away and coming back, as the client sees a
//! failover, without touching the machine's own interfaces.

use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use tokio::net::{TcpListener, TcpStream};
use tokio::sync::watch;

pub struct TcpProxy {
    pub port: u16,
    open: Arc<AtomicBool>,
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
        let (cuts, _) = watch::channel(0);
        let accept = tokio::spawn(accept(listener, target, open.clone(), cuts.clone()));
        Ok(TcpProxy {
            port,
            open,
            cuts,
            accept,
        })
    }

    /// Closes every connection through the proxy and refuses new ones.
    pub fn cut(&self) {
        self.open.store(false, Ordering::SeqCst);
        self.cuts.send_modify(|n| *n += 1);
    }

    /// Lets connections through again.
    pub fn restore(&self) {
        self.open.store(true, Ordering::SeqCst);
    }
}

impl Drop for TcpProxy {
    fn drop(&mut self) {
        self.accept.abort();
        self.cut();
    }
}

async fn accept(
    listener: TcpListener,
    target: SocketAddr,
    open: Arc<AtomicBool>,
    cuts: watch::Sender<u64>,
) {
    while let Ok((client, _)) = listener.accept().await {
        if !open.load(Ordering::SeqCst) {
            continue; // dropped: the client sees the connection closed
        }
        let mut cut = cuts.subscribe();
        tokio::spawn(async move {
            let Ok(server) = TcpStream::connect(target).await else {
                return;
            };
            let (mut client, mut server) = (client, server);
            tokio::select! {
                _ = tokio::io::copy_bidirectional(&mut client, &mut server) => {}
                _ = cut.changed() => {}
            }
        });
    }
}
