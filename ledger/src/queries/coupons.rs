use chrono::{DateTime, Utc};
use serde::Serialize;
use serde_json::Value;
use tokio_postgres::types::ToSql;
use tokio_postgres::{GenericClient, Row};
use utoipa::ToSchema;
use uuid::Uuid;

use crate::cold;
use crate::db::Named;
use crate::domain::coupon::Coupon;
use crate::domain::coupon_state::CouponStatus;
use crate::domain::ids::ChannelId;
use crate::domain::ids::{ShopId, TemplateSn, UserId};
use crate::domain::money::Money;
use crate::domain::order::Order;
use crate::domain::stream::StreamKind;
use crate::domain::template_status::TemplateStatus;
use crate::domain::terms::Kind;
use crate::store::{self, RecordedEvent};
use crate::write_model::RowError;
use crate::write_model::coupon_row::{CouponRow, SELECT};

/// Most events of one stream's history returned (a coupon's, a template's).
const MAX_HISTORY: i64 = 1_000;

/// A coupon as the API shows it (docs/design.md §7).
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct CouponView {
    pub id: Uuid,
    #[schema(value_type = String)]
    pub template_sn: TemplateSn,
    #[schema(value_type = String)]
    pub user_id: UserId,
    pub status: CouponStatus,
    pub issued_at: DateTime<Utc>,
    pub effective_at: DateTime<Utc>,
    pub expires_at: DateTime<Utc>,
    #[schema(value_type = Option<Uuid>)]
    pub channel_id: Option<ChannelId>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub refund_from: Option<Uuid>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub order_id: Option<String>,
    /// When its order locked it: only while it is `locked`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub locked_at: Option<DateTime<Utc>>,
    /// When its order used it: only while it is `used` (a refund's or a
    /// restore's time is in the coupon's events).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub used_at: Option<DateTime<Utc>>,
}

/// `changed_at` last: the status's own time (docs/design.md §20, "Wallets").
pub(crate) const COLUMNS: &str = "id, template_sn, user_id, status, issued_at, effective_at, \
     expires_at, channel_id, refund_from, order_id, changed_at";

impl CouponView {
    /// The coupon a `CouponIssued` event just created.
    pub fn issued(c: &crate::domain::events::CouponIssued) -> Self {
        Self {
            id: c.coupon_id,
            template_sn: c.template_sn.clone(),
            user_id: c.user_id.clone(),
            status: CouponStatus::Unused,
            issued_at: c.issued_at,
            effective_at: c.effective_at,
            expires_at: c.expires_at,
            channel_id: c.channel_id,
            refund_from: c.refund_from,
            order_id: None,
            locked_at: None,
            used_at: None,
        }
    }

    /// A row in [`COLUMNS`]' order. The row's `changed_at` is when its
    /// status last changed: the lock's time while `locked`, the use's
    /// while `used` (rows older than V30 have none).
    pub(crate) fn from_row(r: &Row) -> Result<Self, tokio_postgres::Error> {
        let status: CouponStatus = r.try_get::<_, Named<_>>(3)?.0;
        let changed_at: Option<DateTime<Utc>> = r.get(10);
        let at = |s: CouponStatus| changed_at.filter(|_| status == s);
        Ok(Self {
            id: r.get(0),
            template_sn: r.get(1),
            user_id: r.get(2),
            status,
            issued_at: r.get(4),
            effective_at: r.get(5),
            expires_at: r.get(6),
            channel_id: r.get(7),
            refund_from: r.get(8),
            order_id: r.get(9),
            locked_at: at(CouponStatus::Locked),
            used_at: at(CouponStatus::Used),
        })
    }
}

pub async fn coupon(
    client: &impl GenericClient,
    id: Uuid,
) -> Result<Option<CouponView>, tokio_postgres::Error> {
    // Wherever it lives (docs/design.md §16): hot first, then the archive.
    let from = cold::everywhere(COLUMNS);
    let sql = format!("SELECT {COLUMNS} FROM {from} c WHERE id = $1");
    let row = client.query_opt(&sql, &[&id]).await?;
    row.as_ref().map(CouponView::from_row).transpose()
}

/// Where a list of coupons looks (docs/design.md §16).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Shelves {
    /// `coupons` only: live coupons and those ended recently.
    Hot,
    /// Also the archive (`?include_archived=true`).
    HotAndCold,
}

/// One event of a coupon's or a template's history.
#[derive(Serialize, ToSchema)]
pub struct HistoryEvent {
    pub position: i64,
    pub event_id: Uuid,
    pub stream_version: i32,
    pub event_type: String,
    pub schema_version: i16,
    /// The event's own fields, by `event_type` (its JSON Schema is
    /// `schemas/<event_type>.v<schema_version>.json`).
    #[schema(value_type = Object)]
    pub payload: Value,
    #[schema(value_type = EventMetadata)]
    pub metadata: Value,
    pub occurred_at: DateTime<Utc>,
}

/// Who made a change and in answer to what (docs/design.md §4 `metadata`); the
/// shape of the stored metadata, for the document.
/// Only its schema is used: the metadata is served as stored.
#[derive(ToSchema)]
#[expect(
    dead_code,
    reason = "only its schema is used: the metadata is served as stored"
)]
pub struct EventMetadata {
    /// `admin`, `service`, `channel:<id>`, `system:<worker>`.
    pub actor: String,
    /// The operator whose request it answers (docs/design.md §7
    /// "Operators"): on an admin route's events and an issuance job's coupons.
    pub operator: Option<String>,
    #[schema(value_type = Option<Uuid>)]
    pub channel_id: Option<ChannelId>,
    pub correlation_id: String,
    pub causation_id: Option<String>,
    pub idempotency_key: Option<String>,
}

pub async fn history(
    client: &impl GenericClient,
    id: Uuid,
) -> Result<Vec<HistoryEvent>, tokio_postgres::Error> {
    stream_history(client, &StreamKind::Coupon.id(id)).await
}

/// The events of the stream `stream_id`, oldest first (at most 1,000): a
/// coupon's or a template's history, with who did each (docs/design.md §7).
pub async fn stream_history(
    client: &impl GenericClient,
    stream_id: &str,
) -> Result<Vec<HistoryEvent>, tokio_postgres::Error> {
    let events = store::read_stream(client, stream_id, 0, MAX_HISTORY).await?;
    Ok(events
        .into_iter()
        .map(|e: RecordedEvent| HistoryEvent {
            position: e.position,
            event_id: e.event_id,
            stream_version: e.stream_version,
            event_type: e.event_type.as_str().to_owned(),
            schema_version: e.schema_version,
            payload: e.payload,
            metadata: e.metadata,
            occurred_at: e.occurred_at,
        })
        .collect())
}

/// Most candidates one quote reads: one coupon per template, each one's
/// discount alone computed before the search keeps the best
/// [`crate::domain::quote::SEARCH_BOUND`].
pub const MAX_CANDIDATES: i64 = 5_000;

/// One coupon of each of the user's templates that could apply to `order`
/// at `now` (the one expiring first: coupons of a template share its terms,
/// and an order takes at most one of them), the largest face values first
/// (at most [`MAX_CANDIDATES`] templates), and whether more could. What
/// never can is left out here, before any bound (docs/design.md §15):
/// another currency, a void template, outside its validity at `now`, a
/// shipping coupon for an order without shipping, a shop's coupon for an
/// order without a line of that shop (its scope is confined to the shop's
/// lines when the template is created).
pub async fn candidates_for(
    client: &impl GenericClient,
    user_id: &UserId,
    order: &Order,
    now: DateTime<Utc>,
) -> Result<(Vec<Coupon<Uuid>>, bool), RowError> {
    let sql = format!(
        "WITH firsts AS (
            SELECT DISTINCT ON (c.template_sn) c.id
              FROM coupons c JOIN templates t ON t.sn = c.template_sn
             WHERE c.user_id = $1 AND c.status = $2 AND t.currency = $3
               AND t.status <> $4 AND c.effective_at <= $5 AND c.expires_at > $5
               AND ($6 OR t.kind <> $7)
               AND (t.shop_id IS NULL OR t.shop_id = ANY($9))
             ORDER BY c.template_sn, c.expires_at, c.id)
         {SELECT} WHERE c.id IN (SELECT id FROM firsts)
          ORDER BY t.face_value DESC, c.expires_at, c.id LIMIT $8"
    );
    let has_shipping = order.shipping_fee() > Money::ZERO;
    let shops: Vec<&str> = order
        .lines()
        .iter()
        .filter_map(|l| l.shop_id().map(ShopId::as_str))
        .collect();
    let params: [&(dyn ToSql + Sync); 9] = [
        user_id,
        &CouponStatus::Unused.as_str(),
        &order.currency().as_str(),
        &TemplateStatus::Void.as_str(),
        &now,
        &has_shipping,
        &Kind::Shipping.as_str(),
        &(MAX_CANDIDATES + 1),
        &shops,
    ];
    let rows = client.query(&sql, &params).await?;
    let more = rows.len() as i64 > MAX_CANDIDATES;
    let coupons = rows
        .iter()
        .take(MAX_CANDIDATES as usize)
        .map(|r| CouponRow::from_row(r)?.pricing_coupon())
        .collect::<Result<_, _>>()?;
    Ok((coupons, more))
}
