//! The SSRF guard (docs/design.md §21): a delivery reaches only public
//! addresses unless `LEDGER_WEBHOOK_ALLOW_PRIVATE=true`. Names are resolved
//! here, and the client connects only to the addresses this check passed,
//! so a name that resolves to a public address when the endpoint is made
//! and to a private one later (DNS rebinding) is refused at delivery.

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use reqwest::dns::{Addrs, Name, Resolve, Resolving};

use crate::domain::webhook::is_public;

/// Longest wait for a name's addresses.
const RESOLVE_TIMEOUT: Duration = Duration::from_secs(5);

#[derive(Debug, thiserror::Error)]
pub enum GuardError {
    #[error("{host} does not resolve: {reason}")]
    Unresolved { host: String, reason: String },
    #[error("{host} resolves to {ip}, a private, loopback or link-local address")]
    Private { host: String, ip: std::net::IpAddr },
}

/// The addresses `host` resolves to, every one of them public unless
/// private ones are allowed.
pub async fn resolve(host: &str, allow_private: bool) -> Result<Vec<SocketAddr>, GuardError> {
    let unresolved = |reason: String| GuardError::Unresolved {
        host: host.to_owned(),
        reason,
    };
    let lookup = tokio::net::lookup_host((host, 0));
    let addrs: Vec<SocketAddr> = tokio::time::timeout(RESOLVE_TIMEOUT, lookup)
        .await
        .map_err(|_| unresolved("timed out".into()))?
        .map_err(|e| unresolved(e.to_string()))?
        .collect();
    if addrs.is_empty() {
        return Err(unresolved("no address".into()));
    }
    if let Some(private) = addrs.iter().find(|a| !allow_private && !is_public(a.ip())) {
        return Err(GuardError::Private {
            host: host.to_owned(),
            ip: private.ip(),
        });
    }
    Ok(addrs)
}

/// The webhook client's resolver: [`resolve`] for every connection.
pub struct GuardedResolver {
    pub allow_private: bool,
}

impl Resolve for GuardedResolver {
    fn resolve(&self, name: Name) -> Resolving {
        let allow_private = self.allow_private;
        Box::pin(async move {
            let addrs = resolve(name.as_str(), allow_private).await?;
            Ok(Box::new(addrs.into_iter()) as Addrs)
        })
    }
}

impl GuardedResolver {
    pub fn shared(allow_private: bool) -> Arc<Self> {
        Arc::new(Self { allow_private })
    }
}
