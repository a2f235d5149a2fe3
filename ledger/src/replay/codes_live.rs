//! Redemption codes and packages in `ledger replay --verify` (docs/design.md §13),
//! compared: the live tables (code batches, code uses, redemptions, each
//! user's count of a batch, packages, their claims per user and allowed
//! channels) read and matched against what [`super::codes_fold`] rebuilt,
//! with [`super::live`]'s streaming.

use tokio_postgres::Transaction;
use tokio_postgres::types::Type;
use uuid::Uuid;

use super::compare::Differences;
use super::live::{Line, Live, Query, debug, plain};
use super::tables::{
    ClaimsRow, CodeBatchRow, CodeRedemptionRow, CodeUseRow, CodeUserRow, PackageRow, Present,
    Tables,
};

/// Compares the codes' and packages' tables with what the replay holds
/// (`t`, which it empties).
pub async fn compare(
    tx: &Transaction<'_>,
    t: &mut Tables,
    out: &mut Differences,
) -> Result<(), tokio_postgres::Error> {
    let mut c = Live::unfiltered(tx, out);
    codes(&mut c, t).await?;
    packages(&mut c, t).await
}

/// Code batches, code uses, redemptions and each user's count of a batch.
async fn codes(c: &mut Live<'_, '_, '_>, t: &mut Tables) -> Result<(), tokio_postgres::Error> {
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
        .await
}

/// Packages, their claims per user and the channels allowed to give them.
async fn packages(c: &mut Live<'_, '_, '_>, t: &mut Tables) -> Result<(), tokio_postgres::Error> {
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
        passphrase: r.try_get(12)?,
        passphrase_key: r.try_get(13)?,
    };
    Ok((r.try_get(0)?, row))
}

const CODE_BATCHES: Query = (
    "SELECT id, template_sn, package_sn, key_id, first_serial, count, uses_per_code, per_user,
            status, expires_at, version, created_at, passphrase, passphrase_key
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
        Type::TEXT,
        Type::TEXT,
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
