//! Templates, their allow-lists, channels, totals and budgets in `ledger
//! replay --verify`, compared: the live tables read and matched against
//! what [`super::template_fold`] and the passes rebuilt, with
//! [`super::live`]'s streaming.

use rust_decimal::Decimal;
use tokio_postgres::types::Type;
use uuid::Uuid;

use super::live::{Line, Live, Query, cents, debug, plain};
use super::tables::{AllowListRow, BudgetRow, ChannelRow, Present, Tables, TemplateRow, TotalsRow};

/// Compares the templates' and channels' tables, which every pass added
/// to, with `t`'s (which it empties).
pub(super) async fn compare(
    c: &mut Live<'_, '_, '_>,
    t: &mut Tables,
) -> Result<(), tokio_postgres::Error> {
    let (templates, channels) = (&mut t.templates, &mut t.channels);
    c.table("templates", TEMPLATES, plain(template), templates, debug)
        .await?;
    c.table("channels", CHANNELS, plain(channel), channels, debug)
        .await?;
    let present = plain(|r| Ok(((r.try_get(0)?, r.try_get(1)?), Present {})));
    let allowed = &mut t.template_channels;
    c.table(
        "template_channels",
        TEMPLATE_CHANNELS,
        present,
        allowed,
        debug,
    )
    .await?;
    let totals = plain(|r| {
        let row = TotalsRow {
            issued: r.try_get(1)?,
            cost: cents(r.try_get(2)?),
        };
        Ok((r.try_get(0)?, row))
    });
    let all = &mut t.template_totals;
    c.table("template_totals", TEMPLATE_TOTALS, totals, all, debug)
        .await?;
    let budgets = &mut t.template_budgets;
    c.table(
        "template_budgets",
        TEMPLATE_BUDGETS,
        plain(budget),
        budgets,
        debug,
    )
    .await?;
    let lists = &mut t.allow_lists;
    c.table("allow_lists", ALLOW_LISTS, plain(allow_list), lists, debug)
        .await
}

const TEMPLATES: Query = (
    "SELECT sn, name, kind, currency, terms, face_value, issue_begin, issue_end, total, issued,
            per_user_limit, refund_policy, remind_days_before, status, version, created_at,
            rate_limit, eligibility, shop_id, description
       FROM templates",
    &[
        Type::TEXT,
        Type::TEXT,
        Type::TEXT,
        Type::TEXT,
        Type::JSONB,
        Type::NUMERIC,
        Type::TIMESTAMPTZ,
        Type::TIMESTAMPTZ,
        Type::INT8,
        Type::INT8,
        Type::INT4,
        Type::TEXT,
        Type::INT4_ARRAY,
        Type::TEXT,
        Type::INT4,
        Type::TIMESTAMPTZ,
        Type::JSONB,
        Type::JSONB,
        Type::TEXT,
        Type::TEXT,
    ],
);

/// Each allow-list with its members counted and digested in the database
/// (`tables::member_digest`, summed as numeric: no overflow).
const ALLOW_LISTS: Query = (
    "SELECT a.template_sn, a.version, a.members, count(m.user_id),
            coalesce(sum(('x' || left(encode(sha256(convert_to(m.user_id, 'UTF8')), 'hex'), 16))
                         ::bit(64)::bigint), 0)
       FROM allow_lists a LEFT JOIN template_allow_list m USING (template_sn)
      GROUP BY a.template_sn, a.version, a.members",
    &[
        Type::TEXT,
        Type::INT4,
        Type::INT8,
        Type::INT8,
        Type::NUMERIC,
    ],
);

const CHANNELS: Query = (
    "SELECT id, name, created_at, status, secret_created_at, previous_secret_valid_until,
            version FROM channels",
    &[
        Type::UUID,
        Type::TEXT,
        Type::TIMESTAMPTZ,
        Type::TEXT,
        Type::TIMESTAMPTZ,
        Type::TIMESTAMPTZ,
        Type::INT4,
    ],
);

const TEMPLATE_CHANNELS: Query = (
    "SELECT template_sn, channel_id FROM template_channels",
    &[Type::TEXT, Type::UUID],
);

const TEMPLATE_TOTALS: Query = (
    "SELECT template_sn, issued, cost FROM template_totals",
    &[Type::TEXT, Type::INT8, Type::NUMERIC],
);

const TEMPLATE_BUDGETS: Query = (
    "SELECT template_sn, total, daily, spent, reserved, day, day_spent, day_reserved
       FROM template_budgets",
    &[
        Type::TEXT,
        Type::NUMERIC,
        Type::NUMERIC,
        Type::NUMERIC,
        Type::NUMERIC,
        Type::DATE,
        Type::NUMERIC,
        Type::NUMERIC,
    ],
);

fn template(r: &Line) -> Result<(String, TemplateRow), tokio_postgres::Error> {
    let row = TemplateRow {
        name: r.try_get(1)?,
        kind: r.try_get(2)?,
        currency: r.try_get(3)?,
        terms: r.try_get(4)?,
        face_value: cents(r.try_get(5)?),
        issue_begin: r.try_get(6)?,
        issue_end: r.try_get(7)?,
        total: r.try_get(8)?,
        issued: r.try_get(9)?,
        per_user_limit: r.try_get(10)?,
        refund_policy: r.try_get(11)?,
        remind_days_before: r.try_get(12)?,
        status: r.try_get(13)?,
        version: r.try_get(14)?,
        created_at: r.try_get(15)?,
        rate_limit: r.try_get(16)?,
        eligibility: r.try_get(17)?,
        shop_id: r.try_get(18)?,
        description: r.try_get(19)?,
    };
    Ok((r.try_get(0)?, row))
}

fn allow_list(r: &Line) -> Result<(String, AllowListRow), tokio_postgres::Error> {
    use rust_decimal::prelude::ToPrimitive;
    let digest: rust_decimal::Decimal = r.try_get(4)?;
    let row = AllowListRow {
        version: r.try_get(1)?,
        members: r.try_get(2)?,
        counted: r.try_get(3)?,
        // A sum of at most 10M 64-bit values fits; none other is stored.
        digest: digest.to_i128().unwrap_or(i128::MAX),
    };
    Ok((r.try_get(0)?, row))
}

fn channel(r: &Line) -> Result<(Uuid, ChannelRow), tokio_postgres::Error> {
    let row = ChannelRow {
        name: r.try_get(1)?,
        created_at: r.try_get(2)?,
        status: r.try_get(3)?,
        secret_created_at: r.try_get(4)?,
        previous_secret_valid_until: r.try_get(5)?,
        version: r.try_get(6)?,
    };
    Ok((r.try_get(0)?, row))
}

fn budget(r: &Line) -> Result<(String, BudgetRow), tokio_postgres::Error> {
    let row = BudgetRow {
        total: cents(r.try_get(1)?),
        daily: r.try_get::<Option<Decimal>>(2)?.map(cents),
        spent: cents(r.try_get(3)?),
        reserved: cents(r.try_get(4)?),
        day: r.try_get(5)?,
        day_spent: cents(r.try_get(6)?),
        day_reserved: cents(r.try_get(7)?),
    };
    Ok((r.try_get(0)?, row))
}
