//! What a user can still claim from a channel (docs/design.md §15, "What
//! apps can read"): the templates a claim by this channel for this user
//! would be granted now, as far as the ledger knows the user.
//!
//! Postgres filters what it holds exactly (active, now in the issue window,
//! listed for the channel, stock left, the user under the limit, on the
//! allow-list when there is one); the rules the claim checks with the
//! domain's functions are checked here with the same ones (coupons not
//! already expired: `ValidityTerms::ended_by`; tags, region, new users:
//! `Eligibility::admits`), so the list and a claim cannot disagree on them.
//! Those run on at most [`MAX_CANDIDATES`] templates, newest first.

use chrono::{DateTime, Utc};
use serde::Serialize;
use tokio_postgres::GenericClient;
use utoipa::ToSchema;

use crate::domain::channel::ChannelStatus;
use crate::domain::eligibility::UserFacts;
use crate::domain::ids::{ChannelId, UserId};
use crate::domain::template_status::TemplateStatus;
use crate::domain::validity::ValidityTerms;
use crate::queries::page::Bounds;
use crate::queries::terms::{self, TemplateTerms};
use crate::write_model::RowError;

/// Largest page.
pub const MAX_PAGE: i64 = 200;
/// Most templates one answer considers: a channel's templates open at once
/// are a few dozen; past this the answer says `truncated`.
pub const MAX_CANDIDATES: i64 = 1_000;

/// A template the user can claim, with how many they hold of their limit.
#[derive(Serialize, ToSchema)]
pub struct ClaimableTemplate {
    #[serde(flatten)]
    pub terms: TemplateTerms,
    /// How many coupons of it one user may claim.
    pub per_user_limit: i32,
    /// How many this user has claimed (fewer than the limit).
    pub claimed: i32,
}

/// A page of what the user can claim, newest templates first, with the
/// count of all of them.
#[derive(Serialize, ToSchema)]
pub struct ClaimablePage {
    pub templates: Vec<ClaimableTemplate>,
    pub total: i64,
    pub offset: i64,
    pub limit: i64,
    /// More than 1,000 templates were open to the channel: only the newest
    /// 1,000 were considered.
    pub truncated: bool,
}

/// Who asks, through which channel, and at what instant.
pub struct Asker<'a> {
    pub user: &'a UserId,
    pub channel: ChannelId,
    pub facts: &'a UserFacts,
    pub now: DateTime<Utc>,
}

/// The page `bounds` of what `asker.user` can claim; None when the channel
/// does not exist. A disabled channel can claim nothing.
pub async fn claimable(
    client: &impl GenericClient,
    asker: &Asker<'_>,
    bounds: Bounds,
) -> Result<Option<ClaimablePage>, RowError> {
    let status = client
        .query_opt(
            "SELECT status FROM channels WHERE id = $1",
            &[&asker.channel],
        )
        .await?;
    let Some(status) = status else {
        return Ok(None);
    };
    let (mut open, truncated) = match status.try_get::<_, &str>(0)? {
        s if s == ChannelStatus::Active.as_str() => candidates(client, asker).await?,
        _ => (Vec::new(), false),
    };
    open.retain(|c| claimable_now(c, asker));
    let total = i64::try_from(open.len()).unwrap_or(i64::MAX);
    let skip = usize::try_from(bounds.offset).unwrap_or(usize::MAX);
    let take = usize::try_from(bounds.limit).unwrap_or(0);
    Ok(Some(ClaimablePage {
        templates: open.into_iter().skip(skip).take(take).collect(),
        total,
        offset: bounds.offset,
        limit: bounds.limit,
        truncated,
    }))
}

/// What the domain decides of a candidate: its coupons not already
/// expired, and the user's facts meeting its rules.
fn claimable_now(c: &ClaimableTemplate, asker: &Asker<'_>) -> bool {
    let ended = ValidityTerms::parse(&c.terms.validity).map_or(true, |v| v.ended_by(asker.now));
    let eligible = c
        .terms
        .eligibility
        .as_ref()
        .is_none_or(|e| e.admits(asker.facts).is_ok());
    !ended && eligible
}

/// The templates Postgres says the user can claim from the channel now,
/// newest first, at most [`MAX_CANDIDATES`], and whether there were more.
async fn candidates(
    client: &impl GenericClient,
    asker: &Asker<'_>,
) -> Result<(Vec<ClaimableTemplate>, bool), RowError> {
    let sql = format!(
        "SELECT {columns}, t.per_user_limit, coalesce(uc.claimed, 0)
           FROM template_channels tc
           JOIN templates t ON t.sn = tc.template_sn
           LEFT JOIN user_claims uc ON uc.template_sn = t.sn AND uc.user_id = $2
          WHERE tc.channel_id = $1
            AND t.status = $5 AND t.issue_begin <= $3 AND $3 <= t.issue_end
            AND t.issued < t.total
            AND coalesce(uc.claimed, 0) < t.per_user_limit
            AND (NOT coalesce((t.eligibility ->> 'allow_list')::boolean, false)
                 OR EXISTS (SELECT 1 FROM template_allow_list a
                             WHERE a.template_sn = t.sn AND a.user_id = $2))
          ORDER BY t.created_at DESC, t.sn DESC
          LIMIT $4",
        columns = terms::COLUMNS
    );
    let params: [&(dyn tokio_postgres::types::ToSql + Sync); 5] = [
        &asker.channel,
        &asker.user.as_str(),
        &asker.now,
        &(MAX_CANDIDATES + 1),
        &TemplateStatus::Active.as_str(),
    ];
    let rows = client.query(&sql, &params).await?;
    let truncated = rows.len() > usize::try_from(MAX_CANDIDATES).unwrap_or(usize::MAX);
    let mut open = Vec::with_capacity(rows.len());
    for row in rows
        .iter()
        .take(usize::try_from(MAX_CANDIDATES).unwrap_or(0))
    {
        open.push(ClaimableTemplate {
            terms: TemplateTerms::from_row(row)?,
            per_user_limit: row.try_get(terms::WIDTH)?,
            claimed: row.try_get(terms::WIDTH + 1)?,
        });
    }
    Ok((open, truncated))
}
