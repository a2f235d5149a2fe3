//! Package jobs whose message was never sent: the API records a job, commits,
//! then publishes it, so an API that stops in between leaves the job
//! `queued` with nothing in `coupon.issuance`. The scanner re-publishes jobs
//! queued for longer than `after`, each at most once per `after` and
//! process. A job whose message was only waiting behind others is then
//! delivered twice; the worker's inbox (message id = job id) and the job's
//! status apply it once.

use std::collections::HashMap;
use std::time::{Duration, Instant};

use deadpool_postgres::Pool;
use ledger::commands::package_job;
use ledger::messaging::lazy_publisher::LazyPublisher;
use ledger::messaging::{package_job_message, topology};
use ledger::store::StoreCell;
use uuid::Uuid;

/// Jobs re-published per sweep.
const PER_SWEEP: i64 = 100;

pub struct Requeue {
    publisher: LazyPublisher,
    after: Duration,
    /// When this process last re-published each job.
    sent: HashMap<Uuid, Instant>,
}

impl Requeue {
    pub fn new(amqp_url: &str, after: Duration, store: StoreCell) -> Self {
        Self {
            publisher: LazyPublisher::new(amqp_url, "couponledger-scanner", store),
            after,
            sent: HashMap::new(),
        }
    }

    /// Re-publishes the stale jobs not re-published lately; how many.
    pub async fn sweep(&mut self, pool: &Pool) -> anyhow::Result<usize> {
        let after = self.after;
        self.sent.retain(|_, at| at.elapsed() < after);
        let before = ledger::store::now() - chrono::Duration::from_std(after)?;
        let client = pool.get().await?;
        let stale = package_job::stale(&**client, before, PER_SWEEP).await?;
        let due: Vec<_> = stale
            .into_iter()
            .filter(|job| !self.sent.contains_key(&job.job_id))
            .collect();
        if due.is_empty() {
            return Ok(0);
        }
        let messages = due
            .iter()
            .map(package_job_message::encode)
            .collect::<Result<Vec<_>, _>>()?;
        self.publisher
            .publish_all(topology::ISSUANCE, "", &messages)
            .await?;
        for job in &due {
            tracing::info!(job = %job.job_id, "package job re-published (queued without a message)");
            self.sent.insert(job.job_id, Instant::now());
        }
        Ok(due.len())
    }
}
