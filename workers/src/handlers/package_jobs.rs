//! Package jobs on the issuance worker (docs/design.md §13): a claim of a package
//! of more than `MAX_SYNC` coupons, in the same transaction as its inbox
//! row. Its request took the claim's counts; the job writes the coupons
//! (`package_job::run`), or records why it could not (a template stopped
//! or voided since: `failed`; a refusal: `refused`), with the answer the
//! synchronous path gives for it: the one
//! mapping of a command's refusal to a status, code and message
//! (`commands/refusal.rs`), which the API renders too. The
//! job's row is the truth (its channel too); the message must agree.

use chrono_tz::Tz;
use deadpool_postgres::Transaction;
use ledger::commands::CommandError;
use ledger::commands::package_job::{self, Finished, Outcome};
use ledger::domain::package_job::{PackageJob, Refusal};
use ledger::write_model::code_batch_row::Batch;

/// Runs the job the message names, unless it is no longer queued; the
/// code it used up, if it did, for the Redis bitmap after the commit.
pub async fn handle(
    tx: &Transaction<'_>,
    message: &PackageJob,
    tz: Tz,
) -> anyhow::Result<Option<(Batch, i64)>> {
    let Some(job) = package_job::start(tx, message.job_id).await? else {
        tracing::debug!(job = %message.job_id, "package job no longer queued");
        return Ok(None);
    };
    // A message from before jobs carried a channel names none: the row's holds.
    let same_channel = message.channel_id.is_none_or(|c| job.channel_id == Some(c));
    anyhow::ensure!(
        job.package_sn == message.package_sn && job.user_id == message.user_id && same_channel,
        "package job {}: the message names another claim than its row",
        job.id
    );
    let now = ledger::store::now();
    match package_job::run(tx, &job, (now, tz)).await? {
        Outcome::Done(claimed) => {
            let coupons = &claimed.coupons;
            package_job::finish(tx, job.id, Finished::Done(coupons), now).await?;
            tracing::debug!(job = %job.id, coupons = coupons.len(), "package job done");
            Ok(claimed.used_up)
        }
        Outcome::Refused(refused) => {
            let refusal = answer(&refused)?;
            package_job::finish(tx, job.id, Finished::Refused(&refusal), now).await?;
            tracing::debug!(job = %job.id, code = refusal.code, "package job refused");
            Ok(None)
        }
        Outcome::Failed(why) => {
            let why = answer(&why)?;
            package_job::finish(tx, job.id, Finished::Failed(&why), now).await?;
            tracing::info!(job = %job.id, code = why.code, "package job failed, counts given back");
            Ok(None)
        }
    }
}

/// What the synchronous path answers for the same refusal; a failure
/// (not a refusal) fails the message, to be retried.
fn answer(refused: &CommandError) -> anyhow::Result<Refusal> {
    let Some(answer) = refused.answer() else {
        anyhow::bail!("package job failed: {refused}");
    };
    Ok(Refusal {
        status: answer.status,
        code: answer.code.to_owned(),
        message: answer.message,
    })
}
