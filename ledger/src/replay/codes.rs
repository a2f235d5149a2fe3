//! Redemption codes and packages in `ledger replay --verify` (DESIGN §13):
//! their events folded into the tables (pure), and those tables compared
//! with the live ones: code batches, each code's uses (its stream's
//! version), the redemptions, each user's count of a batch, packages,
//! their claims per user and the channels that may give them out.

use tokio_postgres::types::Type;
use uuid::Uuid;

use super::fold::Event;
use super::live::{Line, Live, Query, debug, plain};
use super::tables::{
    ClaimsRow, CodeBatchRow, CodeRedemptionRow, CodeUseRow, CodeUserRow, PackageRow, Present,
    Tables,
};
use crate::domain::ledger_event::LedgerEvent;
use crate::domain::stream::Stream;

/// Folds one event of a code batch, a code or a package (other streams are
/// not this module's).
pub fn apply(t: &mut Tables, stream: Stream<'_>, e: &Event<'_>, event: &LedgerEvent) {
    match stream {
        Stream::CodeBatch(id) => batch(t, id, e, event),
        Stream::Code(batch, serial) => used(t, (batch, serial), e, event),
        Stream::Package(sn) => package(t, sn, e, event),
        _ => debug_assert!(false, "not a code or package stream: {stream}"),
    }
}

/// A batch's event.
fn batch(t: &mut Tables, id: Uuid, e: &Event<'_>, event: &LedgerEvent) {
    let row = t.code_batches.entry(id).or_default();
    row.version = e.version;
    match event {
        LedgerEvent::CodeBatchCreated(c) => {
            row.template_sn.clone_from(&c.template_sn);
            row.package_sn.clone_from(&c.package_sn);
            row.key_id.clone_from(&c.key_id);
            (row.first_serial, row.count) = (c.first_serial, c.count);
            (row.uses_per_code, row.per_user) = (c.uses_per_code, c.per_user);
            row.expires_at = c.expires_at;
            row.status = "active".into();
            row.created_at = e.occurred_at;
        }
        LedgerEvent::CodeBatchStopped(_) => row.status = "stopped".into(),
        _ => {}
    }
}

/// A package's event (a claim counts for its user too).
fn package(t: &mut Tables, sn: &str, e: &Event<'_>, event: &LedgerEvent) {
    let row = t.packages.entry(sn.to_owned()).or_default();
    row.version = e.version;
    match event {
        LedgerEvent::PackageCreated(c) => {
            row.name.clone_from(&c.name);
            row.items = serde_json::to_value(&c.items).unwrap_or_default();
            (row.total, row.per_user_limit) = (c.total, c.per_user_limit);
            (row.issue_begin, row.issue_end) = (c.issue_window.begin, c.issue_window.end);
            row.status = "draft".into();
            row.created_at = e.occurred_at;
        }
        LedgerEvent::PackageActivated(c) | LedgerEvent::PackageStopped(c) => {
            row.status = c.to.as_str().to_owned();
        }
        LedgerEvent::PackageClaimed(c) => {
            row.claimed += 1;
            let key = (sn.to_owned(), c.user_id.clone());
            t.package_claims.entry(key).or_default().claimed += 1;
        }
        LedgerEvent::PackageChannelAllowed(c) => {
            let key = (sn.to_owned(), c.channel_id);
            t.package_channels.insert(key, Present {});
        }
        _ => {}
    }
}

/// A code's use: its stream's version is its use count.
fn used(t: &mut Tables, (batch, serial): (Uuid, i64), e: &Event<'_>, event: &LedgerEvent) {
    let LedgerEvent::CodeRedeemed(r) = event else {
        return;
    };
    t.code_uses.entry((batch, serial)).or_default().uses = e.version;
    let row = CodeRedemptionRow {
        coupon_ids: r.coupon_ids.clone(),
        redeemed_at: e.occurred_at,
    };
    t.code_redemptions
        .insert((batch, serial, r.user_id.clone()), row);
    t.code_batch_users
        .entry((batch, r.user_id.clone()))
        .or_default()
        .redeemed += 1;
}

/// Compares the codes' and packages' tables with what the replay holds
/// (`t`, which it empties).
pub(super) async fn compare(
    c: &mut Live<'_, '_, '_>,
    t: &mut Tables,
) -> Result<(), tokio_postgres::Error> {
    let batches = &mut t.code_batches;
    c.table(
        "code_batches",
        CODE_BATCHES,
        plain(batch_row),
        batches,
        debug,
    )
    .await?;
    let uses = plain(|r| {
        Ok((
            (r.try_get(0)?, r.try_get(1)?),
            CodeUseRow {
                uses: r.try_get(2)?,
            },
        ))
    });
    c.table("code_uses", CODE_USES, uses, &mut t.code_uses, debug)
        .await?;
    let redemption = plain(|r| {
        let row = CodeRedemptionRow {
            coupon_ids: r.try_get(3)?,
            redeemed_at: r.try_get(4)?,
        };
        Ok(((r.try_get(0)?, r.try_get(1)?, r.try_get(2)?), row))
    });
    let all = &mut t.code_redemptions;
    c.table("code_redemptions", CODE_REDEMPTIONS, redemption, all, debug)
        .await?;
    let user = plain(|r| {
        let row = CodeUserRow {
            redeemed: r.try_get(2)?,
        };
        Ok(((r.try_get(0)?, r.try_get(1)?), row))
    });
    let all = &mut t.code_batch_users;
    c.table("code_batch_users", CODE_BATCH_USERS, user, all, debug)
        .await?;
    let packages = &mut t.packages;
    c.table("packages", PACKAGES, plain(package_row), packages, debug)
        .await?;
    let claims = plain(|r| {
        let row = ClaimsRow {
            claimed: r.try_get(2)?,
        };
        Ok(((r.try_get(0)?, r.try_get(1)?), row))
    });
    let all = &mut t.package_claims;
    c.table("package_claims", PACKAGE_CLAIMS, claims, all, debug)
        .await?;
    let present = plain(|r| Ok(((r.try_get(0)?, r.try_get(1)?), Present {})));
    let all = &mut t.package_channels;
    c.table("package_channels", PACKAGE_CHANNELS, present, all, debug)
        .await
}

fn package_row(r: &Line) -> Result<(String, PackageRow), tokio_postgres::Error> {
    let row = PackageRow {
        name: r.try_get(1)?,
        items: r.try_get(2)?,
        total: r.try_get(3)?,
        claimed: r.try_get(4)?,
        per_user_limit: r.try_get(5)?,
        issue_begin: r.try_get(6)?,
        issue_end: r.try_get(7)?,
        status: r.try_get(8)?,
        version: r.try_get(9)?,
        created_at: r.try_get(10)?,
    };
    Ok((r.try_get(0)?, row))
}

fn batch_row(r: &Line) -> Result<(Uuid, CodeBatchRow), tokio_postgres::Error> {
    let row = CodeBatchRow {
        template_sn: r.try_get(1)?,
        package_sn: r.try_get(2)?,
        key_id: r.try_get(3)?,
        first_serial: r.try_get(4)?,
        count: r.try_get(5)?,
        uses_per_code: r.try_get(6)?,
        per_user: r.try_get(7)?,
        status: r.try_get(8)?,
        expires_at: r.try_get(9)?,
        version: r.try_get(10)?,
        created_at: r.try_get(11)?,
    };
    Ok((r.try_get(0)?, row))
}

const CODE_BATCHES: Query = (
    "SELECT id, template_sn, package_sn, key_id, first_serial, count, uses_per_code, per_user,
            status, expires_at, version, created_at
       FROM code_batches",
    &[
        Type::UUID,
        Type::TEXT,
        Type::TEXT,
        Type::TEXT,
        Type::INT8,
        Type::INT8,
        Type::INT4,
        Type::INT4,
        Type::TEXT,
        Type::TIMESTAMPTZ,
        Type::INT4,
        Type::TIMESTAMPTZ,
    ],
);
const PACKAGES: Query = (
    "SELECT sn, name, items, total, claimed, per_user_limit, issue_begin, issue_end, status,
            version, created_at
       FROM packages",
    &[
        Type::TEXT,
        Type::TEXT,
        Type::JSONB,
        Type::INT8,
        Type::INT8,
        Type::INT4,
        Type::TIMESTAMPTZ,
        Type::TIMESTAMPTZ,
        Type::TEXT,
        Type::INT4,
        Type::TIMESTAMPTZ,
    ],
);
const PACKAGE_CLAIMS: Query = (
    "SELECT package_sn, user_id, claimed FROM package_claims",
    &[Type::TEXT, Type::TEXT, Type::INT4],
);
const PACKAGE_CHANNELS: Query = (
    "SELECT package_sn, channel_id FROM package_channels",
    &[Type::TEXT, Type::UUID],
);
const CODE_USES: Query = (
    "SELECT batch_id, serial, uses FROM code_uses",
    &[Type::UUID, Type::INT8, Type::INT4],
);
const CODE_REDEMPTIONS: Query = (
    "SELECT batch_id, serial, user_id, coupon_ids, redeemed_at FROM code_redemptions",
    &[
        Type::UUID,
        Type::INT8,
        Type::TEXT,
        Type::UUID_ARRAY,
        Type::TIMESTAMPTZ,
    ],
);
const CODE_BATCH_USERS: Query = (
    "SELECT batch_id, user_id, redeemed FROM code_batch_users",
    &[Type::UUID, Type::TEXT, Type::INT4],
);
