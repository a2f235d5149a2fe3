//! A package claim run as a job (docs/design.md §13). A claim of a package of more
//! than `MAX_SYNC` coupons is written by the issuance worker, not in the
//! request, so that no request holds templates' rows through a claim of
//! thousands of coupons. The request takes every count the claim needs,
//! by the synchronous path's guards, and records the job ([`open`],
//! `packages::reserve`): a claim answered 202 has its package's count, the
//! user's and its templates' quotas ("Large packages keep their promise").
//! The worker takes the job ([`start`]) and writes its coupons ([`run`])
//! under a savepoint; a template stopped or voided since the request fails
//! the job, and a refusal of what is still the job's (the code's own
//! counters, a disabled channel) refuses it: either keeps nothing of the
//! claim and gives its counts back (`packages::release`), and the job
//! records why ([`finish`]). A job its request could not publish is
//! [`fail`]ed, its counts given back too. Jobs recorded before their
//! requests reserved (no `reserved` mark) run the whole claim as before.

use std::sync::LazyLock;

use chrono::{DateTime, Utc};
use chrono_tz::Tz;
use deadpool_postgres::Transaction;
use tokio_postgres::GenericClient;
use tokio_postgres::types::Json;
use uuid::Uuid;

use super::CommandError;
use super::code_batches;
use super::package_coupons;
use super::packages::{self, Giver};
use super::redeem::{self, RedeemRequest};
use crate::domain::channel::ChannelStatus;
use crate::domain::eligibility::UserFacts;
use crate::domain::events::{CodeRef, CouponIssued, Metadata};
use crate::domain::ids::ChannelId;
use crate::domain::ids::{PackageSn, UserId};
use crate::domain::package_job::{PackageJob, PackageJobStatus, Refusal};
use crate::write_model::code_batch_row::{self, Batch};

/// A claim the request asks to be queued.
pub struct NewJob<'a> {
    pub package_sn: &'a PackageSn,
    pub user_id: &'a UserId,
    /// What the caller vouched for about the user: kept with the job, so
    /// the worker checks the templates' eligibility as the request would.
    pub facts: &'a UserFacts,
    /// The code that asked (its batch and serial), for a package's code.
    pub code: Option<(&'a Batch, i64)>,
    /// Who asks: the channel's claim, or the code's redemption.
    pub giver: Giver,
    pub metadata: &'a Metadata,
}

/// Takes the claim's counts, in the order the claim's guards take them
/// (the code's batch open, the channel on the package's list, the package
/// issuing and not sold out, the user under its limit; for a code, a check
/// of its use and the user's redemptions, which its job takes; each
/// template's eligibility, per-user limit and quota), and records the job,
/// queued and reserved.
pub async fn open(
    tx: &Transaction<'_>,
    new: &NewJob<'_>,
    now: DateTime<Utc>,
) -> Result<PackageJob, CommandError> {
    if let Some((batch, _)) = new.code {
        redeem::open(&code_batches::current(tx, batch).await?, now)?;
    }
    let job_id = Uuid::now_v7();
    let (sn, user) = (new.package_sn, new.user_id);
    let taken = packages::take(tx, sn, user, new.giver, now).await?;
    // The code's own counters come before the templates', as `redeem` takes them.
    if let Some((batch, serial)) = new.code {
        redeem::precheck(&**tx, batch, serial, new.user_id).await?;
    }
    let on = (new.metadata, now);
    packages::reserve(tx, (&taken, job_id), (user, new.facts), on).await?;
    let job = PackageJob {
        job_id,
        package_sn: new.package_sn.clone(),
        user_id: new.user_id.clone(),
        code: new.code.map(|(batch, serial)| CodeRef {
            batch_id: batch.id,
            serial,
        }),
        channel_id: new.giver.channel(),
    };
    insert(tx, &job, (new.facts, new.metadata), now).await?;
    Ok(job)
}

async fn insert(
    tx: &Transaction<'_>,
    job: &PackageJob,
    (facts, metadata): (&UserFacts, &Metadata),
    now: DateTime<Utc>,
) -> Result<(), CommandError> {
    let json = serde_json::to_value(metadata).map_err(|e| CommandError::Internal(e.into()))?;
    let sql = "INSERT INTO package_jobs (id, package_sn, user_id, code_batch_id, code_serial,
                                         channel_id, metadata, status, created_at, user_facts,
                                         reserved)
               VALUES ($1, $2, $3, $4, $5, $6, $7, $10, $8, $9, true)";
    let code = job.code.as_ref();
    let facts = Json(facts);
    let params: [&(dyn tokio_postgres::types::ToSql + Sync); 10] = [
        &job.job_id,
        &job.package_sn,
        &job.user_id,
        &code.map(|c| c.batch_id),
        &code.map(|c| c.serial),
        &job.channel_id,
        &json,
        &now,
        &facts,
        &PackageJobStatus::Queued.as_str(),
    ];
    tx.execute(sql, &params).await?;
    Ok(())
}

/// A queued job, its row locked for the claim.
pub struct Job {
    pub id: Uuid,
    pub package_sn: PackageSn,
    pub user_id: UserId,
    pub code: Option<CodeRef>,
    /// The channel that asked; its coupons record it.
    pub channel_id: Option<ChannelId>,
    /// What the caller vouched for about the user.
    pub facts: UserFacts,
    /// The request's metadata; the claim's events carry it.
    pub metadata: Metadata,
    /// Whether its request took the claim's counts (`packages::reserve`).
    pub reserved: bool,
}

/// Locks the job; None when it is no longer queued (it ran, or its request
/// failed it), so a late or repeated message does nothing.
pub async fn start(tx: &Transaction<'_>, id: Uuid) -> Result<Option<Job>, CommandError> {
    let sql = "SELECT package_sn, user_id, code_batch_id, code_serial, metadata, status,
                      channel_id, user_facts, reserved
                 FROM package_jobs WHERE id = $1 FOR UPDATE";
    let row = tx
        .query_opt(sql, &[&id])
        .await?
        .ok_or_else(|| CommandError::not_found("package job", id))?;
    if row.try_get::<_, crate::db::Named<PackageJobStatus>>(5)?.0 != PackageJobStatus::Queued {
        return Ok(None);
    }
    let internal = |e: String| CommandError::Internal(anyhow::anyhow!("package job {id}: {e}"));
    let user_id = UserId::parse(row.get(1)).map_err(internal)?;
    let metadata = serde_json::from_value(row.get(4)).map_err(|e| internal(e.to_string()))?;
    let code = match (row.get(2), row.get(3)) {
        (Some(batch_id), Some(serial)) => Some(CodeRef { batch_id, serial }),
        _ => None,
    };
    Ok(Some(Job {
        id,
        package_sn: row.get(0),
        user_id,
        code,
        channel_id: row.get(6),
        metadata,
        facts: row
            .get::<_, Option<Json<UserFacts>>>(7)
            .map(|j| j.0)
            .unwrap_or_default(),
        reserved: row.get(8),
    }))
}

/// A claim the job wrote.
pub struct Claimed {
    pub coupons: Vec<CouponIssued>,
    /// The code (its batch and serial) whose last use the claim took: once
    /// committed, the caller marks it used up in Redis, as the request's
    /// path does, so repeats are refused there.
    pub used_up: Option<(Batch, i64)>,
}

/// What the claim came to.
pub enum Outcome {
    Done(Claimed),
    /// Refused as the synchronous path refuses: nothing of it was kept (a
    /// reserved claim's counts given back).
    Refused(CommandError),
    /// A reserved claim a template stopped or voided since its request
    /// cannot keep: nothing of it was kept, its counts given back.
    Failed(CommandError),
}

/// Runs the job's claim under a savepoint: issued, or refused or failed
/// with nothing kept (the caller records either with [`finish`]). A
/// failure (the database, a bug) is an error: the caller's transaction
/// rolls back and the message is tried again.
pub async fn run(
    tx: &Transaction<'_>,
    job: &Job,
    at: (DateTime<Utc>, Tz),
) -> Result<Outcome, CommandError> {
    tx.batch_execute("SAVEPOINT package_claim").await?;
    match claim(tx, job, at).await {
        Ok(claimed) => {
            tx.batch_execute("RELEASE SAVEPOINT package_claim").await?;
            Ok(Outcome::Done(claimed))
        }
        Err(refused) if refused.is_refusal() => {
            tx.batch_execute("ROLLBACK TO SAVEPOINT package_claim")
                .await?;
            if !job.reserved {
                return Ok(Outcome::Refused(refused));
            }
            let reason = refused.answer().map_or("refused", |a| a.code);
            let on = (&job.metadata, at.0);
            packages::release(tx, (&job.package_sn, job.id), &job.user_id, reason, on).await?;
            Ok(if package_coupons::is_withdrawn(&refused) {
                Outcome::Failed(refused)
            } else {
                Outcome::Refused(refused)
            })
        }
        Err(failed) => Err(failed),
    }
}

/// The synchronous path's claim: the package's counters and coupons, after
/// the code's counters for a code.
async fn claim(
    tx: &Transaction<'_>,
    job: &Job,
    (now, tz): (DateTime<Utc>, Tz),
) -> Result<Claimed, CommandError> {
    let metadata = Metadata {
        causation_id: Some(job.id.to_string()),
        ..job.metadata.clone()
    };
    if let Some(channel) = job.channel_id {
        refuse_if_disabled(tx, channel).await?;
    }
    let Some(code) = job.code else {
        // A package's claim is always a channel's (the route is signed).
        let channel = job.channel_id.ok_or_else(|| {
            CommandError::Internal(anyhow::anyhow!("package job {}: no channel", job.id))
        })?;
        let (sn, user) = (&job.package_sn, &job.user_id);
        let coupons = if job.reserved {
            let taken = packages::reserved(tx, sn, Some(channel)).await?;
            packages::issue_reserved(tx, &taken, user, (now, tz), &metadata)
                .await?
                .map_err(|w| w.refusal())?
        } else {
            let taken = packages::take(tx, sn, user, Giver::Channel(channel), now).await?;
            let who = (user, &job.facts);
            packages::issue(tx, &taken, who, (now, tz), &metadata).await?
        };
        return Ok(Claimed {
            coupons,
            used_up: None,
        });
    };
    let batch = code_batch_row::read(&**tx, code.batch_id)
        .await?
        .ok_or_else(|| CommandError::not_found("code batch", code.batch_id))?;
    if batch.package_sn.as_ref() != Some(&job.package_sn) {
        let bad = anyhow::anyhow!("package job {}: its code gives another package", job.id);
        return Err(CommandError::Internal(bad));
    }
    let req = RedeemRequest {
        batch: &batch,
        serial: code.serial,
        user_id: &job.user_id,
        facts: &job.facts,
        channel_id: job.channel_id,
        now,
        tz,
        reserved: job.reserved,
    };
    let redeemed = redeem::redeem(tx, &req, &metadata).await?;
    let last_use = redeemed.uses >= batch.uses_per_code;
    Ok(Claimed {
        coupons: redeemed.coupons,
        used_up: last_use.then_some((batch, code.serial)),
    })
}

/// A job its channel queued before being disabled is refused when it runs,
/// as the channel's request would be now (403 `channel_disabled`).
async fn refuse_if_disabled(tx: &Transaction<'_>, channel: ChannelId) -> Result<(), CommandError> {
    let sql = "SELECT status = $2 FROM channels WHERE id = $1";
    let disabled = ChannelStatus::Disabled.as_str();
    let row = tx.query_opt(sql, &[&channel, &disabled]).await?;
    if row.is_some_and(|r| r.get::<_, bool>(0)) {
        return Err(CommandError::ChannelDisabled(channel));
    }
    Ok(())
}

/// How a job ended.
pub enum Finished<'a> {
    Done(&'a [CouponIssued]),
    Refused(&'a Refusal),
    /// A reserved claim a template stopped or voided since its request.
    Failed(&'a Refusal),
}

/// Records how the job [`start`]ed in this transaction ended.
pub async fn finish(
    tx: &Transaction<'_>,
    id: Uuid,
    finished: Finished<'_>,
    now: DateTime<Utc>,
) -> Result<(), CommandError> {
    let updated = match finished {
        Finished::Done(coupons) => {
            let ids: Vec<Uuid> = coupons.iter().map(|c| c.coupon_id).collect();
            let sql = "UPDATE package_jobs SET status = $4, coupon_ids = $2, finished_at = $3
                        WHERE id = $1 AND status = $5";
            let (done, queued) = (
                PackageJobStatus::Done.as_str(),
                PackageJobStatus::Queued.as_str(),
            );
            tx.execute(sql, &[&id, &ids, &now, &done, &queued]).await?
        }
        Finished::Refused(refusal) => {
            set_error(&**tx, id, PackageJobStatus::Refused, refusal, now).await?
        }
        Finished::Failed(why) => set_error(&**tx, id, PackageJobStatus::Failed, why, now).await?,
    };
    if updated != 1 {
        let bad = anyhow::anyhow!("package job {id} was not queued when it finished");
        return Err(CommandError::Internal(bad));
    }
    Ok(())
}

/// Fails a job its request could not publish, giving its claim's counts
/// back; false when it is no longer queued (the worker got the message
/// after all, and ran it).
pub async fn fail(
    tx: &Transaction<'_>,
    id: Uuid,
    why: &Refusal,
    now: DateTime<Utc>,
) -> Result<bool, CommandError> {
    if set_error(&**tx, id, PackageJobStatus::Failed, why, now).await? != 1 {
        return Ok(false);
    }
    let sql = "SELECT package_sn, user_id, metadata FROM package_jobs WHERE id = $1 AND reserved";
    if let Some(row) = tx.query_opt(sql, &[&id]).await? {
        let bad = |e: String| CommandError::Internal(anyhow::anyhow!("package job {id}: {e}"));
        let user = UserId::parse(row.get(1)).map_err(bad)?;
        let metadata: Metadata =
            serde_json::from_value(row.get(2)).map_err(|e| bad(e.to_string()))?;
        let sn: PackageSn = row.get(0);
        packages::release(tx, (&sn, id), &user, &why.code, (&metadata, now)).await?;
    }
    Ok(true)
}

async fn set_error(
    client: &impl GenericClient,
    id: Uuid,
    status: PackageJobStatus,
    why: &Refusal,
    now: DateTime<Utc>,
) -> Result<u64, tokio_postgres::Error> {
    let sql = "UPDATE package_jobs SET status = $2, error_status = $3, error_code = $4,
                      error_message = $5, finished_at = $6
                WHERE id = $1 AND status = $7";
    let http = i16::try_from(why.status).unwrap_or(i16::MAX);
    let queued = PackageJobStatus::Queued.as_str();
    let params: [&(dyn tokio_postgres::types::ToSql + Sync); 7] = [
        &id,
        &status.as_str(),
        &http,
        &why.code,
        &why.message,
        &now,
        &queued,
    ];
    client.execute(sql, &params).await
}

/// Jobs still queued that were recorded before `before`, oldest first, at
/// most `limit`: those whose message may never have been published.
pub async fn stale(
    client: &impl GenericClient,
    before: DateTime<Utc>,
    limit: i64,
) -> Result<Vec<PackageJob>, tokio_postgres::Error> {
    // The status is written into the text, not bound: only a plan that
    // sees the value can use the partial index `package_jobs_queued`.
    static SQL: LazyLock<String> = LazyLock::new(|| {
        format!(
            "SELECT id, package_sn, user_id, code_batch_id, code_serial, channel_id
               FROM package_jobs
              WHERE status = '{queued}' AND created_at < $1
              ORDER BY created_at LIMIT $2",
            queued = PackageJobStatus::Queued.as_str()
        )
    });
    let rows = client.query(SQL.as_str(), &[&before, &limit]).await?;
    Ok(rows
        .iter()
        .map(|r| PackageJob {
            job_id: r.get(0),
            package_sn: r.get(1),
            user_id: r.get(2),
            code: r
                .get::<_, Option<Uuid>>(3)
                .zip(r.get::<_, Option<i64>>(4))
                .map(|(batch_id, serial)| CodeRef { batch_id, serial }),
            channel_id: r.get(5),
        })
        .collect())
}
