//! Coupon packages (券包, docs/design.md §13): several templates' coupons at once,
//! all or nothing. A claim takes, in one transaction and in this order: the
//! package's counter (`claimed < total`, and for a channel's claim the
//! channel on the package's list, 403), the user's count of it
//! (`per_user_limit`), [a code's counter, when a code asked: see `redeem`],
//! then each item's coupons through the template's own claim guards (its
//! per-user limit and quota, see `package_coupons`). Any refusal rolls back
//! everything. A claim of a package of more than `MAX_SYNC` coupons takes
//! the same counts in its request ([`reserve`]) and its coupons are written
//! by the issuance worker ([`issue_reserved`], `package_job`), or its counts
//! given back ([`release`]). Every coupon records the channel that gave it
//! out ([`Giver`]).

use chrono::{DateTime, Utc};
use chrono_tz::Tz;
use deadpool_postgres::Transaction;

use super::{CommandError, package_coupons};
use crate::db::Named;
use crate::domain::eligibility::UserFacts;
use crate::domain::events::{
    CouponIssued, IssueWindow, Metadata, PackageChannelAllowed, PackageClaimReleased,
    PackageClaimReserved, PackageClaimed, PackageCreated, PackageItem, PackageStatusChanged,
};
use crate::domain::ids::ChannelId;
use crate::domain::ids::{PackageSn, UserId};
use crate::domain::ledger_event::LedgerEvent;
use crate::domain::package::PackageStatus;
use crate::domain::stream::StreamKind;
use crate::domain::template_status::TemplateStatus;
use crate::store::{self, NewEvent};
use crate::write_model::package_row::{Package, read};

pub use crate::domain::package::{Giver, MAX_CHANNELS, MAX_COUPONS};

pub struct NewPackage<'a> {
    pub name: &'a str,
    pub items: &'a [PackageItem],
    pub total: i64,
    pub per_user_limit: i32,
    pub issue_window: (DateTime<Utc>, DateTime<Utc>),
    /// Channels allowed at once (each a `PackageChannelAllowed`).
    pub channels: &'a [ChannelId],
}

fn unprocessable(code: &'static str, why: String) -> CommandError {
    CommandError::Unprocessable(code, why)
}

pub async fn create(
    tx: &Transaction<'_>,
    new: &NewPackage<'_>,
    metadata: &Metadata,
    now: DateTime<Utc>,
) -> Result<Package, CommandError> {
    for item in new.items {
        check_item(tx, item).await?;
    }
    let sn = PackageSn::generate();
    let items = serde_json::to_value(new.items).map_err(|e| CommandError::Internal(e.into()))?;
    let (begin, end) = new.issue_window;
    tx.execute(
        "INSERT INTO packages (sn, name, items, total, per_user_limit, issue_begin, issue_end,
                               status, version, created_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $9, 1, $8)",
        &[
            &sn,
            &new.name,
            &items,
            &new.total,
            &new.per_user_limit,
            &begin,
            &end,
            &now,
            &PackageStatus::Draft.as_str(),
        ],
    )
    .await?;
    let event = LedgerEvent::PackageCreated(PackageCreated {
        sn: sn.clone(),
        name: new.name.to_owned(),
        items: new.items.to_vec(),
        total: new.total,
        per_user_limit: new.per_user_limit,
        issue_window: IssueWindow { begin, end },
    });
    append(tx, &sn, 0, &event, metadata, now).await?;
    let mut version = 1;
    for &channel_id in new.channels {
        let added = add_channel(tx, &sn, version, channel_id, metadata, now).await;
        if added.map_err(|e| unknown_channel(e, channel_id))? {
            version += 1;
        }
    }
    if version > 1 {
        let sql = "UPDATE packages SET version = $2 WHERE sn = $1";
        tx.execute(sql, &[&sn, &version]).await?;
    }
    read(&**tx, &sn)
        .await?
        .ok_or_else(|| CommandError::not_found("package", &sn))
}

/// A channel the new package's body lists that does not exist is the
/// body's fault (422, as an unknown item template), not a missing route.
fn unknown_channel(e: CommandError, channel_id: ChannelId) -> CommandError {
    match e {
        CommandError::NotFound(..) => {
            let why = format!("channel {channel_id} does not exist");
            unprocessable("unknown_channel", why)
        }
        other => other,
    }
}

/// Allows `channel_id` to claim the package; allowing it twice changes
/// nothing. 404 for an unknown package or channel.
pub async fn allow_channel(
    tx: &Transaction<'_>,
    sn: &PackageSn,
    channel_id: ChannelId,
    metadata: &Metadata,
    now: DateTime<Utc>,
) -> Result<Package, CommandError> {
    let sql = "SELECT version FROM packages WHERE sn = $1 FOR UPDATE";
    let version: i32 = tx
        .query_opt(sql, &[&sn])
        .await?
        .ok_or_else(|| CommandError::not_found("package", sn))?
        .get(0);
    if add_channel(tx, sn, version, channel_id, metadata, now).await? {
        let sql = "UPDATE packages SET version = version + 1 WHERE sn = $1";
        tx.execute(sql, &[&sn]).await?;
    }
    read(&**tx, sn)
        .await?
        .ok_or_else(|| CommandError::not_found("package", sn))
}

/// Lists the channel and appends its `PackageChannelAllowed` after stream
/// version `version`; false (and no event) when it was listed already.
/// The caller records the package row's new version.
async fn add_channel(
    tx: &Transaction<'_>,
    sn: &PackageSn,
    version: i32,
    channel_id: ChannelId,
    metadata: &Metadata,
    now: DateTime<Utc>,
) -> Result<bool, CommandError> {
    let exists = "SELECT 1 FROM channels WHERE id = $1";
    if tx.query_opt(exists, &[&channel_id]).await?.is_none() {
        return Err(CommandError::not_found("channel", channel_id));
    }
    let sql = "INSERT INTO package_channels (package_sn, channel_id) VALUES ($1, $2)
               ON CONFLICT DO NOTHING";
    if tx.execute(sql, &[&sn, &channel_id]).await? == 0 {
        return Ok(false);
    }
    let event = LedgerEvent::PackageChannelAllowed(PackageChannelAllowed {
        sn: sn.clone(),
        channel_id,
    });
    append(tx, sn, version, &event, metadata, now).await?;
    Ok(true)
}

/// An item's template exists, is not void, and lets one user hold `count`.
async fn check_item(tx: &Transaction<'_>, item: &PackageItem) -> Result<(), CommandError> {
    let sql = "SELECT status, per_user_limit FROM templates WHERE sn = $1";
    let Some(row) = tx.query_opt(sql, &[&item.template_sn]).await? else {
        let why = format!("template {} does not exist", item.template_sn);
        return Err(unprocessable("unknown_template", why));
    };
    let crate::db::Named::<TemplateStatus>(status) = row.try_get(0)?;
    let limit: i32 = row.get(1);
    if status == TemplateStatus::Void {
        let why = format!("template {} is void", item.template_sn);
        return Err(unprocessable("template_status", why));
    }
    if item.count > limit {
        let why = format!(
            "template {} lets a user hold {limit}, fewer than the item's {}",
            item.template_sn, item.count
        );
        return Err(unprocessable("item_over_user_limit", why));
    }
    Ok(())
}

async fn append(
    tx: &Transaction<'_>,
    sn: &PackageSn,
    expected: i32,
    event: &LedgerEvent,
    metadata: &Metadata,
    now: DateTime<Utc>,
) -> Result<(), CommandError> {
    let stream = StreamKind::Package.id(sn);
    store::append(
        tx,
        &stream,
        expected,
        &[NewEvent::of(event, metadata, now)?],
    )
    .await?;
    Ok(())
}

/// Activates (`active`) or stops (`stopped`) a package; the same status
/// again changes nothing.
pub async fn set_status(
    tx: &Transaction<'_>,
    sn: &PackageSn,
    to: PackageStatus,
    metadata: &Metadata,
    now: DateTime<Utc>,
) -> Result<Package, CommandError> {
    debug_assert!(
        to != PackageStatus::Draft,
        "a package never goes back to draft"
    );
    let sql = "SELECT status, version FROM packages WHERE sn = $1 FOR UPDATE";
    let row = tx
        .query_opt(sql, &[&sn])
        .await?
        .ok_or_else(|| CommandError::not_found("package", sn))?;
    let from = row.try_get::<_, Named<PackageStatus>>(0)?.0;
    let version: i32 = row.get(1);
    if from != to {
        tx.execute(
            "UPDATE packages SET status = $2, version = version + 1 WHERE sn = $1",
            &[&sn, &to.as_str()],
        )
        .await?;
        let changed = PackageStatusChanged {
            sn: sn.clone(),
            from,
            to,
        };
        let event = if to == PackageStatus::Active {
            LedgerEvent::PackageActivated(changed)
        } else {
            LedgerEvent::PackageStopped(changed)
        };
        append(tx, sn, version, &event, metadata, now).await?;
    }
    read(&**tx, sn)
        .await?
        .ok_or_else(|| CommandError::not_found("package", sn))
}

/// A package's claim: the counters taken, ready for its coupons.
pub struct Taken {
    pub sn: PackageSn,
    pub items: Vec<PackageItem>,
    /// The channel its coupons record ([`Giver::channel`]).
    pub channel_id: Option<ChannelId>,
    /// The package stream's version after the claim's event.
    pub version: i32,
}

/// The package's counter (a channel's claim: with the channel on the
/// package's list) and the user's count, both guarded.
pub async fn take(
    tx: &Transaction<'_>,
    sn: &PackageSn,
    user: &UserId,
    giver: Giver,
    now: DateTime<Utc>,
) -> Result<Taken, CommandError> {
    let sql = "UPDATE packages SET claimed = claimed + 1, version = version + 1
                WHERE sn = $1 AND status = $4 AND claimed < total
                  AND issue_begin <= $2 AND $2 < issue_end
                  AND ($3::uuid IS NULL OR EXISTS (SELECT 1 FROM package_channels
                        WHERE package_sn = $1 AND channel_id = $3))
               RETURNING items, version, per_user_limit";
    let active = PackageStatus::Active.as_str();
    let params: [&(dyn tokio_postgres::types::ToSql + Sync); 4] =
        [&sn, &now, &giver.checked(), &active];
    let Some(row) = tx
        .query_opt(&tx.prepare_cached(sql).await?, &params)
        .await?
    else {
        return Err(why_not(tx, sn, giver, now).await?);
    };
    let items = items_of(&row)?;
    let per_user = "INSERT INTO package_claims AS c (package_sn, user_id, claimed)
                    VALUES ($1, $2, 1)
                    ON CONFLICT (package_sn, user_id) DO UPDATE SET claimed = c.claimed + 1
                     WHERE c.claimed < $3
                    RETURNING claimed";
    let limit: i32 = row.get(2);
    let params: [&(dyn tokio_postgres::types::ToSql + Sync); 3] = [&sn, &user.as_str(), &limit];
    if tx
        .query_opt(&tx.prepare_cached(per_user).await?, &params)
        .await?
        .is_none()
    {
        return Err(at_user_limit());
    }
    Ok(Taken {
        sn: sn.clone(),
        items,
        channel_id: giver.channel(),
        version: row.get(1),
    })
}

/// Why a package's counter was not taken: 404, 403, 422 or 410.
async fn why_not(
    tx: &Transaction<'_>,
    sn: &PackageSn,
    giver: Giver,
    now: DateTime<Utc>,
) -> Result<CommandError, CommandError> {
    let Some(p) = read(&**tx, sn).await? else {
        return Ok(CommandError::not_found("package", sn));
    };
    // Not refused as read: the counter was taken by a claim since.
    Ok(refusal(&p, giver, now).unwrap_or_else(sold_out))
}

/// Why a claim of the package would be refused now, as `p` reads (403,
/// 422, 410), if it would: what the counter's guard in [`take`] checks, the
/// channel first, as a template's claim checks it.
pub fn refusal(p: &Package, giver: Giver, now: DateTime<Utc>) -> Option<CommandError> {
    if !giver.allowed(&p.channels) {
        let why = "this channel may not give out this package".to_owned();
        Some(CommandError::Forbidden(why))
    } else if p.status != PackageStatus::Active {
        let why = format!("the package is {}", p.status);
        Some(unprocessable("package_not_active", why))
    } else if now < p.issue_window.0 || now >= p.issue_window.1 {
        let why = "the package does not issue now".into();
        Some(unprocessable("outside_issue_window", why))
    } else if p.claimed >= p.total {
        Some(sold_out())
    } else {
        None
    }
}

fn sold_out() -> CommandError {
    CommandError::SoldOut("the package is sold out".into())
}

fn at_user_limit() -> CommandError {
    let why = "the user holds the package's per-user limit".to_owned();
    CommandError::Conflict("per_user_limit", why)
}

/// Each item's coupons through its template's claim guards, then the
/// package's `PackageClaimed`.
pub async fn issue(
    tx: &Transaction<'_>,
    taken: &Taken,
    (user, facts): (&UserId, &UserFacts),
    at: (DateTime<Utc>, Tz),
    metadata: &Metadata,
) -> Result<Vec<CouponIssued>, CommandError> {
    let (items, channel) = (&taken.items, taken.channel_id);
    let who = (user, facts, channel);
    let coupons = package_coupons::issue(tx, items, who, at, metadata).await?;
    let event = LedgerEvent::PackageClaimed(PackageClaimed {
        sn: taken.sn.clone(),
        user_id: user.clone(),
        coupon_ids: coupons.iter().map(|c| c.coupon_id).collect(),
    });
    append(tx, &taken.sn, taken.version - 1, &event, metadata, at.0).await?;
    Ok(coupons)
}

/// A large package's claim, counted in its request (docs/design.md §13,
/// "Large packages keep their promise"): after [`take`] (the package's
/// counter and the user's count, the same guards as a claim answered at
/// once), every count its coupons need ([`package_coupons::reserve`]), and
/// the package's `PackageClaimReserved` naming the job that will write it.
pub async fn reserve(
    tx: &Transaction<'_>,
    (taken, job_id): (&Taken, uuid::Uuid),
    (user, facts): (&UserId, &UserFacts),
    (metadata, now): (&Metadata, DateTime<Utc>),
) -> Result<(), CommandError> {
    package_coupons::reserve(tx, &taken.items, (user, facts), now).await?;
    let event = LedgerEvent::PackageClaimReserved(PackageClaimReserved {
        sn: taken.sn.clone(),
        user_id: user.clone(),
        job_id,
    });
    append(tx, &taken.sn, taken.version - 1, &event, metadata, now).await
}

/// The package as a reserved claim's job finds it: its items (read, not
/// locked: the job takes the package's row only after its coupons).
pub async fn reserved(
    tx: &Transaction<'_>,
    sn: &PackageSn,
    channel_id: Option<ChannelId>,
) -> Result<Taken, CommandError> {
    let sql = "SELECT items, version FROM packages WHERE sn = $1";
    let row = tx
        .query_opt(sql, &[&sn])
        .await?
        .ok_or_else(|| CommandError::not_found("package", sn))?;
    let items = items_of(&row)?;
    Ok(Taken {
        sn: sn.clone(),
        items,
        channel_id,
        version: row.get(1),
    })
}

/// Writes a reserved claim's coupons (nothing taken again) and the
/// package's `PackageClaimed`; a template stopped or voided since the
/// request is [`package_coupons::Withdrawn`], with the caller to roll back.
/// The package's row, then the templates', are locked after the coupons
/// are written, in the order a claim's request takes them, so a job and
/// the requests of its package cannot deadlock.
pub async fn issue_reserved(
    tx: &Transaction<'_>,
    taken: &Taken,
    user: &UserId,
    at: (DateTime<Utc>, Tz),
    metadata: &Metadata,
) -> Result<Result<Vec<CouponIssued>, package_coupons::Withdrawn>, CommandError> {
    let (items, who) = (&taken.items, (user, taken.channel_id));
    let coupons = package_coupons::write_reserved(tx, items, who, at, metadata).await?;
    let sql = "UPDATE packages SET version = version + 1 WHERE sn = $1 RETURNING version";
    let version: i32 = tx.query_one(sql, &[&taken.sn]).await?.get(0);
    if let Some(withdrawn) = package_coupons::withdrawn(tx, items).await? {
        return Ok(Err(withdrawn));
    }
    let event = LedgerEvent::PackageClaimed(PackageClaimed {
        sn: taken.sn.clone(),
        user_id: user.clone(),
        coupon_ids: coupons.iter().map(|c| c.coupon_id).collect(),
    });
    append(tx, &taken.sn, version - 1, &event, metadata, at.0).await?;
    Ok(Ok(coupons))
}

/// Gives a reserved claim's counts back (the package's counter, the user's
/// count of it, and the templates' counts) with the package's
/// `PackageClaimReleased`, saying why (`reason`, an error code).
pub async fn release(
    tx: &Transaction<'_>,
    (sn, job_id): (&PackageSn, uuid::Uuid),
    user: &UserId,
    reason: &str,
    (metadata, now): (&Metadata, DateTime<Utc>),
) -> Result<(), CommandError> {
    let sql = "UPDATE packages SET claimed = claimed - 1, version = version + 1 WHERE sn = $1
               RETURNING items, version";
    let row = tx
        .query_opt(sql, &[&sn])
        .await?
        .ok_or_else(|| CommandError::not_found("package", sn))?;
    let items = items_of(&row)?;
    // A user's row holds at least one claim (V15): the last one goes with it.
    let per_user = "WITH gone AS (DELETE FROM package_claims
                                   WHERE package_sn = $1 AND user_id = $2 AND claimed = 1)
                    UPDATE package_claims SET claimed = claimed - 1
                     WHERE package_sn = $1 AND user_id = $2 AND claimed > 1";
    tx.execute(per_user, &[&sn, &user.as_str()]).await?;
    package_coupons::give_back(tx, &items, user).await?;
    let event = LedgerEvent::PackageClaimReleased(PackageClaimReleased {
        sn: sn.clone(),
        user_id: user.clone(),
        job_id,
        reason: reason.to_owned(),
    });
    append(tx, sn, row.get::<_, i32>(1) - 1, &event, metadata, now).await
}

/// A package's items, from the first column of `row` (stored by `create`:
/// unreadable only through a bug or a hand edit).
fn items_of(row: &tokio_postgres::Row) -> Result<Vec<PackageItem>, CommandError> {
    serde_json::from_value(row.get(0)).map_err(|e| CommandError::Internal(e.into()))
}
