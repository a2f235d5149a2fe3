//! Redeeming a code (docs/design.md §13), in one transaction, guards in the design's
//! order: a package's counters (for a package's code, see `packages`), the
//! code's use counter (`uses < uses_per_code`: a used-up code is
//! 410 whoever asks, as the Redis bitmap answers it), the user's count of
//! the batch's codes (`per_user`, 409), then the template's own claim guards
//! (its per-user limit and quota) and its coupon (each item's, for a
//! package), and last the (code, user)
//! pair, unique (409). Any refusal rolls everything back.

use chrono::{DateTime, Utc};
use chrono_tz::Tz;
use deadpool_postgres::Transaction;
use tokio_postgres::GenericClient;

use super::CommandError;
use super::claim::{self, ClaimRequest};
use super::code_batches;
use super::packages::{self, Giver};
use crate::domain::code_batch::CodeBatchStatus;
use crate::domain::eligibility::UserFacts;
use crate::domain::events::{CodeRedeemed, CodeRef, CouponIssued, Metadata};
use crate::domain::ids::ChannelId;
use crate::domain::ids::{TemplateSn, UserId};
use crate::domain::ledger_event::LedgerEvent;
use crate::domain::stream::Stream;
use crate::store::{self, NewEvent};
use crate::write_model::code_batch_row::Batch;

pub struct RedeemRequest<'a> {
    pub batch: &'a Batch,
    pub serial: i64,
    pub user_id: &'a UserId,
    /// What the caller vouches for about the user (docs/design.md §15).
    pub facts: &'a UserFacts,
    /// The channel that redeems (None: the service). A package's coupons
    /// record it (the code is the grant: no list is checked). A template's
    /// code is claimed with no channel, as it always was: passing this one
    /// would also check it against the template's list.
    pub channel_id: Option<ChannelId>,
    pub now: DateTime<Utc>,
    pub tz: Tz,
    /// A large package's code whose request already counted the package's
    /// claim (`packages::reserve`): its job takes only the code's own
    /// counters and writes the coupons (docs/design.md §13).
    pub reserved: bool,
}

/// A redemption's coupons (one for a template's code), and the code's uses
/// after it.
pub struct Redeemed {
    pub coupons: Vec<CouponIssued>,
    pub uses: i32,
}

pub async fn redeem(
    tx: &Transaction<'_>,
    req: &RedeemRequest<'_>,
    metadata: &Metadata,
) -> Result<Redeemed, CommandError> {
    let batch = req.batch;
    debug_assert!(batch.holds(req.serial));
    open(&code_batches::current(tx, batch).await?, req.now)?;
    let metadata = Metadata {
        code: Some(CodeRef {
            batch_id: batch.id,
            serial: req.serial,
        }),
        ..metadata.clone()
    };
    let package = match &batch.package_sn {
        Some(sn) if req.reserved => Some(packages::reserved(tx, sn, req.channel_id).await?),
        Some(sn) => {
            let giver = Giver::Code(req.channel_id);
            Some(packages::take(tx, sn, req.user_id, giver, req.now).await?)
        }
        None => None,
    };
    let uses = use_code(tx, req).await?;
    count_user(tx, req).await?;
    let at = (req.now, req.tz);
    let coupons = match (package, &batch.template_sn) {
        (Some(taken), _) if req.reserved => {
            packages::issue_reserved(tx, &taken, req.user_id, at, &metadata)
                .await?
                .map_err(|w| w.refusal())?
        }
        (Some(taken), _) => {
            packages::issue(tx, &taken, (req.user_id, req.facts), at, &metadata).await?
        }
        (None, Some(sn)) => vec![template_coupon(tx, req, sn, &metadata).await?],
        (None, None) => {
            let bad = anyhow::anyhow!("code batch {} gives nothing", batch.id);
            return Err(CommandError::Internal(bad));
        }
    };
    record(tx, req, &coupons, uses, &metadata).await?;
    Ok(Redeemed { coupons, uses })
}

async fn template_coupon(
    tx: &Transaction<'_>,
    req: &RedeemRequest<'_>,
    template_sn: &TemplateSn,
    metadata: &Metadata,
) -> Result<CouponIssued, CommandError> {
    let claim = ClaimRequest {
        template_sn,
        user_id: req.user_id,
        facts: req.facts,
        channel_id: None,
        now: req.now,
        tz: req.tz,
    };
    claim::claim(tx, &claim, metadata).await
}

/// A stopped or expired batch refuses its codes (422).
pub(crate) fn open(batch: &Batch, now: DateTime<Utc>) -> Result<(), CommandError> {
    if batch.status == CodeBatchStatus::Stopped {
        let why = "the code's batch is stopped".to_owned();
        return Err(CommandError::Unprocessable("code_batch_stopped", why));
    }
    if batch.expires_at.is_some_and(|end| now >= end) {
        let why = "the code's batch has expired".to_owned();
        return Err(CommandError::Unprocessable("code_batch_expired", why));
    }
    Ok(())
}

/// What can be told of a code before its package's claim is queued
/// (`package_job`), in the order [`redeem`]'s guards take them: the code
/// has a use left (410), the user is under the batch's `per_user` (409)
/// and has not redeemed this code (409), as the read sees it; the guards
/// decide when the claim runs.
pub(crate) async fn precheck(
    client: &impl GenericClient,
    batch: &Batch,
    serial: i64,
    user: &UserId,
) -> Result<(), CommandError> {
    let sql = "SELECT (SELECT uses FROM code_uses WHERE batch_id = $1 AND serial = $2),
                      (SELECT redeemed FROM code_batch_users WHERE batch_id = $1 AND user_id = $3),
                      EXISTS (SELECT 1 FROM code_redemptions
                               WHERE batch_id = $1 AND serial = $2 AND user_id = $3)";
    let row = client
        .query_one(sql, &[&batch.id, &serial, &user.as_str()])
        .await?;
    if row.get::<_, Option<i32>>(0).unwrap_or(0) >= batch.uses_per_code {
        return Err(used_up());
    }
    let redeemed = row.get::<_, Option<i32>>(1).unwrap_or(0);
    if redeemed >= batch.per_user || row.get::<_, bool>(2) {
        return Err(already_redeemed(batch.per_user));
    }
    Ok(())
}

/// The user may redeem at most `per_user` codes of the batch (409).
async fn count_user(tx: &Transaction<'_>, req: &RedeemRequest<'_>) -> Result<(), CommandError> {
    let sql = "INSERT INTO code_batch_users AS u (batch_id, user_id, redeemed) VALUES ($1, $2, 1)
               ON CONFLICT (batch_id, user_id) DO UPDATE SET redeemed = u.redeemed + 1
                WHERE u.redeemed < $3
               RETURNING redeemed";
    let params: [&(dyn tokio_postgres::types::ToSql + Sync); 3] =
        [&req.batch.id, &req.user_id.as_str(), &req.batch.per_user];
    if tx
        .query_opt(&tx.prepare_cached(sql).await?, &params)
        .await?
        .is_none()
    {
        return Err(already_redeemed(req.batch.per_user));
    }
    Ok(())
}

fn used_up() -> CommandError {
    CommandError::SoldOut("the code is used up".into())
}

fn already_redeemed(per_user: i32) -> CommandError {
    let why = if per_user == 1 {
        "the user already redeemed a code of this batch".to_owned()
    } else {
        format!("the user already redeemed this code, or {per_user} codes of its batch")
    };
    CommandError::Conflict("already_redeemed", why)
}

/// One use of the code, unless it has none left (410).
async fn use_code(tx: &Transaction<'_>, req: &RedeemRequest<'_>) -> Result<i32, CommandError> {
    let sql = "INSERT INTO code_uses AS c (batch_id, serial, uses) VALUES ($1, $2, 1)
               ON CONFLICT (batch_id, serial) DO UPDATE SET uses = c.uses + 1
                WHERE c.uses < $3
               RETURNING uses";
    let params: [&(dyn tokio_postgres::types::ToSql + Sync); 3] =
        [&req.batch.id, &req.serial, &req.batch.uses_per_code];
    let row = tx
        .query_opt(&tx.prepare_cached(sql).await?, &params)
        .await?;
    let uses: i32 = row.ok_or_else(used_up)?.get(0);
    debug_assert!(uses >= 1 && uses <= req.batch.uses_per_code);
    Ok(uses)
}

/// The (code, user) pair and the `CodeRedeemed` event
/// (the code's stream's version is its use count).
async fn record(
    tx: &Transaction<'_>,
    req: &RedeemRequest<'_>,
    coupons: &[CouponIssued],
    uses: i32,
    metadata: &Metadata,
) -> Result<(), CommandError> {
    let ids: Vec<uuid::Uuid> = coupons.iter().map(|c| c.coupon_id).collect();
    let pair = "INSERT INTO code_redemptions (batch_id, serial, user_id, coupon_ids, redeemed_at)
                VALUES ($1, $2, $3, $4, $5) ON CONFLICT DO NOTHING";
    let params: [&(dyn tokio_postgres::types::ToSql + Sync); 5] = [
        &req.batch.id,
        &req.serial,
        &req.user_id.as_str(),
        &ids,
        &req.now,
    ];
    if tx.execute(&tx.prepare_cached(pair).await?, &params).await? == 0 {
        return Err(already_redeemed(req.batch.per_user));
    }
    let event = LedgerEvent::CodeRedeemed(CodeRedeemed {
        batch_id: req.batch.id,
        serial: req.serial,
        user_id: req.user_id.clone(),
        coupon_ids: ids.clone(),
    });
    let stream = Stream::Code(req.batch.id, req.serial).to_string();
    store::append(
        tx,
        &stream,
        uses - 1,
        &[NewEvent::of(&event, metadata, req.now)?],
    )
    .await?;
    Ok(())
}
