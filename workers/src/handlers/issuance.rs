//! The issuance worker: consumes bulk-issuance chunks from
//! `coupon.issuance.work` and issues each in one transaction with its inbox
//! row (`ledger::commands::issuance::apply_chunk`). Competing workers are
//! safe: the chunk's rows and the template's quota are guarded in SQL.
//! The same queue carries claims of large packages (`type` `PackageJob`,
//! see [`super::package_jobs`]); a job that used a code up marks it in the
//! Redis bitmap once committed, as the API does.

use chrono_tz::Tz;
use deadpool_postgres::Transaction;
use lapin::message::Delivery;
use ledger::commands::issuance::apply_chunk;
use ledger::config::Config;
use ledger::domain::events::Metadata;
use ledger::flash::used_up;
use ledger::messaging::issuance_message::{self, IssuanceMessage};
use ledger::redis_link::RedisHandle;
use ledger::write_model::code_batch_row::Batch;

use crate::consumers::Handler;

/// The inbox's consumer name of the issuance worker.
pub const NAME: &str = "issuance";
/// Messages fetched ahead: a chunk is up to a thousand lines, a package
/// job up to `MAX_COUPONS` coupons.
pub const PREFETCH: u16 = 4;

pub struct Issuer {
    pub tz: Tz,
    /// The bitmap of used-up codes (an accelerator: may be down).
    pub redis: RedisHandle,
}

impl Issuer {
    pub fn new(config: &Config) -> anyhow::Result<Self> {
        let redis = RedisHandle::new(&config.redis_url, config.redis_prefix.clone())
            .map_err(anyhow::Error::msg)?;
        Ok(Self {
            tz: config.tz,
            redis,
        })
    }
}

impl Handler for Issuer {
    /// A code a package job used up: its batch and serial.
    type Committed = Option<(Batch, i64)>;

    async fn handle(
        &self,
        tx: &Transaction<'_>,
        delivery: &Delivery,
    ) -> anyhow::Result<Self::Committed> {
        let chunk = match issuance_message::decode(&delivery.properties, &delivery.data)? {
            IssuanceMessage::PackageJob(job) => {
                return super::package_jobs::handle(tx, &job, self.tz).await;
            }
            IssuanceMessage::Chunk(chunk) => chunk,
        };
        let metadata = Metadata {
            actor: format!("system:{NAME}"),
            correlation_id: chunk.job_id.to_string(),
            causation_id: Some(ledger::domain::issuance::IssuanceChunk::message_id(
                chunk.job_id,
                chunk.chunk_no,
            )),
            ..Default::default()
        };
        let now = ledger::store::now();
        let outcome = apply_chunk(tx, &chunk, &metadata, now, self.tz).await?;
        tracing::debug!(job = %chunk.job_id, chunk = chunk.chunk_no, ?outcome, "chunk applied");
        Ok(None)
    }

    async fn committed(&self, used_up: Self::Committed) {
        if let Some((batch, serial)) = used_up {
            used_up::mark(&self.redis, &batch, serial).await;
        }
    }
}
