//! Per-test isolation against the real services.
//!
//! Each test gets its own database (cloned from a migrated template database),
//! its own RabbitMQ vhost (so the contract exchange names stay as they are) and
//! its own Redis key prefix. All three are removed when dropped.

mod count;
mod database;
mod rabbit;
mod redis_prefix;
mod settled_read;

pub use count::count;
pub use database::TestDb;
pub use rabbit::TestVhost;
pub use redis_prefix::TestRedis;
pub use settled_read::read_all_settled;

/// Runs an async cleanup to completion from `Drop`, on a thread of its own so
/// it works inside and outside a tokio runtime.
pub(crate) fn run_cleanup<F>(what: &'static str, cleanup: F)
where
    F: std::future::Future<Output = anyhow::Result<()>> + Send + 'static,
{
    let joined = std::thread::spawn(move || {
        tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .map_err(anyhow::Error::from)
            .and_then(|rt| rt.block_on(cleanup))
    })
    .join();
    match joined {
        Ok(Ok(())) => {}
        Ok(Err(e)) => eprintln!("testkit: cleaning up {what} failed: {e:#}"),
        Err(_) => eprintln!("testkit: cleaning up {what} panicked"),
    }
}

/// A name no other test process will pick.
pub(crate) fn unique_suffix() -> String {
    uuid::Uuid::new_v4().simple().to_string()
}
